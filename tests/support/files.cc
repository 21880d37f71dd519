// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "support/files.h"

#include <fstream>
#include <sstream>

namespace jitscope::test_support {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

bool WriteFile(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
  out.close();
  return static_cast<bool>(out);
}

}  // namespace jitscope::test_support
