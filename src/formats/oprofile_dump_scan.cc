// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/formats/oprofile_dump_scan.h"

#include <cstring>
#include <string>
#include <unordered_map>

#include "jitscope/formats/bounded_reader.h"
#include "jitscope/formats/pid_file_name.h"

namespace jitscope::formats::scan {
namespace {

constexpr uint32_t kOprofileDumpMagic = 0x4F74496A;  // "jItO" on a little-endian disk
constexpr uint32_t kOprofileDumpVersion = 1;

enum class OprofileRecordId : uint32_t {
  kCodeLoad = 0,
  kCodeUnload = 1,
  kCodeClose = 2,
  kCodeDebugInfo = 3,
};

// LP64 layout (§4.3).
constexpr uint64_t kHeaderFixedSize = 32;  // magic .. timestamp; the target string follows
constexpr uint64_t kCodeLoadSize = 40;
constexpr uint64_t kUnloadSize = 24;
constexpr uint64_t kDebugInfoSize = 32;
constexpr uint64_t kDebugEntrySize = 12;  // vma (8), lineno (4); then the NUL-terminated name

class Parser {
 public:
  Parser(std::span<const uint8_t> bytes, std::string_view file_name, ParsedOprofileDump& out)
      : reader_(bytes, false), file_name_(file_name), out_(out) {}

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
    if (count > (end - offset - kDebugInfoSize) / (kDebugEntrySize + 1)) {
      return Fail(offset, "DEBUG_INFO claims " + std::to_string(count) +
                              " entries, more than its record can hold");
    }
    const size_t first = out_.lines.size();
    uint64_t p = offset + kDebugInfoSize;
    for (uint32_t i = 0; i < count; ++i) {
      auto file = reader_.CString(p + kDebugEntrySize, end);
      if (!file || p + kDebugEntrySize > end) {
        out_.lines.resize(first);
        return Fail(offset, "DEBUG_INFO entry " + std::to_string(i) + " runs past the record");
      }
      out_.lines.push_back({*reader_.Int<uint64_t>(p), *reader_.Int<uint32_t>(p + 8), *file});
      p += kDebugEntrySize + file->size() + 1;
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
  ParsedOprofileDump& out_;
  std::unordered_map<uint64_t, size_t> last_load_;  // address → latest CODE_LOAD naming it
};

}  // namespace

bool LooksLikeOprofileDump(std::span<const uint8_t> bytes) {
  if (bytes.size() < 4) return false;
  uint32_t magic;
  std::memcpy(&magic, bytes.data(), sizeof(magic));
  return magic == kOprofileDumpMagic;
}

base::StatusOr<ParsedOprofileDump> ParseOprofileDump(std::span<const uint8_t> bytes,
                                                     std::string_view file_name) {
  const int name_size = static_cast<int>(file_name.size());
  if (!LooksLikeOprofileDump(bytes)) {
    return base::Status::Error("%.*s: not an OProfile JIT dump (bad magic)", name_size,
                               file_name.data());
  }
  BoundedReader reader(bytes, false);
  if (!reader.Has(0, kHeaderFixedSize + 1)) {
    return base::Status::Error("%.*s: offset 0: OProfile dump header is truncated", name_size,
                               file_name.data());
  }
  ParsedOprofileDump out;
  out.header.version = *reader.Int<uint32_t>(4);
  const uint32_t header_size = *reader.Int<uint32_t>(8);
  out.header.bfd_arch = *reader.Int<uint32_t>(12);
  out.header.bfd_mach = *reader.Int<uint32_t>(16);
  out.header.timestamp_seconds = *reader.Int<uint64_t>(24);
  if (out.header.version != kOprofileDumpVersion) {
    return base::Status::Error("%.*s: unsupported OProfile dump version %u (this reader reads 1)",
                               name_size, file_name.data(), out.header.version);
  }
  if (header_size <= kHeaderFixedSize || header_size > bytes.size()) {
    return base::Status::Error("%.*s: offset 8: invalid OProfile dump header size %u", name_size,
                               file_name.data(), header_size);
  }
  // i386 writers put the timestamp at 20 and the target string at 28 (§4.3).
  auto ilp32_target = reader.CString(28, header_size);
  if (ilp32_target && ilp32_target->starts_with("elf32")) {
    return base::Status::Error("%.*s: a 32-bit (ILP32) OProfile dump: only the LP64 layout is read",
                               name_size, file_name.data());
  }
  auto target = reader.CString(kHeaderFixedSize, header_size);
  if (!target) {
    return base::Status::Error("%.*s: offset 32: OProfile dump target name is not NUL-terminated",
                               name_size, file_name.data());
  }
  out.header.target = *target;
  Parser(bytes, file_name, out).ParseRecords(header_size);
  return out;
}

std::optional<uint32_t> OprofileDumpPid(std::string_view path) {
  const size_t slash = path.rfind('/');
  return ParsePidFileName(slash == path.npos ? path : path.substr(slash + 1), "", ".dump");
}

}  // namespace jitscope::formats::scan
