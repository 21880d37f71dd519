// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Where a marker comment sits in an example program, for tests that check reported lines.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace jitscope::report {

// The line of `path` that carries `marker` (1-based).
inline uint32_t LineWith(const std::string& path, const std::string& marker) {
  std::ifstream in(path);
  std::string line;
  for (uint32_t n = 1; std::getline(in, line); ++n) {
    if (line.find(marker) != std::string::npos) return n;
  }
  ADD_FAILURE() << marker << " not found in " << path;
  return 0;
}

}  // namespace jitscope::report
