// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/formats/eh_frame_ranges.h"

#include <cstring>
#include <map>
#include <optional>
#include <string_view>

namespace jitscope::formats {

namespace {

// DW_EH_PE_*: the low nibble is the value's format, the high one how it applies.
constexpr uint8_t kOmit = 0xff;
constexpr uint8_t kAbsolutePointer = 0x00;
constexpr uint8_t kFormatMask = 0x0f;
constexpr uint8_t kApplicationMask = 0x70;
constexpr uint8_t kPcRelative = 0x10;
constexpr uint8_t kIndirect = 0x80;

// One entry's bytes, read forward with every read bounded.
class Cursor {
 public:
  Cursor(std::span<const uint8_t> bytes, uint64_t offset, uint64_t end)
      : bytes_(bytes), offset_(offset), end_(end) {}

  uint64_t offset() const { return offset_; }

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

  // A value in `encoding`'s format (its application left to the caller).
  std::optional<uint64_t> Encoded(uint8_t encoding) {
    switch (encoding & kFormatMask) {
      case 0x00:
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

// An entry's extent: its content is [content, end); `id_offset` is where its CIE id or CIE
// pointer lies (the pointer counts back from there).
struct Entry {
  uint64_t id_offset = 0;
  uint64_t content = 0;
  uint64_t end = 0;
  bool terminator = false;
};

std::optional<Entry> EntryAt(std::span<const uint8_t> bytes, uint64_t offset) {
  Cursor cursor(bytes, offset, bytes.size());
  const std::optional<uint32_t> length32 = cursor.Fixed<uint32_t>();
  if (!length32) return std::nullopt;
  if (*length32 == 0) return Entry{offset, offset + 4, offset + 4, true};
  uint64_t length = *length32;
  if (*length32 == 0xffffffff) {
    const std::optional<uint64_t> length64 = cursor.Fixed<uint64_t>();
    if (!length64) return std::nullopt;
    length = *length64;
  }
  const uint64_t id_offset = cursor.offset();
  if (length > bytes.size() - id_offset) return std::nullopt;
  // In .eh_frame the CIE id and the CIE pointer are 4 bytes, even in a 64-bit entry.
  if (length < 4) return std::nullopt;
  return Entry{id_offset, id_offset + 4, id_offset + length, false};
}

// The FDE pointer encoding a CIE gives (absolute pointers when it names none); nullopt when the
// CIE does not parse.
std::optional<uint8_t> FdeEncodingOf(std::span<const uint8_t> bytes, const Entry& cie) {
  Cursor cursor(bytes, cie.content, cie.end);
  const std::optional<uint8_t> version = cursor.Fixed<uint8_t>();
  if (!version || (*version != 1 && *version != 3 && *version != 4)) return std::nullopt;
  const std::optional<std::string_view> augmentation = cursor.CString();
  if (!augmentation) return std::nullopt;
  if (*version == 4 && !cursor.Skip(2)) return std::nullopt;  // address and segment sizes
  if (!cursor.Uleb() || !cursor.Sleb()) return std::nullopt;  // code and data alignment
  const bool return_register =
      *version == 1 ? cursor.Fixed<uint8_t>().has_value() : cursor.Uleb().has_value();
  if (!return_register) return std::nullopt;
  if (augmentation->empty() || augmentation->front() != 'z') {
    // Without "z" no augmentation data follows; "eh" (a GCC 2 relic) or others are not read.
    if (!augmentation->empty()) return std::nullopt;
    return kAbsolutePointer;
  }
  const std::optional<uint64_t> data_length = cursor.Uleb();
  if (!data_length) return std::nullopt;
  uint8_t encoding = kAbsolutePointer;
  for (const char letter : augmentation->substr(1)) {
    switch (letter) {
      case 'R': {
        const std::optional<uint8_t> value = cursor.Fixed<uint8_t>();
        if (!value) return std::nullopt;
        encoding = *value;
        break;
      }
      case 'P': {
        const std::optional<uint8_t> personality = cursor.Fixed<uint8_t>();
        if (!personality || !cursor.Encoded(*personality)) return std::nullopt;
        break;
      }
      case 'L':
        if (!cursor.Fixed<uint8_t>()) return std::nullopt;
        break;
      case 'S':
      case 'B':
        break;
      default:
        // The rest of the data is of letters we do not know; the encoding is known if "R" came.
        return encoding;
    }
  }
  return encoding;
}

}  // namespace

std::vector<CodeRange> EhFrameRanges(std::span<const uint8_t> bytes, uint64_t address) {
  std::vector<CodeRange> ranges;
  std::map<uint64_t, std::optional<uint8_t>> cie_encodings;  // by the CIE's offset
  uint64_t offset = 0;
  while (const std::optional<Entry> entry = EntryAt(bytes, offset)) {
    if (entry->terminator) break;
    offset = entry->end;
    Cursor cursor(bytes, entry->id_offset, entry->end);
    const std::optional<uint32_t> id = cursor.Fixed<uint32_t>();
    if (!id || *id == 0) continue;  // a CIE
    // The CIE pointer counts back from its own field to the CIE's length word.
    if (*id > entry->id_offset) continue;
    const uint64_t cie_offset = entry->id_offset - *id;
    auto [known, inserted] = cie_encodings.try_emplace(cie_offset);
    if (inserted) {
      const std::optional<Entry> cie = EntryAt(bytes, cie_offset);
      if (cie && !cie->terminator) known->second = FdeEncodingOf(bytes, *cie);
    }
    if (!known->second) continue;
    const uint8_t encoding = *known->second;
    if (encoding == kOmit || (encoding & kIndirect) != 0) continue;
    const uint8_t application = encoding & kApplicationMask;
    if (application != 0 && application != kPcRelative) continue;
    const uint64_t field = address + cursor.offset();
    const std::optional<uint64_t> begin = cursor.Encoded(encoding);
    const std::optional<uint64_t> length = cursor.Encoded(encoding & kFormatMask);
    if (!begin || !length || *length == 0) continue;
    const uint64_t start = application == kPcRelative ? field + *begin : *begin;
    if (start + *length < start) continue;
    ranges.push_back({start, start + *length});
  }
  return ranges;
}

uint64_t EhFrameLength(std::span<const uint8_t> bytes) {
  uint64_t offset = 0;
  while (const std::optional<Entry> entry = EntryAt(bytes, offset)) {
    if (entry->terminator) return entry->end;
    offset = entry->end;
  }
  return 0;
}

}  // namespace jitscope::formats
