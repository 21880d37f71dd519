// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "support/temp_dir.h"

#include <stdlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <utility>

namespace jitscope::test_support {

TempDir::TempDir() {
  const char* base = ::getenv("TMPDIR");
  std::string pattern =
      std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/jitscope-test.XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    std::fprintf(stderr, "cannot make a temporary directory %s: %s\n", pattern.c_str(),
                 std::strerror(errno));
    std::abort();
  }
  path_ = std::move(pattern);
}

TempDir::~TempDir() { Remove(); }

TempDir::TempDir(TempDir&& other) noexcept : path_(std::exchange(other.path_, std::string())) {}

TempDir& TempDir::operator=(TempDir&& other) noexcept {
  if (this != &other) {
    Remove();
    path_ = std::exchange(other.path_, std::string());
  }
  return *this;
}

void TempDir::Remove() {
  if (path_.empty()) return;
  // A test may leave files it could not remove itself (mode 0 directories, say): what is left is
  // left, the test's outcome does not depend on it.
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
  path_.clear();
}

}  // namespace jitscope::test_support
