// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/formats/jvm_table.h"

#include <cstring>
#include <string>
#include <unordered_map>
#include <utility>

#include "jitscope/formats/bounded_reader.h"

namespace jitscope::formats {
namespace {

constexpr uint64_t kRecordHeader = sizeof(JitscopeJvmRecordHeader);

// One record's payload, [begin, end) of the file.
struct Payload {
  const BoundedReader& reader;
  uint64_t begin, end;
  bool Has(uint64_t offset, uint64_t length) const {
    return offset >= begin && offset <= end && length <= end - offset;
  }
};

bool ReadMethod(const Payload& p, uint64_t time, JvmMethod& out) {
  const uint64_t at = p.begin;
  if (!p.Has(at, sizeof(JitscopeJvmMethod))) return false;
  const auto method = p.reader.Int<uint64_t>(at);
  const auto code_base = p.reader.Int<uint64_t>(at + 8);
  const auto code_size = p.reader.Int<uint32_t>(at + 16);
  const auto flags = p.reader.Int<uint32_t>(at + 20);
  const auto class_size = p.reader.Int<uint32_t>(at + 24);
  const auto name_size = p.reader.Int<uint32_t>(at + 28);
  const auto signature_size = p.reader.Int<uint32_t>(at + 32);
  const auto file_size = p.reader.Int<uint32_t>(at + 36);
  const auto line_count = p.reader.Int<uint32_t>(at + 40);
  uint64_t offset = at + sizeof(JitscopeJvmMethod);
  const uint64_t lines_size = uint64_t{*line_count} * sizeof(JitscopeJvmLine);
  if (!p.Has(offset, lines_size)) return false;
  out.method = *method;
  out.since_ns = time;
  out.code_base = *code_base;
  out.code_size = *code_size;
  out.native = (*flags & JITSCOPE_JVM_METHOD_NATIVE) != 0;
  out.lines.reserve(*line_count);
  for (uint32_t i = 0; i < *line_count; ++i, offset += sizeof(JitscopeJvmLine)) {
    out.lines.push_back({*p.reader.Int<uint32_t>(offset), *p.reader.Int<uint32_t>(offset + 4)});
  }
  for (auto [size, text] :
       {std::pair{*class_size, &out.class_name}, std::pair{*name_size, &out.name},
        std::pair{*signature_size, &out.signature}, std::pair{*file_size, &out.file}}) {
    if (!p.Has(offset, size)) return false;
    *text = *p.reader.Bytes(offset, size);
    offset += size;
  }
  return !out.class_name.empty() && !out.name.empty();
}

bool ReadCompiled(const Payload& p, uint64_t time, JvmCompiled& out) {
  const uint64_t at = p.begin;
  if (!p.Has(at, sizeof(JitscopeJvmCompiled))) return false;
  out.time_ns = time;
  out.address = *p.reader.Int<uint64_t>(at);
  out.size = *p.reader.Int<uint32_t>(at + 8);
  const uint32_t pc_count = *p.reader.Int<uint32_t>(at + 12);
  const uint32_t frame_count = *p.reader.Int<uint32_t>(at + 16);
  uint64_t offset = at + sizeof(JitscopeJvmCompiled);
  const uint64_t pcs_size = uint64_t{pc_count} * sizeof(JitscopeJvmPc);
  const uint64_t frames_size = uint64_t{frame_count} * sizeof(JitscopeJvmFrame);
  if (!p.Has(offset, pcs_size) || !p.Has(offset + pcs_size, frames_size)) return false;
  out.pcs.reserve(pc_count);
  for (uint32_t i = 0; i < pc_count; ++i, offset += sizeof(JitscopeJvmPc)) {
    const JvmPc pc{*p.reader.Int<uint64_t>(offset), *p.reader.Int<uint32_t>(offset + 8),
                   *p.reader.Int<uint32_t>(offset + 12)};
    if (pc.first_frame > frame_count || pc.frames > frame_count - pc.first_frame) return false;
    out.pcs.push_back(pc);
  }
  out.frames.reserve(frame_count);
  for (uint32_t i = 0; i < frame_count; ++i, offset += sizeof(JitscopeJvmFrame)) {
    out.frames.push_back({*p.reader.Int<uint64_t>(offset), *p.reader.Int<int32_t>(offset + 8)});
  }
  return true;
}

// Closes the entry `end` ends: the latest-begun entry of its Method* that was read before it (the
// agent writes a check's ENDs before it names what the check found, which may be the same
// Method*, freed by one class and reused by another, with the END's own time as its start), that
// began no later than it, and that is open still.
void CloseEntry(ParsedJvmTable& parsed,
                const std::unordered_map<uint64_t, std::vector<size_t>>& entries_of, JvmEnd& end) {
  JvmMethod* latest = nullptr;
  if (auto it = entries_of.find(end.method); it != entries_of.end()) {
    for (size_t i : it->second) {
      JvmMethod& m = parsed.methods[i];
      if (m.since_ns > end.time_ns || m.until_ns != kJvmForever) continue;
      if (latest == nullptr || m.since_ns >= latest->since_ns) latest = &m;
    }
  }
  if (latest == nullptr) {
    ++parsed.unmatched_ends;
    return;
  }
  latest->until_ns = end.valid_until_ns;
  end.matched = true;
}

}  // namespace

bool LooksLikeJvmTable(std::span<const uint8_t> bytes) {
  uint32_t magic = 0;
  if (bytes.size() < sizeof(magic)) return false;
  std::memcpy(&magic, bytes.data(), sizeof(magic));
  return magic == JITSCOPE_JVM_TABLE_MAGIC;
}

base::StatusOr<ParsedJvmTable> ParseJvmTable(std::span<const uint8_t> bytes,
                                             std::string_view file_name) {
  const std::string name(file_name);
  if (!LooksLikeJvmTable(bytes)) {
    return base::Status::Error("%s: not a JVM table", name.c_str());
  }
  const BoundedReader reader(bytes, /*swapped=*/false);
  const auto version = reader.Int<uint32_t>(4);
  const auto header_size = reader.Int<uint32_t>(8);
  const auto pid = reader.Int<uint32_t>(12);
  const auto start = reader.Int<uint64_t>(16);
  if (!version || !header_size || !pid || !start || *header_size < sizeof(JitscopeJvmTableHeader) ||
      !reader.Has(0, *header_size)) {
    return base::Status::Error("%s: the header is cut short", name.c_str());
  }
  if (*version != JITSCOPE_JVM_TABLE_VERSION) {
    return base::Status::Error("%s: version %u, this jitscope reads version %u", name.c_str(),
                               *version, JITSCOPE_JVM_TABLE_VERSION);
  }
  ParsedJvmTable parsed;
  parsed.pid = *pid;
  parsed.start_ns = *start;
  // Each Method*'s entries read so far, by index into `methods`: an END closes one of these.
  std::unordered_map<uint64_t, std::vector<size_t>> entries_of;
  uint64_t offset = *header_size;
  while (offset < bytes.size()) {
    const auto type = reader.Int<uint32_t>(offset);
    const auto size = reader.Int<uint32_t>(offset + 4);
    const auto time = reader.Int<uint64_t>(offset + 8);
    if (!type || !size || !time || *size < kRecordHeader || *size % 8 != 0 ||
        !reader.Has(offset, *size)) {
      parsed.error = base::Status::Error("%s: offset %llu: a record cut short", name.c_str(),
                                         static_cast<unsigned long long>(offset));
      break;
    }
    const Payload payload{reader, offset + kRecordHeader, offset + *size};
    bool read = false;
    size_t index = 0;
    switch (*type) {
      case JITSCOPE_JVM_RECORD_METHOD:
        index = parsed.methods.size();
        read = ReadMethod(payload, *time, parsed.methods.emplace_back());
        if (!read) {
          parsed.methods.pop_back();
        } else {
          entries_of[parsed.methods.back().method].push_back(index);
        }
        break;
      case JITSCOPE_JVM_RECORD_END:
        index = parsed.ends.size();
        read = payload.Has(payload.begin, sizeof(JitscopeJvmEnd));
        if (read) {
          parsed.ends.push_back({*time, *reader.Int<uint64_t>(payload.begin),
                                 *reader.Int<uint64_t>(payload.begin + 8), false});
          CloseEntry(parsed, entries_of, parsed.ends.back());
        }
        break;
      case JITSCOPE_JVM_RECORD_COMPILED:
        index = parsed.compiled.size();
        read = ReadCompiled(payload, *time, parsed.compiled.emplace_back());
        if (!read) parsed.compiled.pop_back();
        break;
      default:
        read = true;  // a record of a later kind: skipped by its size
        break;
    }
    if (!read) {
      parsed.error =
          base::Status::Error("%s: offset %llu: a record of type %u does not parse", name.c_str(),
                              static_cast<unsigned long long>(offset), *type);
      break;
    }
    parsed.records.push_back({*type, offset, *time, index});
    offset += *size;
  }
  return parsed;
}

}  // namespace jitscope::formats
