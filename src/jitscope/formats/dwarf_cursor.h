// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// A bounded reader of DWARF call-frame bytes (.eh_frame, .debug_frame, .eh_frame_hdr): fixed
// little-endian values, LEB128 numbers, strings and DW_EH_PE-encoded pointers. Every reader of
// those hostile bytes stands on it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string_view>

namespace jitscope::formats {

// Bytes of DWARF call-frame information (little-endian), read forward with every read bounded
// by `end`: a read that does not fit fails (nullopt) and leaves the cursor where it was.
class DwarfCursor {
 public:
  DwarfCursor(std::span<const uint8_t> bytes, uint64_t offset, uint64_t end)
      : bytes_(bytes), offset_(offset), end_(end) {}

  uint64_t offset() const { return offset_; }
  uint64_t left() const { return end_ - offset_; }

  template <typename T>
  std::optional<T> Fixed() {
    if (end_ - offset_ < sizeof(T)) return std::nullopt;
    T value;
    std::memcpy(&value, bytes_.data() + offset_, sizeof(T));
    offset_ += sizeof(T);
    return value;
  }

  std::optional<uint64_t> Uleb() {
    uint64_t value = 0;
    for (unsigned shift = 0; offset_ < end_; shift += 7) {
      const uint8_t byte = bytes_[offset_++];
      if (shift < 64) value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return value;
    }
    return std::nullopt;
  }

  std::optional<int64_t> Sleb() {
    uint64_t value = 0;
    for (unsigned shift = 0; offset_ < end_; shift += 7) {
      const uint8_t byte = bytes_[offset_++];
      if (shift < 64) value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) {
        if (shift + 7 < 64 && (byte & 0x40) != 0) value |= ~uint64_t{0} << (shift + 7);
        return static_cast<int64_t>(value);
      }
    }
    return std::nullopt;
  }

  std::optional<std::string_view> CString() {
    const auto* begin = reinterpret_cast<const char*>(bytes_.data() + offset_);
    const void* nul = std::memchr(begin, 0, end_ - offset_);
    if (nul == nullptr) return std::nullopt;
    const std::string_view text(begin, static_cast<const char*>(nul) - begin);
    offset_ += text.size() + 1;
    return text;
  }

  bool Skip(uint64_t length) {
    if (end_ - offset_ < length) return false;
    offset_ += length;
    return true;
  }

  // A value in `encoding`'s format (DW_EH_PE_*, its low nibble; the application is left to the
  // caller). An absolute pointer has `address_size` bytes.
  std::optional<uint64_t> Encoded(uint8_t encoding, size_t address_size = 8) {
    switch (encoding & 0x0f) {
      case 0x00:
        if (address_size == 4) return Fixed<uint32_t>();
        return Fixed<uint64_t>();
      case 0x01:
        return Uleb();
      case 0x02:
        return Fixed<uint16_t>();
      case 0x03:
        return Fixed<uint32_t>();
      case 0x04:
        return Fixed<uint64_t>();
      case 0x09:
        return Signed(Sleb());
      case 0x0a:
        return Signed(Fixed<int16_t>());
      case 0x0b:
        return Signed(Fixed<int32_t>());
      case 0x0c:
        return Signed(Fixed<int64_t>());
      default:
        return std::nullopt;
    }
  }

 private:
  template <typename T>
  static std::optional<uint64_t> Signed(std::optional<T> value) {
    if (!value) return std::nullopt;
    return static_cast<uint64_t>(static_cast<int64_t>(*value));
  }

  std::span<const uint8_t> bytes_;
  uint64_t offset_;
  uint64_t end_;
};

}  // namespace jitscope::formats
