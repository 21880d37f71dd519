// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/formats/oprofile_dump_reader.h"

#include <cstddef>
#include <string>
#include <unordered_map>
#include <utility>

#include "jitscope/formats/bounded_reader.h"
#include "jitscope/formats/pid_file_name.h"

namespace jitscope::formats {
namespace {

// The records' fixed parts, the same in every layout (oprofile_dump_format.h). The readers below
// read their fields at these structs' offsets, through the bounds-checked reader.
constexpr uint64_t kCodeLoadSize = sizeof(OprofileCodeLoad);
constexpr uint64_t kUnloadSize = sizeof(OprofileCodeUnload);
constexpr uint64_t kDebugInfoSize = sizeof(OprofileDebugInfo);

class Parser {
 public:
  Parser(std::span<const uint8_t> bytes, std::string_view file_name, OprofileLayout layout,
         ParsedOprofileDump& out)
      : reader_(bytes, false), file_name_(file_name), layout_(layout), out_(out) {}

  void ParseRecords(uint64_t offset) {
    WalkEnd end = WalkRecords(reader_, offset, file_name_, [&](const RecordPrefix& r) {
      switch (static_cast<OprofileRecordId>(r.id)) {
        case OprofileRecordId::kCodeLoad:
          return CodeLoad(r);
        case OprofileRecordId::kCodeUnload:
          return Unload(r);
        case OprofileRecordId::kCodeClose:
          ++out_.stats.closes;
          out_.records.push_back({r.offset, r.timestamp, OprofileDumpClose{}});
          return true;
        case OprofileRecordId::kCodeDebugInfo:
          return DebugInfo(r);
      }
      ++out_.stats.unknown_records;
      return true;
    });
    if (!end.error.ok()) out_.error = std::move(end.error);
    if (end.torn) ++out_.stats.torn_records;
  }

 private:
  bool CodeLoad(const RecordPrefix& r) {
    if (r.end - r.offset < kCodeLoadSize + 1) return Fail(r.offset, "CODE_LOAD record too short");
    OprofileDumpCodeLoad load;
    load.vma = *reader_.Int<uint64_t>(r.offset + offsetof(OprofileCodeLoad, vma));
    load.code_addr = *reader_.Int<uint64_t>(r.offset + offsetof(OprofileCodeLoad, code_addr));
    load.code_size = *reader_.Int<uint32_t>(r.offset + offsetof(OprofileCodeLoad, code_size));
    auto name = reader_.CString(r.offset + kCodeLoadSize, r.end);
    if (!name) return Fail(r.offset, "CODE_LOAD name is not NUL-terminated inside the record");
    load.name = *name;
    // As in opjitconv: the bytes are there exactly when code_addr is not 0.
    if (load.code_addr != 0) {
      const uint64_t code = r.offset + kCodeLoadSize + name->size() + 1;
      if (r.end - code < load.code_size) {
        return Fail(r.offset, "CODE_LOAD record is shorter than its code");
      }
      load.code = *reader_.Span(code, load.code_size);
    }
    const auto index = static_cast<uint32_t>(out_.records.size());
    latest_load_[load.vma] = index;
    if (load.code_addr != 0) latest_load_[load.code_addr] = index;
    out_.records.push_back({r.offset, r.timestamp, load});
    ++out_.stats.code_loads;
    return true;
  }

  bool Unload(const RecordPrefix& r) {
    if (r.end - r.offset < kUnloadSize) return Fail(r.offset, "UNLOAD record too short");
    const uint64_t vma = *reader_.Int<uint64_t>(r.offset + offsetof(OprofileCodeUnload, vma));
    out_.records.push_back({r.offset, r.timestamp, OprofileDumpUnload{vma}});
    ++out_.stats.unloads;
    return true;
  }

  bool DebugInfo(const RecordPrefix& r) {
    if (r.end - r.offset < kDebugInfoSize) return Fail(r.offset, "DEBUG_INFO record too short");
    ++out_.stats.debug_infos;
    OprofileDumpDebugInfo info;
    info.code_addr = *reader_.Int<uint64_t>(r.offset + offsetof(OprofileDebugInfo, code_addr));
    const uint32_t count = *reader_.Int<uint32_t>(r.offset + offsetof(OprofileDebugInfo, nr_entry));
    // An entry is vma and line number, then the file name with its NUL: bound the count by the
    // smallest entry before reserving room for it.
    const uint64_t name_offset = layout_.line_name_offset();
    if (count > (r.end - r.offset - kDebugInfoSize) / (name_offset + 1)) {
      return Fail(r.offset, "DEBUG_INFO claims " + std::to_string(count) +
                                " entries, more than its record can hold");
    }
    info.lines.reserve(count);
    uint64_t p = r.offset + kDebugInfoSize;
    for (uint32_t i = 0; i < count; ++i) {
      auto file = reader_.CString(p + name_offset, r.end);
      if (!file) {
        return Fail(r.offset, "DEBUG_INFO entry " + std::to_string(i) + " runs past the record");
      }
      const uint64_t vma = layout_.line_vma_size == sizeof(uint32_t) ? *reader_.Int<uint32_t>(p)
                                                                     : *reader_.Int<uint64_t>(p);
      info.lines.push_back({vma, *reader_.Int<uint32_t>(p + layout_.line_number_offset()), *file});
      p += name_offset + file->size() + 1;
    }
    if (!reader_.AllZero(p, r.end)) {
      return Fail(r.offset, "DEBUG_INFO has bytes after its entries that are not padding");
    }
    const auto index = static_cast<uint32_t>(out_.records.size());
    if (auto load = latest_load_.find(info.code_addr); load != latest_load_.end()) {
      auto& code = std::get<OprofileDumpCodeLoad>(out_.records[load->second].body);
      if (code.debug_info) ++out_.stats.replaced_debug_infos;
      code.debug_info = index;
    } else {
      ++out_.stats.unattached_debug_infos;
    }
    out_.records.push_back({r.offset, r.timestamp, std::move(info)});
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
  std::unordered_map<uint64_t, uint32_t> latest_load_;  // address → the latest CODE_LOAD naming it
};

}  // namespace

base::StatusOr<ParsedOprofileDump> ParseOprofileDump(std::span<const uint8_t> bytes,
                                                     std::string_view file_name) {
  auto header = ReadOprofileHeader(bytes);
  if (!header.ok()) {
    return base::Status::Error("%.*s: %s", static_cast<int>(file_name.size()), file_name.data(),
                               header.status().message().c_str());
  }
  ParsedOprofileDump out;
  out.header = *header;
  Parser(bytes, file_name, out.header.layout, out).ParseRecords(out.header.total_size);
  return out;
}

std::optional<uint32_t> OprofileDumpPid(std::string_view path) {
  const size_t slash = path.rfind('/');
  return ParsePidFileName(slash == path.npos ? path : path.substr(slash + 1), "", ".dump");
}

}  // namespace jitscope::formats
