// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "support/files.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

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

std::set<std::string> ListDirectory(const std::string& dir) {
  std::set<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    names.insert(entry.path().filename().string());
  }
  return names;
}

void RemovePerfMapsKeptIn(const std::string& dir) {
  std::error_code ec;
  for (const auto& kept : std::filesystem::directory_iterator(dir + "/files/tmp", ec)) {
    const std::string name = kept.path().filename().string();
    if (name.starts_with("perf-") && name.ends_with(".map")) ::unlink(("/tmp/" + name).c_str());
  }
}

}  // namespace jitscope::test_support
