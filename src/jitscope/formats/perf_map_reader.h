// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Reads a perf map (/tmp/perf-<pid>.map; perf's jit-interface.txt): one symbol per
// line, "START SIZE NAME", START and SIZE in hexadecimal (an optional 0x is accepted, as perf's
// strtoull does), NAME the rest of the line (it may contain spaces); a '\r' before the '\n' is not
// part of the name. A final line without '\n' was cut short while it was written (writers write
// a line at a time, newline last; a crash, or a stdio buffer flushed in the middle of a line,
// leaves one): it is left out and counted, not read as a name cut short (perf reads it, less its
// last character, which it takes for the newline: §3.1).
//
// Blank lines are skipped. A line that is not "START SIZE NAME" stops parsing: the result has
// every entry before it and `error` names the file, the byte offset and the line number.
// Entries of size 0 cannot contain an address; they are counted and left out.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "jitscope/base/huge_page_allocator.h"
#include "jitscope/base/status.h"

namespace jitscope::formats {

struct PerfMapEntry {
  uint64_t start = 0;
  uint64_t size = 0;
  std::string_view name;
  uint64_t line_number = 0;  // 1-based, for messages
};

struct ParsedPerfMap {
  base::HugeVector<PerfMapEntry> entries;  // in file order (writers append: later is newer)
  uint64_t empty_entries = 0;              // size 0, left out
  uint64_t torn_tail_bytes = 0;            // a last line without its newline: cut short, left out
  base::Status error;
};

ParsedPerfMap ParsePerfMap(std::string_view text, std::string_view file_name);

// True when the first line of `bytes` parses as a perf map line (format detection by content).
bool LooksLikePerfMap(std::span<const uint8_t> bytes);

// The pid in a perf map's file name ("perf-1234.map", any directory), if it has one.
std::optional<uint32_t> PerfMapPid(std::string_view path);

}  // namespace jitscope::formats
