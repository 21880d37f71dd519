// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/cli/pid_list.h"

#include <algorithm>
#include <charconv>
#include <string_view>

namespace jitscope::cli {

base::StatusOr<std::vector<pid_t>> ParsePids(const std::string& text, const std::string& option) {
  std::vector<pid_t> pids;
  std::string_view rest = text;
  for (;;) {
    const size_t comma = std::min(rest.find(','), rest.size());
    const std::string_view field = rest.substr(0, comma);
    pid_t pid = 0;
    const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), pid);
    if (field.empty() || error != std::errc() || end != field.data() + field.size() || pid <= 0) {
      return base::Status::Error("%s %s: expected process ids separated by commas", option.c_str(),
                                 text.c_str());
    }
    if (std::find(pids.begin(), pids.end(), pid) == pids.end()) pids.push_back(pid);
    if (comma == rest.size()) return pids;
    rest.remove_prefix(comma + 1);
  }
}

}  // namespace jitscope::cli
