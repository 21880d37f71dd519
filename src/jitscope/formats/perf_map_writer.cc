// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/formats/perf_map_writer.h"

#include <algorithm>
#include <charconv>

#include "jitscope/formats/pid_file_name.h"

namespace jitscope::formats {

std::string PerfMapFileName(uint32_t pid) { return PidFileName("perf-", pid, ".map"); }

std::string PerfMapPath(uint32_t pid) {
  return std::string(kPerfMapDirectory) + "/" + PerfMapFileName(pid);
}

std::optional<uint32_t> ParsePerfMapFileName(std::string_view name) {
  return ParsePidFileName(name, "perf-", ".map");
}

std::string FormatPerfMapLine(uint64_t start, uint64_t size, std::string_view name) {
  if (name.empty()) name = "[unnamed]";
  char numbers[2 * 16 + 2];
  char* end = std::to_chars(numbers, numbers + 16, start, 16).ptr;  // lowercase, no "0x"
  *end++ = ' ';
  end = std::to_chars(end, end + 16, size, 16).ptr;
  *end++ = ' ';
  std::string line;
  line.reserve(static_cast<size_t>(end - numbers) + name.size() + 1);
  line.append(numbers, end);
  const size_t name_at = line.size();
  line.append(name);
  std::replace_if(
      line.begin() + static_cast<ptrdiff_t>(name_at), line.end(),
      [](char c) { return c == '\n' || c == '\r'; }, ' ');
  line.push_back('\n');
  return line;
}

}  // namespace jitscope::formats
