// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Test support: a whole file as a string, and a string as a whole file.
#pragma once

#include <string>

namespace jitscope::test_support {

// The bytes of the file at `path`; "" if it cannot be read (a test compares the content, so a
// missing file fails there).
std::string ReadFile(const std::string& path);

// Replaces the file at `path` with `content`; false if it cannot be written.
bool WriteFile(const std::string& path, const std::string& content);

}  // namespace jitscope::test_support
