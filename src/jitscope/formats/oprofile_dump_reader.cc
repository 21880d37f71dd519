// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/formats/oprofile_dump_reader.h"

#include <cstring>
#include <type_traits>

namespace jitscope::formats {
namespace {

template <typename T>
T Load(const uint8_t* p) {
  static_assert(std::is_trivially_copyable_v<T>);
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

// A NUL-terminated string inside [begin, end), or false when there is no NUL before `end`.
bool ReadCString(const uint8_t* begin, const uint8_t* end, std::string_view& out) {
  const void* nul = std::memchr(begin, 0, static_cast<size_t>(end - begin));
  if (nul == nullptr) return false;
  out = std::string_view(reinterpret_cast<const char*>(begin),
                         static_cast<size_t>(static_cast<const uint8_t*>(nul) - begin));
  return true;
}

class Parser {
 public:
  Parser(std::span<const uint8_t> bytes, OprofileLayout layout, ParsedOprofileDump& out)
      : bytes_(bytes), layout_(layout), out_(out) {}

  void ParseRecords(uint64_t offset) {
    while (offset < bytes_.size()) {
      const uint64_t left = bytes_.size() - offset;
      if (left < sizeof(OprofileRecordPrefix)) {
        ++out_.torn_records;
        return;
      }
      const auto prefix = Load<OprofileRecordPrefix>(bytes_.data() + offset);
      if (prefix.total_size < sizeof(OprofileRecordPrefix)) {
        Damage(offset, "record size smaller than its header");
        return;
      }
      if (prefix.total_size > left) {
        ++out_.torn_records;
        return;
      }
      const uint8_t* begin = bytes_.data() + offset;
      const uint8_t* end = begin + prefix.total_size;
      OprofileDumpRecord record{offset, prefix.timestamp, OprofileDumpClose{}};
      const char* error = nullptr;
      switch (static_cast<OprofileRecordId>(prefix.id)) {
        case OprofileRecordId::kCodeLoad:
          error = ParseLoad(begin, end, record);
          break;
        case OprofileRecordId::kCodeUnload:
          if (prefix.total_size < sizeof(OprofileCodeUnload)) {
            error = "unload record is too short";
          } else {
            record.body = OprofileDumpUnload{Load<OprofileCodeUnload>(begin).vma};
          }
          break;
        case OprofileRecordId::kCodeClose:
          break;
        case OprofileRecordId::kCodeDebugInfo:
          error = ParseDebugInfo(begin, end, record);
          break;
        default:
          error = "unknown record id";
          break;
      }
      if (error != nullptr) {
        Damage(offset, error);
        return;
      }
      out_.records.push_back(std::move(record));
      offset += prefix.total_size;
    }
  }

 private:
  static const char* ParseLoad(const uint8_t* begin, const uint8_t* end,
                               OprofileDumpRecord& record) {
    if (end - begin < static_cast<ptrdiff_t>(sizeof(OprofileCodeLoad))) {
      return "code load record is too short";
    }
    const auto fixed = Load<OprofileCodeLoad>(begin);
    OprofileDumpCodeLoad load;
    load.vma = fixed.vma;
    load.code_addr = fixed.code_addr;
    load.code_size = fixed.code_size;
    const uint8_t* p = begin + sizeof(OprofileCodeLoad);
    if (!ReadCString(p, end, load.name)) return "code load name is not terminated";
    p += load.name.size() + 1;
    // As in opjitconv: the bytes are there exactly when code_addr is not 0.
    if (fixed.code_addr != 0) {
      if (static_cast<uint64_t>(end - p) < fixed.code_size) {
        return "code load record is shorter than its code";
      }
      load.code = {p, fixed.code_size};
    }
    record.body = load;
    return nullptr;
  }

  const char* ParseDebugInfo(const uint8_t* begin, const uint8_t* end,
                             OprofileDumpRecord& record) const {
    if (end - begin < static_cast<ptrdiff_t>(sizeof(OprofileDebugInfo))) {
      return "debug info record is too short";
    }
    const auto fixed = Load<OprofileDebugInfo>(begin);
    const uint8_t* p = begin + sizeof(OprofileDebugInfo);
    // Each entry takes at least vma, line and a NUL: bound the count before reserving.
    const size_t min_entry = layout_.line_name_offset() + 1;
    if (fixed.nr_entry > static_cast<size_t>(end - p) / min_entry) {
      return "debug info record is shorter than its entries";
    }
    OprofileDumpDebugInfo info;
    info.code_addr = fixed.code_addr;
    info.lines.reserve(fixed.nr_entry);
    for (uint32_t i = 0; i < fixed.nr_entry; ++i) {
      if (static_cast<size_t>(end - p) < min_entry) {
        return "debug info record is shorter than its entries";
      }
      OprofileDumpLine line;
      line.vma = layout_.line_vma_size == sizeof(uint32_t) ? Load<uint32_t>(p) : Load<uint64_t>(p);
      line.line = Load<uint32_t>(p + layout_.line_number_offset());
      if (!ReadCString(p + layout_.line_name_offset(), end, line.file)) {
        return "debug info file name is not terminated";
      }
      p += layout_.line_name_offset() + line.file.size() + 1;
      info.lines.push_back(line);
    }
    record.body = std::move(info);
    return nullptr;
  }

  void Damage(uint64_t offset, const char* what) {
    out_.damage = base::Status::Error("damaged OProfile dump at offset %llu: %s",
                                      static_cast<unsigned long long>(offset), what);
  }

  std::span<const uint8_t> bytes_;
  OprofileLayout layout_;
  ParsedOprofileDump& out_;
};

}  // namespace

base::StatusOr<ParsedOprofileDump> ParseOprofileDump(std::span<const uint8_t> bytes) {
  ParsedOprofileDump dump;
  ASSIGN_OR_RETURN(dump.header, ReadOprofileHeader(bytes));
  Parser(bytes, dump.header.layout, dump).ParseRecords(dump.header.total_size);
  return dump;
}

}  // namespace jitscope::formats
