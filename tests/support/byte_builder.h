// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Test support: binary inputs and expected file contents spelled out field by field, in either
// byte order (little-endian on x86 unless `swapped`), independently of the structs the code under
// test uses: a wrong struct then fails the test.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace jitscope::test_support {

class ByteBuilder {
 public:
  explicit ByteBuilder(bool swapped = false) : swapped_(swapped) {}

  template <typename T>
  ByteBuilder& Int(T value) {
    uint8_t bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    if (swapped_) {
      for (size_t i = 0; i < sizeof(T) / 2; ++i) std::swap(bytes[i], bytes[sizeof(T) - 1 - i]);
    }
    bytes_.append(reinterpret_cast<const char*>(bytes), sizeof(T));
    return *this;
  }
  ByteBuilder& U32(uint32_t v) { return Int(v); }
  ByteBuilder& U64(uint64_t v) { return Int(v); }
  // The string and its terminating NUL.
  ByteBuilder& CString(std::string_view s) {
    bytes_.append(s);
    bytes_.push_back('\0');
    return *this;
  }
  ByteBuilder& Raw(std::string_view s) {
    bytes_.append(s);
    return *this;
  }
  ByteBuilder& Zeros(size_t n) {
    bytes_.append(n, '\0');
    return *this;
  }
  ByteBuilder& PadTo8() {
    bytes_.resize((bytes_.size() + 7) / 8 * 8, '\0');
    return *this;
  }
  ByteBuilder& Append(const ByteBuilder& other) {
    bytes_.append(other.bytes_);
    return *this;
  }
  // Overwrites the u32 at `offset` (a size field written before its record was complete).
  void PatchU32(size_t offset, uint32_t v) {
    ByteBuilder tmp(swapped_);
    tmp.U32(v);
    std::memcpy(bytes_.data() + offset, tmp.bytes_.data(), 4);
  }
  size_t size() const { return bytes_.size(); }
  // Views of the bytes, valid while the builder lives and is not added to.
  std::span<const uint8_t> bytes() const {
    return {reinterpret_cast<const uint8_t*>(bytes_.data()), bytes_.size()};
  }
  const std::string& str() const { return bytes_; }

 private:
  bool swapped_;
  std::string bytes_;
};

inline std::span<const uint8_t> AsBytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

}  // namespace jitscope::test_support
