// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/formats/eh_frame_ranges.h"

#include "jitscope/formats/dwarf_cursor.h"

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

// An entry's extent: its content is [content, end); `id_offset` is where its CIE id or CIE
// pointer lies (the pointer counts back from there).
struct Entry {
  uint64_t id_offset = 0;
  uint64_t content = 0;
  uint64_t end = 0;
  bool terminator = false;
};

std::optional<Entry> EntryAt(std::span<const uint8_t> bytes, uint64_t offset) {
  DwarfCursor cursor(bytes, offset, bytes.size());
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
  DwarfCursor cursor(bytes, cie.content, cie.end);
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
    DwarfCursor cursor(bytes, entry->id_offset, entry->end);
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
