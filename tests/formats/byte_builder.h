// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Builds binary test inputs field by field, in either byte order.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace jitscope::formats::testing {

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
    bytes_.insert(bytes_.end(), bytes, bytes + sizeof(T));
    return *this;
  }
  ByteBuilder& U32(uint32_t v) { return Int(v); }
  ByteBuilder& U64(uint64_t v) { return Int(v); }
  ByteBuilder& Str(std::string_view s) {  // with its NUL
    bytes_.insert(bytes_.end(), s.begin(), s.end());
    bytes_.push_back(0);
    return *this;
  }
  ByteBuilder& Raw(std::string_view s) {
    bytes_.insert(bytes_.end(), s.begin(), s.end());
    return *this;
  }
  ByteBuilder& Zeros(size_t n) {
    bytes_.insert(bytes_.end(), n, 0);
    return *this;
  }
  ByteBuilder& Append(const ByteBuilder& other) {
    bytes_.insert(bytes_.end(), other.bytes_.begin(), other.bytes_.end());
    return *this;
  }
  // Overwrites the u32 at `offset` (a size field written before its record was complete).
  void PatchU32(size_t offset, uint32_t v) {
    ByteBuilder tmp(swapped_);
    tmp.U32(v);
    std::memcpy(bytes_.data() + offset, tmp.bytes_.data(), 4);
  }
  size_t size() const { return bytes_.size(); }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  bool swapped_;
  std::vector<uint8_t> bytes_;
};

}  // namespace jitscope::formats::testing
