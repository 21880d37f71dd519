// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/formats/perf_map_writer.h"

#include <cinttypes>
#include <cstdio>

#include "jitscope/formats/pid_file_name.h"

namespace jitscope::formats {

std::string PerfMapFileName(uint32_t pid) { return PidFileName("perf-", pid, ".map"); }

std::optional<uint32_t> ParsePerfMapFileName(std::string_view name) {
  return ParsePidFileName(name, "perf-", ".map");
}

std::string FormatPerfMapLine(uint64_t start, uint64_t size, std::string_view name) {
  char numbers[2 * 16 + 3];
  const int length =
      std::snprintf(numbers, sizeof(numbers), "%" PRIx64 " %" PRIx64 " ", start, size);
  if (name.empty()) name = "[unnamed]";
  std::string line;
  line.reserve(static_cast<size_t>(length) + name.size() + 1);
  line.append(numbers, static_cast<size_t>(length));
  for (const char c : name) line.push_back(c == '\n' || c == '\r' ? ' ' : c);
  line.push_back('\n');
  return line;
}

}  // namespace jitscope::formats
