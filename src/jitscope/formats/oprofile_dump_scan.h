// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Reads an OProfile JIT dump (/tmp/.oprofile/jitdump/<pid>.dump, written by libopagent; layout
// in fact sheet perf-jitdump-oprofile.md §4.3). Native byte order, in the struct layout of the
// process that wrote it (64-bit or 32-bit), which the header tells (oprofile_dump_header.h).
//
// Records: CODE_LOAD (vma, code pointer, size, name,
// optional code bytes), UNLOAD (vma: `op_unload_native_code`), CLOSE, DEBUG_INFO (absolute vma,
// line and file per entry, attached to the latest load whose vma or code pointer it names).
// Timestamps are `gettimeofday` seconds: wall-clock time, not CLOCK_MONOTONIC.
//
// Unlike opjitconv, which fails the whole file on an unknown record id, an unknown id is skipped
// through its total_size and counted. A malformed record stops parsing: the result keeps what was
// read before it and `error` names the file and offset.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "jitscope/base/status.h"

namespace jitscope::formats::scan {

struct OprofileDumpHeader {
  uint32_t version = 0;
  uint32_t bfd_arch = 0;
  uint32_t bfd_mach = 0;
  uint64_t timestamp_seconds = 0;
  std::string_view target;     // BFD target name, e.g. "elf64-x86-64"
  uint32_t line_vma_size = 8;  // the debug entries' vma: 8 bytes, or 4 from a 32-bit process
};

struct OprofileLineEntry {
  uint64_t address = 0;  // absolute: the line starts here
  uint32_t line = 0;
  std::string_view file;
};

enum class OprofileRecordKind { kCodeLoad, kCodeUnload };

struct OprofileRecord {
  OprofileRecordKind kind = OprofileRecordKind::kCodeLoad;
  uint64_t offset = 0;
  uint64_t timestamp_seconds = 0;
  uint64_t vma = 0;        // where the code runs (and, for an unload, which code ends)
  uint64_t code_addr = 0;  // CODE_LOAD: the code pointer the agent passed (0: no bytes stored)
  uint32_t code_size = 0;
  std::string_view name;
  uint32_t first_line = 0;  // CODE_LOAD: lines[first_line, first_line + line_count)
  uint32_t line_count = 0;
};

struct OprofileDumpStats {
  uint64_t code_loads = 0;
  uint64_t unloads = 0;
  uint64_t closes = 0;
  uint64_t debug_infos = 0;
  uint64_t unattached_debug_infos = 0;  // naming no earlier load
  uint64_t replaced_debug_infos = 0;    // a second DEBUG_INFO for one load: the latest is kept
  uint64_t unknown_records = 0;
};

struct ParsedOprofileDump {
  OprofileDumpHeader header;
  std::vector<OprofileRecord> records;
  std::vector<OprofileLineEntry> lines;
  OprofileDumpStats stats;
  base::Status error;
};

bool LooksLikeOprofileDump(std::span<const uint8_t> bytes);

// Fails only when `bytes` is not a readable OProfile dump header.
base::StatusOr<ParsedOprofileDump> ParseOprofileDump(std::span<const uint8_t> bytes,
                                                     std::string_view file_name);

// The pid in an OProfile dump's file name ("<pid>.dump", any directory), if it has one.
std::optional<uint32_t> OprofileDumpPid(std::string_view path);

}  // namespace jitscope::formats::scan
