// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/formats/oprofile_dump_scan.h"

#include <cstring>
#include <string>
#include <unordered_map>

#include "jitscope/formats/bounded_reader.h"
#include "jitscope/formats/oprofile_dump_header.h"
#include "jitscope/formats/pid_file_name.h"

namespace jitscope::formats::scan {
namespace {

// The records' fixed parts, the same in every layout (oprofile_dump_format.h).
constexpr uint64_t kCodeLoadSize = sizeof(OprofileCodeLoad);
constexpr uint64_t kUnloadSize = sizeof(OprofileCodeUnload);
constexpr uint64_t kDebugInfoSize = sizeof(OprofileDebugInfo);

class Parser {
 public:
  Parser(std::span<const uint8_t> bytes, std::string_view file_name, OprofileLayout layout,
         ParsedOprofileDump& out)
      : reader_(bytes, false), file_name_(file_name), layout_(layout), out_(out) {}

  void ParseRecords(uint64_t offset) {
    base::Status status = WalkRecords(reader_, offset, file_name_, [&](const RecordPrefix& r) {
      switch (static_cast<OprofileRecordId>(r.id)) {
        case OprofileRecordId::kCodeLoad:
          return CodeLoad(r.offset, r.end, r.timestamp);
        case OprofileRecordId::kCodeUnload:
          return Unload(r.offset, r.end, r.timestamp);
        case OprofileRecordId::kCodeClose:
          ++out_.stats.closes;
          return true;
        case OprofileRecordId::kCodeDebugInfo:
          return DebugInfo(r.offset, r.end);
      }
      ++out_.stats.unknown_records;
      return true;
    });
    if (!status.ok()) out_.error = std::move(status);
  }

 private:
  bool CodeLoad(uint64_t offset, uint64_t end, uint64_t timestamp) {
    if (end - offset < kCodeLoadSize + 1) return Fail(offset, "CODE_LOAD record too short");
    OprofileRecord record;
    record.kind = OprofileRecordKind::kCodeLoad;
    record.offset = offset;
    record.timestamp_seconds = timestamp;
    record.vma = *reader_.Int<uint64_t>(offset + 16);
    record.code_addr = *reader_.Int<uint64_t>(offset + 24);
    record.code_size = *reader_.Int<uint32_t>(offset + 32);
    auto name = reader_.CString(offset + kCodeLoadSize, end);
    if (!name) return Fail(offset, "CODE_LOAD name is not NUL-terminated inside the record");
    record.name = *name;
    const size_t index = out_.records.size();
    last_load_[record.vma] = index;
    if (record.code_addr != 0) last_load_[record.code_addr] = index;
    out_.records.push_back(record);
    ++out_.stats.code_loads;
    return true;
  }

  bool Unload(uint64_t offset, uint64_t end, uint64_t timestamp) {
    if (end - offset < kUnloadSize) return Fail(offset, "UNLOAD record too short");
    OprofileRecord record;
    record.kind = OprofileRecordKind::kCodeUnload;
    record.offset = offset;
    record.timestamp_seconds = timestamp;
    record.vma = *reader_.Int<uint64_t>(offset + 16);
    out_.records.push_back(record);
    ++out_.stats.unloads;
    return true;
  }

  bool DebugInfo(uint64_t offset, uint64_t end) {
    if (end - offset < kDebugInfoSize) return Fail(offset, "DEBUG_INFO record too short");
    ++out_.stats.debug_infos;
    const uint64_t code_addr = *reader_.Int<uint64_t>(offset + 16);
    const uint32_t count = *reader_.Int<uint32_t>(offset + 24);
    const uint64_t entry_size = layout_.line_name_offset();  // vma, lineno; then the name
    if (count > (end - offset - kDebugInfoSize) / (entry_size + 1)) {
      return Fail(offset, "DEBUG_INFO claims " + std::to_string(count) +
                              " entries, more than its record can hold");
    }
    const size_t first = out_.lines.size();
    uint64_t p = offset + kDebugInfoSize;
    for (uint32_t i = 0; i < count; ++i) {
      auto file = reader_.CString(p + entry_size, end);
      if (!file || p + entry_size > end) {
        out_.lines.resize(first);
        return Fail(offset, "DEBUG_INFO entry " + std::to_string(i) + " runs past the record");
      }
      const uint64_t vma = layout_.line_vma_size == sizeof(uint32_t) ? *reader_.Int<uint32_t>(p)
                                                                     : *reader_.Int<uint64_t>(p);
      out_.lines.push_back({vma, *reader_.Int<uint32_t>(p + layout_.line_number_offset()), *file});
      p += entry_size + file->size() + 1;
    }
    if (!reader_.AllZero(p, end)) {
      out_.lines.resize(first);
      return Fail(offset, "DEBUG_INFO has bytes after its entries that are not padding");
    }
    auto load = last_load_.find(code_addr);
    if (load == last_load_.end()) {
      ++out_.stats.unattached_debug_infos;
      out_.lines.resize(first);
      return true;
    }
    OprofileRecord& record = out_.records[load->second];
    if (record.line_count != 0) ++out_.stats.replaced_debug_infos;
    record.first_line = static_cast<uint32_t>(first);
    record.line_count = count;
    return true;
  }

  bool Fail(uint64_t offset, const std::string& what) {
    out_.error = RecordError(file_name_, offset, what);
    return false;
  }

  BoundedReader reader_;
  std::string_view file_name_;
  OprofileLayout layout_;
  ParsedOprofileDump& out_;
  std::unordered_map<uint64_t, size_t> last_load_;  // address → latest CODE_LOAD naming it
};

}  // namespace

bool LooksLikeOprofileDump(std::span<const uint8_t> bytes) {
  return formats::LooksLikeOprofileDump(bytes);
}

base::StatusOr<ParsedOprofileDump> ParseOprofileDump(std::span<const uint8_t> bytes,
                                                     std::string_view file_name) {
  auto header = ReadOprofileHeader(bytes);
  if (!header.ok()) {
    return base::Status::Error("%.*s: %s", static_cast<int>(file_name.size()), file_name.data(),
                               header.status().message().c_str());
  }
  ParsedOprofileDump out;
  out.header.version = header->version;
  out.header.bfd_arch = header->bfd_arch;
  out.header.bfd_mach = header->bfd_mach;
  out.header.timestamp_seconds = header->timestamp;
  out.header.target = header->bfd_target;
  out.header.line_vma_size = header->layout.line_vma_size;
  Parser(bytes, file_name, header->layout, out).ParseRecords(header->total_size);
  return out;
}

std::optional<uint32_t> OprofileDumpPid(std::string_view path) {
  const size_t slash = path.rfind('/');
  return ParsePidFileName(slash == path.npos ? path : path.substr(slash + 1), "", ".dump");
}

}  // namespace jitscope::formats::scan
