// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "support/resident.h"

#include <cctype>
#include <cstdio>
#include <fstream>
#include <string>

namespace jitscope::test_support {

uint64_t ResidentKb(const void* start) {
  char prefix[32];
  std::snprintf(prefix, sizeof(prefix), "%lx-",
                static_cast<unsigned long>(reinterpret_cast<uintptr_t>(start)));
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool ours = false;
  while (std::getline(smaps, line)) {
    // A mapping's first line is "START-END PERMS ..."; its fields ("Rss:   12 kB") follow.
    const size_t dash = line.find('-');
    if (!line.empty() && std::isxdigit(static_cast<unsigned char>(line[0])) &&
        dash != std::string::npos && dash < line.find(' ')) {
      ours = line.starts_with(prefix);
    } else if (ours && line.starts_with("Rss:")) {
      return std::stoull(line.substr(4));
    }
  }
  return UINT64_MAX;
}

}  // namespace jitscope::test_support
