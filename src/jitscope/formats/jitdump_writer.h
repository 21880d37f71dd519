// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Encodes perf jitdump records (jitdump_format.h; perf's jitdump specification) into a byte
// buffer. Pure: no I/O. The collector's jitdump sink owns the file, the marker mapping and the
// order of the records; everything about the bytes lives here.
//
// Line tables: jitdump DEBUG_INFO entries mark where a line *starts* (an absolute address) and
// perf turns them into a DWARF line program that ends at the last entry (perf's genelf_debug.c
// emits DW_LNE_end_sequence without advancing past it). So the ranges of line_ranges.h become one
// entry per range start, an entry with line 0 where a range ends before the next one begins (a
// gap: DWARF's "no source line"), and a closing line-0 entry at the end of the last range, without
// which perf would give the last range no bytes at all.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "jitscope/formats/jitdump_format.h"
#include "jitscope/formats/line_ranges.h"

namespace jitscope::formats {

// "jit-<pid>.dump": perf inject only processes a dump whose basename has exactly this shape and
// whose pid matches the process that mapped it (§1.4).
std::string JitdumpFileName(uint32_t pid);
std::optional<uint32_t> ParseJitdumpFileName(std::string_view name);

// ELF e_machine of the code this build runs (perf ignores the header field, §1.1, but readers
// and the spec expect it).
uint32_t HostElfMachine();

void AppendJitdumpHeader(std::vector<uint8_t>& out, uint32_t pid, uint64_t timestamp);

// One DEBUG_INFO entry before encoding: an absolute address, its line (0: no line) and the index
// of its file in the caller's file list.
struct JitdumpLine {
  uint64_t address = 0;
  uint32_t line = 0;
  uint32_t file = 0;

  bool operator==(const JitdumpLine&) const = default;
};

// The entries for `ranges` (line_ranges.h: sorted, non-overlapping, offsets from `code_address`),
// as described at the top of this file. Consecutive ranges of the same file and line collapse.
std::vector<JitdumpLine> JitdumpLinesFromRanges(uint64_t code_address,
                                                std::span<const LineRange> ranges);

// Appends a DEBUG_INFO record with full file names (perf does not understand the "\xff" shortcut,
// §1.3). Returns false, appending nothing, if the record would not fit its 32-bit size.
bool AppendJitdumpDebugInfo(std::vector<uint8_t>& out, uint64_t timestamp, uint64_t code_address,
                            std::span<const JitdumpLine> lines,
                            std::span<const std::string_view> files);

struct JitdumpCodeLoadFields {
  uint64_t timestamp = 0;
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint64_t code_address = 0;  // vma and code_addr: perf maps the code here
  uint64_t code_size = 0;
  uint64_t code_index = 0;  // unique per load: it names perf inject's jitted-<pid>-<index>.so
  std::string_view name;
};

// Appends a CODE_LOAD record up to its code: the fixed part and the name. Exactly code_size code
// bytes must follow in the file (no padding: perf finds the code at record end - code_size,
// §1.3); the caller writes them straight from where the code lives. Returns false, appending
// nothing, if the record would not fit its 32-bit size.
bool AppendJitdumpCodeLoadPrefix(std::vector<uint8_t>& out, const JitdumpCodeLoadFields& fields);

void AppendJitdumpClose(std::vector<uint8_t>& out, uint64_t timestamp);

}  // namespace jitscope::formats
