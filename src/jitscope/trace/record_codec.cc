// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/trace/record_codec.h"

#include <cstring>
#include <limits>
#include <type_traits>

namespace jitscope::trace {
namespace {

constexpr size_t kMaxRecordSize = std::numeric_limits<uint32_t>::max() & ~size_t{7};

size_t StringBytes(const std::optional<std::string_view>& s) { return s ? s->size() : 0; }

uint32_t StringSizeField(const std::optional<std::string_view>& s) {
  return s ? static_cast<uint32_t>(s->size()) : kAbsentString;
}

// Strings longer than 4 GiB cannot be described by the format; EncodedRecordSize rejects them.
bool FitsSizeField(const std::optional<std::string_view>& s) {
  return !s || s->size() < kAbsentString;
}

size_t Finish(size_t unpadded) {
  const size_t size = AlignTo8(sizeof(RecordHeader) + unpadded);
  return size <= kMaxRecordSize ? size : 0;
}

uint8_t* Put(uint8_t* out, const void* data, size_t size) {
  if (size != 0) std::memcpy(out, data, size);
  return out + size;
}

uint8_t* PutString(uint8_t* out, const std::optional<std::string_view>& s) {
  return s ? Put(out, s->data(), s->size()) : out;
}

RecordHeader Header(size_t body_size, RecordType type) {
  return RecordHeader{static_cast<uint32_t>(sizeof(RecordHeader) + body_size),
                      static_cast<uint16_t>(type), 0};
}

// Reads the fixed part of a record body and hands out the variable parts in order, failing
// (and staying failed) when the body is too short.
class BodyReader {
 public:
  explicit BodyReader(std::span<const uint8_t> body) : body_(body) {}

  template <typename T>
  bool ReadFixed(T& out) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (!Have(sizeof(T))) return false;
    std::memcpy(&out, body_.data() + position_, sizeof(T));
    position_ += sizeof(T);
    return true;
  }

  bool ReadString(uint32_t size, std::optional<std::string_view>& out) {
    if (size == kAbsentString) {
      out.reset();
      return true;
    }
    if (!Have(size)) return false;
    out = std::string_view(reinterpret_cast<const char*>(body_.data() + position_), size);
    position_ += size;
    return true;
  }

  // A table of `count` fixed-size entries, viewed in place. Record bodies are 8-byte aligned and
  // every fixed part and table before a table is a multiple of its entries' alignment, so the
  // check below only fails on a damaged record.
  template <typename T>
  bool ReadArray(uint32_t count, std::span<const T>& out) {
    static_assert(std::is_trivially_copyable_v<T>);
    const uint64_t bytes = uint64_t{count} * sizeof(T);
    if (!Have(bytes)) return false;
    if (reinterpret_cast<uintptr_t>(body_.data() + position_) % alignof(T) != 0) return false;
    out = {reinterpret_cast<const T*>(body_.data() + position_), count};
    position_ += bytes;
    return true;
  }

  bool ReadBytes(uint32_t size, std::span<const uint8_t>& out) { return ReadArray(size, out); }

 private:
  bool Have(uint64_t bytes) const { return bytes <= body_.size() - position_; }

  std::span<const uint8_t> body_;
  size_t position_ = 0;
};

base::Status Truncated(RecordType type) {
  return base::Status::Error("record of type %u is shorter than its fields say",
                             static_cast<unsigned>(type));
}

}  // namespace

size_t EncodedRecordSize(const Event& event) {
  struct Visitor {
    size_t operator()(const CodeEvent& e) const {
      if (!FitsSizeField(e.name) || !FitsSizeField(e.class_file) || !FitsSizeField(e.source_file) ||
          !FitsSizeField(e.module)) {
        return 0;
      }
      const uint64_t lines = uint64_t{e.lines.size()} * sizeof(LineEntry);
      return Finish(sizeof(CodeRecord) + lines + StringBytes(e.name) + StringBytes(e.class_file) +
                    StringBytes(e.source_file) + StringBytes(e.module));
    }
    size_t operator()(const RangeUpdateEvent& e) const {
      if (!FitsSizeField(e.data_format)) return 0;
      return Finish(sizeof(RangeUpdateRecord) + StringBytes(e.data_format));
    }
    size_t operator()(const UnloadEvent&) const { return Finish(sizeof(UnloadRecord)); }
    size_t operator()(const ShutdownEvent&) const { return Finish(sizeof(ShutdownRecord)); }
    size_t operator()(const RejectedEvent&) const { return Finish(sizeof(RejectedRecord)); }
    size_t operator()(const OprofileOpenEvent&) const {
      return Finish(sizeof(OprofileAgentRecord));
    }
    size_t operator()(const OprofileCloseEvent&) const {
      return Finish(sizeof(OprofileAgentRecord));
    }
    size_t operator()(const OprofileCodeLoadEvent& e) const {
      if (e.name.size() >= kAbsentString || e.code.size() >= kAbsentString) return 0;
      return Finish(sizeof(OprofileCodeLoadRecord) + e.name.size() + e.code.size());
    }
    size_t operator()(const OprofileDebugLinesEvent& e) const {
      if (e.lines.size() >= kAbsentString || e.files.ends.size() >= kAbsentString ||
          e.files.names.size() >= kAbsentString) {
        return 0;
      }
      return Finish(sizeof(OprofileDebugLinesRecord) + e.lines.size_bytes() +
                    e.files.ends.size_bytes() + e.files.names.size());
    }
    size_t operator()(const OprofileUnloadEvent&) const {
      return Finish(sizeof(OprofileUnloadRecord));
    }
  };
  return std::visit(Visitor{}, event);
}

RecordHeader EncodeRecordBody(const Event& event, uint64_t timestamp, uint8_t* out) {
  const size_t body_size = EncodedRecordSize(event) - sizeof(RecordHeader);
  uint8_t* const begin = out;
  RecordType type{};
  if (const auto* code = std::get_if<CodeEvent>(&event)) {
    type = RecordType::kCode;
    const CodeRecord fixed{timestamp,
                           code->address,
                           code->api_event,
                           code->method_id,
                           code->parent_method_id,
                           code->size,
                           code->class_id,
                           code->arch,
                           static_cast<uint32_t>(code->lines.size()),
                           StringSizeField(code->name),
                           StringSizeField(code->class_file),
                           StringSizeField(code->source_file),
                           StringSizeField(code->module),
                           0};
    out = Put(out, &fixed, sizeof(fixed));
    out = Put(out, code->lines.data(), code->lines.size_bytes());
    out = PutString(out, code->name);
    out = PutString(out, code->class_file);
    out = PutString(out, code->source_file);
    out = PutString(out, code->module);
  } else if (const auto* update = std::get_if<RangeUpdateEvent>(&event)) {
    type = RecordType::kRangeUpdate;
    const RangeUpdateRecord fixed{timestamp,
                                  update->address,
                                  update->size,
                                  update->segment_type,
                                  StringSizeField(update->data_format),
                                  0};
    out = Put(out, &fixed, sizeof(fixed));
    out = PutString(out, update->data_format);
  } else if (const auto* unload = std::get_if<UnloadEvent>(&event)) {
    type = RecordType::kUnload;
    const UnloadRecord fixed{timestamp, unload->method_id, 0};
    out = Put(out, &fixed, sizeof(fixed));
  } else if (std::holds_alternative<ShutdownEvent>(event)) {
    type = RecordType::kShutdown;
    const ShutdownRecord fixed{timestamp};
    out = Put(out, &fixed, sizeof(fixed));
  } else if (const auto* rejected = std::get_if<RejectedEvent>(&event)) {
    type = RecordType::kRejected;
    const RejectedRecord fixed{timestamp, rejected->api_event,
                               static_cast<uint32_t>(rejected->reason)};
    out = Put(out, &fixed, sizeof(fixed));
  } else if (const auto* open = std::get_if<OprofileOpenEvent>(&event)) {
    type = RecordType::kOprofileOpen;
    const OprofileAgentRecord fixed{timestamp, open->agent, 0};
    out = Put(out, &fixed, sizeof(fixed));
  } else if (const auto* close = std::get_if<OprofileCloseEvent>(&event)) {
    type = RecordType::kOprofileClose;
    const OprofileAgentRecord fixed{timestamp, close->agent, 0};
    out = Put(out, &fixed, sizeof(fixed));
  } else if (const auto* load = std::get_if<OprofileCodeLoadEvent>(&event)) {
    type = RecordType::kOprofileCodeLoad;
    const OprofileCodeLoadRecord fixed{timestamp,
                                       load->address,
                                       load->code_address,
                                       load->size,
                                       load->agent,
                                       static_cast<uint32_t>(load->name.size()),
                                       static_cast<uint32_t>(load->code.size())};
    out = Put(out, &fixed, sizeof(fixed));
    out = Put(out, load->name.data(), load->name.size());
    out = Put(out, load->code.data(), load->code.size());
  } else if (const auto* lines = std::get_if<OprofileDebugLinesEvent>(&event)) {
    type = RecordType::kOprofileDebugLines;
    const OprofileDebugLinesRecord fixed{timestamp,
                                         lines->code_address,
                                         lines->address,
                                         lines->size,
                                         lines->agent,
                                         static_cast<uint32_t>(lines->lines.size()),
                                         static_cast<uint32_t>(lines->files.ends.size()),
                                         static_cast<uint32_t>(lines->files.names.size()),
                                         0};
    out = Put(out, &fixed, sizeof(fixed));
    out = Put(out, lines->lines.data(), lines->lines.size_bytes());
    out = Put(out, lines->files.ends.data(), lines->files.ends.size_bytes());
    out = Put(out, lines->files.names.data(), lines->files.names.size());
  } else {
    const auto& unload = std::get<OprofileUnloadEvent>(event);
    type = RecordType::kOprofileUnload;
    const OprofileUnloadRecord fixed{timestamp, unload.address, unload.size, unload.agent};
    out = Put(out, &fixed, sizeof(fixed));
  }
  // Zero the padding explicitly: the chunk may be reused memory in tests, and the file must
  // not carry stale bytes.
  std::memset(out, 0, body_size - static_cast<size_t>(out - begin));
  return Header(body_size, type);
}

base::StatusOr<Record> DecodeRecordBody(RecordType type, std::span<const uint8_t> body) {
  BodyReader reader(body);
  Record record;
  switch (type) {
    case RecordType::kCode: {
      CodeRecord fixed{};
      CodeEvent code;
      if (!reader.ReadFixed(fixed) || !reader.ReadArray(fixed.line_count, code.lines) ||
          !reader.ReadString(fixed.name_size, code.name) ||
          !reader.ReadString(fixed.class_file_size, code.class_file) ||
          !reader.ReadString(fixed.source_file_size, code.source_file) ||
          !reader.ReadString(fixed.module_size, code.module)) {
        return Truncated(type);
      }
      code.api_event = fixed.api_event;
      code.method_id = fixed.method_id;
      code.parent_method_id = fixed.parent_method_id;
      code.address = fixed.address;
      code.size = fixed.size;
      code.class_id = fixed.class_id;
      code.arch = fixed.arch;
      record.timestamp = fixed.timestamp;
      record.event = code;
      return record;
    }
    case RecordType::kRangeUpdate: {
      RangeUpdateRecord fixed{};
      RangeUpdateEvent update;
      if (!reader.ReadFixed(fixed) ||
          !reader.ReadString(fixed.data_format_size, update.data_format)) {
        return Truncated(type);
      }
      update.address = fixed.address;
      update.size = fixed.size;
      update.segment_type = fixed.segment_type;
      record.timestamp = fixed.timestamp;
      record.event = update;
      return record;
    }
    case RecordType::kUnload: {
      UnloadRecord fixed{};
      if (!reader.ReadFixed(fixed)) return Truncated(type);
      record.timestamp = fixed.timestamp;
      record.event = UnloadEvent{fixed.method_id};
      return record;
    }
    case RecordType::kShutdown: {
      ShutdownRecord fixed{};
      if (!reader.ReadFixed(fixed)) return Truncated(type);
      record.timestamp = fixed.timestamp;
      record.event = ShutdownEvent{};
      return record;
    }
    case RecordType::kRejected: {
      RejectedRecord fixed{};
      if (!reader.ReadFixed(fixed)) return Truncated(type);
      record.timestamp = fixed.timestamp;
      record.event = RejectedEvent{fixed.api_event, static_cast<RejectReason>(fixed.reason)};
      return record;
    }
    case RecordType::kOprofileOpen:
    case RecordType::kOprofileClose: {
      OprofileAgentRecord fixed{};
      if (!reader.ReadFixed(fixed)) return Truncated(type);
      record.timestamp = fixed.timestamp;
      if (type == RecordType::kOprofileOpen) {
        record.event = OprofileOpenEvent{fixed.agent};
      } else {
        record.event = OprofileCloseEvent{fixed.agent};
      }
      return record;
    }
    case RecordType::kOprofileCodeLoad: {
      OprofileCodeLoadRecord fixed{};
      OprofileCodeLoadEvent load;
      std::optional<std::string_view> name;
      if (!reader.ReadFixed(fixed) || !reader.ReadString(fixed.name_size, name) || !name ||
          !reader.ReadBytes(fixed.code_bytes, load.code)) {
        return Truncated(type);
      }
      load.agent = fixed.agent;
      load.address = fixed.address;
      load.code_address = fixed.code_address;
      load.size = fixed.size;
      load.name = *name;
      record.timestamp = fixed.timestamp;
      record.event = load;
      return record;
    }
    case RecordType::kOprofileDebugLines: {
      OprofileDebugLinesRecord fixed{};
      OprofileDebugLinesEvent lines;
      std::optional<std::string_view> names;
      if (!reader.ReadFixed(fixed) || !reader.ReadArray(fixed.line_count, lines.lines) ||
          !reader.ReadArray(fixed.file_count, lines.files.ends) ||
          !reader.ReadString(fixed.names_size, names) || !names) {
        return Truncated(type);
      }
      lines.files.names = *names;
      // Every index and offset is checked here once, so FileTable::operator[] and consumers
      // that index files by an entry's `file` can trust them.
      uint32_t previous_end = 0;
      for (const uint32_t end : lines.files.ends) {
        if (end < previous_end || end > names->size()) {
          return base::Status::Error("debug-lines record has an invalid file table");
        }
        previous_end = end;
      }
      for (const auto& entry : lines.lines) {
        if (entry.file >= fixed.file_count) {
          return base::Status::Error("debug-lines record names file %u of %u", entry.file,
                                     fixed.file_count);
        }
      }
      lines.agent = fixed.agent;
      lines.code_address = fixed.code_address;
      lines.address = fixed.address;
      lines.size = fixed.size;
      record.timestamp = fixed.timestamp;
      record.event = lines;
      return record;
    }
    case RecordType::kOprofileUnload: {
      OprofileUnloadRecord fixed{};
      if (!reader.ReadFixed(fixed)) return Truncated(type);
      record.timestamp = fixed.timestamp;
      record.event = OprofileUnloadEvent{fixed.agent, fixed.address, fixed.size};
      return record;
    }
  }
  return base::Status::Error("unknown record type %u", static_cast<unsigned>(type));
}

}  // namespace jitscope::trace
