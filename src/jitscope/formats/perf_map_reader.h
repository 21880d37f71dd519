// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Reads a perf map (/tmp/perf-<pid>.map; perf's jit-interface.txt): one symbol per
// line, "START SIZE NAME", START and SIZE in hexadecimal (an optional 0x is accepted, as perf's
// strtoull does), NAME the rest of the line (it may contain spaces). Unlike perf, the last
// character of a final line without '\n' is kept (§3.1: perf always chops it), and a '\r' before
// the '\n' is not part of the name.
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
  base::Status error;
};

ParsedPerfMap ParsePerfMap(std::string_view text, std::string_view file_name);

// True when the first line of `bytes` parses as a perf map line (format detection by content).
bool LooksLikePerfMap(std::span<const uint8_t> bytes);

// The pid in a perf map's file name ("perf-1234.map", any directory), if it has one.
std::optional<uint32_t> PerfMapPid(std::string_view path);

}  // namespace jitscope::formats
