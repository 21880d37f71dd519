// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// A scratch directory for tests that write files.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>

namespace jitscope::testing {

// A fresh directory under $TMPDIR (or /tmp), removed with everything in it.
class ScratchDirectory {
 public:
  ScratchDirectory() {
    const char* base = ::getenv("TMPDIR");
    std::string pattern =
        std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/jitscope-test-XXXXXX";
    path_ = ::mkdtemp(pattern.data()) != nullptr ? pattern : std::string();
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace jitscope::testing
