// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/formats/jitdump_writer.h"

#include <elf.h>

#include <cstring>
#include <limits>

#include "jitscope/formats/pid_file_name.h"

namespace jitscope::formats {
namespace {

void AppendBytes(std::vector<uint8_t>& out, const void* bytes, size_t size) {
  // Same element type on both sides: insert() becomes one memmove, without zero-filling first.
  const auto* begin = static_cast<const uint8_t*>(bytes);
  out.insert(out.end(), begin, begin + size);
}

template <typename T>
void AppendStruct(std::vector<uint8_t>& out, const T& value) {
  AppendBytes(out, &value, sizeof(T));
}

// A string and its terminating NUL.
void AppendCString(std::vector<uint8_t>& out, std::string_view text) {
  AppendBytes(out, text.data(), text.size());
  out.push_back(0);
}

JitdumpRecordPrefix Prefix(JitdumpRecordId id, uint64_t size, uint64_t timestamp) {
  return JitdumpRecordPrefix{static_cast<uint32_t>(id), static_cast<uint32_t>(size), timestamp};
}

constexpr uint64_t kMaxRecordSize = std::numeric_limits<uint32_t>::max();

}  // namespace

std::string JitdumpFileName(uint32_t pid) { return PidFileName("jit-", pid, ".dump"); }

std::optional<uint32_t> ParseJitdumpFileName(std::string_view name) {
  return ParsePidFileName(name, "jit-", ".dump");
}

uint32_t HostElfMachine() {
#if defined(__x86_64__)
  return EM_X86_64;
#elif defined(__aarch64__)
  return EM_AARCH64;
#elif defined(__i386__)
  return EM_386;
#elif defined(__arm__)
  return EM_ARM;
#elif defined(__riscv)
  return EM_RISCV;
#elif defined(__powerpc64__)
  return EM_PPC64;
#elif defined(__s390x__)
  return EM_S390;
#else
  return EM_NONE;
#endif
}

void AppendJitdumpHeader(std::vector<uint8_t>& out, uint32_t pid, uint64_t timestamp) {
  JitdumpHeader header{};
  header.magic = kJitdumpMagic;
  header.version = kJitdumpVersion;
  header.total_size = sizeof(JitdumpHeader);
  header.elf_mach = HostElfMachine();
  header.pid = pid;
  header.timestamp = timestamp;
  header.flags = 0;  // CLOCK_MONOTONIC timestamps, not the architecture's counter
  AppendStruct(out, header);
}

std::vector<JitdumpLine> JitdumpLinesFromRanges(uint64_t code_address,
                                                std::span<const LineRange> ranges) {
  std::vector<JitdumpLine> lines;
  lines.reserve(ranges.size() + 1);
  const LineRange* previous = nullptr;
  for (const LineRange& range : ranges) {
    if (previous != nullptr && previous->end < range.start) {
      lines.push_back({code_address + previous->end, 0, previous->file});
    } else if (previous != nullptr && previous->line == range.line &&
               previous->file == range.file) {
      previous = &range;  // contiguous, same line: the entry already there covers it
      continue;
    }
    lines.push_back({code_address + range.start, range.line, range.file});
    previous = &range;
  }
  if (previous != nullptr) lines.push_back({code_address + previous->end, 0, previous->file});
  return lines;
}

bool AppendJitdumpDebugInfo(std::vector<uint8_t>& out, uint64_t timestamp, uint64_t code_address,
                            std::span<const JitdumpLine> lines,
                            std::span<const std::string_view> files) {
  uint64_t size = sizeof(JitdumpDebugInfo);
  for (const JitdumpLine& line : lines) {
    size += sizeof(JitdumpDebugEntry) + files[line.file].size() + 1;
  }
  if (size > kMaxRecordSize) return false;
  // Sized once and filled in place: a record has an entry and a file name per line.
  const size_t start = out.size();
  out.resize(start + size);
  uint8_t* at = out.data() + start;
  auto put = [&at](const void* bytes, size_t count) {
    std::memcpy(at, bytes, count);
    at += count;
  };
  const JitdumpDebugInfo fixed{Prefix(JitdumpRecordId::kCodeDebugInfo, size, timestamp),
                               code_address, lines.size()};
  put(&fixed, sizeof(fixed));
  for (const JitdumpLine& line : lines) {
    const JitdumpDebugEntry entry{line.address, line.line, 0};
    put(&entry, sizeof(entry));
    put(files[line.file].data(), files[line.file].size());
    *at++ = 0;
  }
  return true;
}

bool AppendJitdumpCodeLoadPrefix(std::vector<uint8_t>& out, const JitdumpCodeLoadFields& fields) {
  const uint64_t size = sizeof(JitdumpCodeLoad) + fields.name.size() + 1 + fields.code_size;
  if (size > kMaxRecordSize) return false;
  JitdumpCodeLoad load{};
  load.prefix = Prefix(JitdumpRecordId::kCodeLoad, size, fields.timestamp);
  load.pid = fields.pid;
  load.tid = fields.tid;
  load.vma = fields.code_address;
  load.code_addr = fields.code_address;
  load.code_size = fields.code_size;
  load.code_index = fields.code_index;
  AppendStruct(out, load);
  AppendCString(out, fields.name);
  return true;
}

void AppendJitdumpClose(std::vector<uint8_t>& out, uint64_t timestamp) {
  AppendStruct(out, Prefix(JitdumpRecordId::kCodeClose, sizeof(JitdumpRecordPrefix), timestamp));
}

}  // namespace jitscope::formats
