// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "support/report_header.h"

#include <sstream>

namespace jitscope::test_support {

std::map<std::string, uint64_t> CountsAfter(const std::string& text, const std::string& marker) {
  std::map<std::string, uint64_t> counts;
  const size_t at = text.find(marker);
  if (at == std::string::npos) return counts;
  const size_t start = at + marker.size();
  const size_t end = text.find_first_of(");\n", start);
  std::istringstream parts(text.substr(start, end == std::string::npos ? end : end - start));
  for (std::string part; std::getline(parts, part, ',');) {
    std::istringstream words(part);
    uint64_t count = 0;
    std::string name, word;
    words >> count;
    while (words >> word) name += (name.empty() ? "" : " ") + word;
    counts[name] += count;
  }
  return counts;
}

}  // namespace jitscope::test_support
