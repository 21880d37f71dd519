// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Test support: expected file contents spelled out field by field, little-endian, independently
// of the structs the code under test uses (a wrong struct then fails the test).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace jitscope::test_support {

class LeBytes {
 public:
  LeBytes& U32(uint32_t v) { return Int(v, 4); }
  LeBytes& U64(uint64_t v) { return Int(v, 8); }
  LeBytes& Raw(std::string_view bytes) {
    bytes_.append(bytes);
    return *this;
  }
  // The string and its terminating NUL.
  LeBytes& CString(std::string_view s) {
    bytes_.append(s);
    bytes_.push_back('\0');
    return *this;
  }
  LeBytes& PadTo8() {
    bytes_.resize((bytes_.size() + 7) / 8 * 8, '\0');
    return *this;
  }
  const std::string& str() const { return bytes_; }

 private:
  LeBytes& Int(uint64_t v, int size) {
    for (int i = 0; i < size; ++i) bytes_.push_back(static_cast<char>(v >> (8 * i)));
    return *this;
  }
  std::string bytes_;
};

inline std::span<const uint8_t> AsBytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

}  // namespace jitscope::test_support
