// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Bounds-checked access to the bytes of a foreign file, shared by the importers (jitdump, perf
// map, OProfile dump). Every read names an absolute offset and fails (returns nullopt) instead of
// touching a byte outside the file, so a reader never does arithmetic on a length before this
// check has passed (STYLE.md, "Don't crash on input"). Integers are read with memcpy — foreign
// files promise no alignment — and byte-swapped when the file was written in the other order.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>

namespace jitscope::formats {

class BoundedReader {
 public:
  BoundedReader(std::span<const uint8_t> bytes, bool swapped) : bytes_(bytes), swapped_(swapped) {}

  uint64_t size() const { return bytes_.size(); }
  bool Has(uint64_t offset, uint64_t length) const {
    return offset <= bytes_.size() && length <= bytes_.size() - offset;
  }

  // An integer of type T at `offset`, in the file's byte order.
  template <typename T>
  std::optional<T> Int(uint64_t offset) const {
    static_assert(std::is_integral_v<T>);
    if (!Has(offset, sizeof(T))) return std::nullopt;
    T value;
    std::memcpy(&value, bytes_.data() + offset, sizeof(T));
    return swapped_ ? ByteSwap(value) : value;
  }

  // A NUL-terminated string starting at `offset` that ends (NUL included) before `limit`.
  std::optional<std::string_view> CString(uint64_t offset, uint64_t limit) const {
    if (limit > bytes_.size() || offset >= limit) return std::nullopt;
    const auto* begin = reinterpret_cast<const char*>(bytes_.data() + offset);
    const void* nul = std::memchr(begin, 0, limit - offset);
    if (nul == nullptr) return std::nullopt;
    return std::string_view(begin, static_cast<const char*>(nul) - begin);
  }

  // `length` raw bytes at `offset`, as text.
  std::optional<std::string_view> Bytes(uint64_t offset, uint64_t length) const {
    if (!Has(offset, length)) return std::nullopt;
    return std::string_view(reinterpret_cast<const char*>(bytes_.data() + offset), length);
  }

  bool AllZero(uint64_t offset, uint64_t limit) const {
    for (uint64_t i = offset; i < limit && i < bytes_.size(); ++i) {
      if (bytes_[i] != 0) return false;
    }
    return true;
  }

 private:
  template <typename T>
  static T ByteSwap(T value) {
    if constexpr (sizeof(T) == 1) {
      return value;
    } else {
      using U = std::make_unsigned_t<T>;
      U u = static_cast<U>(value);
      U out = 0;
      for (size_t i = 0; i < sizeof(T); ++i) {
        out = static_cast<U>((out << 8) | (u & 0xFF));
        u = static_cast<U>(u >> 8);
      }
      return static_cast<T>(out);
    }
  }

  std::span<const uint8_t> bytes_;
  bool swapped_;
};

}  // namespace jitscope::formats
