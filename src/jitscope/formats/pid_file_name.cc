// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/formats/pid_file_name.h"

#include <algorithm>

namespace jitscope::formats {

std::string PidFileName(std::string_view prefix, uint32_t pid, std::string_view suffix) {
  std::string name(prefix);
  name += std::to_string(pid);
  name += suffix;
  return name;
}

std::optional<uint32_t> ParsePidFileName(std::string_view name, std::string_view prefix,
                                         std::string_view suffix) {
  if (name.size() <= prefix.size() + suffix.size() || !name.starts_with(prefix) ||
      !name.ends_with(suffix)) {
    return std::nullopt;
  }
  const std::string_view digits =
      name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  // Linux pids are at most 2^22 (pid_max), so ten digits bound any value a kernel hands out.
  if (digits.size() > 10 || digits.front() == '0') return std::nullopt;
  uint64_t pid = 0;
  for (const char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    pid = pid * 10 + static_cast<uint64_t>(c - '0');
  }
  if (pid > INT32_MAX) return std::nullopt;
  return static_cast<uint32_t>(pid);
}

std::optional<uint32_t> ParseChainFileName(std::string_view name, std::string_view prefix,
                                           std::string_view extension) {
  if (!name.ends_with(extension)) return std::nullopt;
  name.remove_suffix(extension.size());
  const size_t dot = name.find('.');
  if (dot != std::string_view::npos) {
    const std::string_view part = name.substr(dot + 1);
    if (part.empty() || part.starts_with('0') ||
        !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return std::nullopt;
    }
  }
  return ParsePidFileName(name.substr(0, dot), prefix, "");
}

}  // namespace jitscope::formats
