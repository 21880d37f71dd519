// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Test support: numbers in lowercase hexadecimal, as objdump, perf maps and `jitscope dump` print
// them.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace jitscope::test_support {

// "1f": the digits alone, as a perf map's addresses.
inline std::string HexDigits(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof(text), "%llx", static_cast<unsigned long long>(value));
  return text;
}

// "0x1f" ("0x0" for 0), as objdump prints its operands.
inline std::string Hex(uint64_t value) { return "0x" + HexDigits(value); }

}  // namespace jitscope::test_support
