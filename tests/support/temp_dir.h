// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Test support: a fresh directory a test writes into, removed with everything in it when its
// owner dies. The one way tests get scratch space (no raw mkdtemp), so none leaves files behind.
#pragma once

#include <string>

namespace jitscope::test_support {

// A new directory under $TMPDIR (or /tmp when unset), named jitscope-test.XXXXXX. A directory
// that cannot be made aborts the test program with the reason: no test can run without it.
// Move-only; the owner that holds the path at the end removes the tree.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(TempDir&& other) noexcept;
  TempDir& operator=(TempDir&& other) noexcept;
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }

 private:
  void Remove();

  std::string path_;  // empty once moved from
};

}  // namespace jitscope::test_support
