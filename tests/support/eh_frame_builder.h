// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Test support: an .eh_frame spelled out entry by entry (CIEs, FDEs, the terminator), at an
// address of the test's choosing, independently of the readers under test.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/byte_builder.h"

namespace jitscope::test_support {

// DW_CFA_def_cfa rsp+8: the CFA at a function's entry on x86-64.
inline constexpr std::string_view kDefCfaRspPlus8 = "\x0c\x07\x08";

// An .eh_frame built entry by entry; offsets are the section's.
class EhFrameBuilder {
 public:
  // A CIE with augmentation "zR" and `encoding`, or "" (no augmentation: absolute pointers) when
  // `encoding` is nullopt, and `instructions` (DW_CFA_def_cfa rsp+8 by default); returns its
  // offset.
  size_t Cie(std::optional<uint8_t> encoding, std::string augmentation = "",
             std::string_view instructions = kDefCfaRspPlus8) {
    const size_t at = bytes_.size();
    ByteBuilder body;
    body.U32(0).Int<uint8_t>(1);  // CIE id, version
    if (augmentation.empty()) augmentation = encoding ? "zR" : "";
    body.CString(augmentation).Int<uint8_t>(1).Int<uint8_t>(0x78).Int<uint8_t>(16);
    if (augmentation.starts_with("z")) {
      ByteBuilder data;
      for (char letter : augmentation.substr(1)) {
        if (letter == 'R') data.Int<uint8_t>(*encoding);
        if (letter == 'P') data.Int<uint8_t>(0x04).U64(0x1234);  // DW_EH_PE_udata8
        if (letter == 'L') data.Int<uint8_t>(0x1b);              // DW_EH_PE_pcrel | sdata4
      }
      body.Int<uint8_t>(static_cast<uint8_t>(data.size())).Append(data);
    }
    body.Raw(instructions);
    Entry(body);
    return at;
  }

  // An FDE of the CIE at `cie` for [begin, begin + length), its pointers in `encoding`, with
  // `instructions`; returns its offset.
  size_t Fde(size_t cie, uint64_t begin, uint64_t length, uint8_t encoding, bool augmented = true,
             std::string_view instructions = {}) {
    const size_t at = bytes_.size();
    const size_t pointer_field = bytes_.size() + 4;
    ByteBuilder body;
    body.U32(static_cast<uint32_t>(pointer_field - cie));
    const uint64_t field = address_ + pointer_field + 4;
    const uint64_t value = (encoding & 0x70) == 0x10 ? begin - field : begin;
    switch (encoding & 0x0f) {
      case 0x0b:
        body.Int<int32_t>(static_cast<int32_t>(value)).Int<int32_t>(static_cast<int32_t>(length));
        break;
      case 0x0c:
      case 0x04:
      case 0x00:
        body.U64(value).U64(length);
        break;
    }
    if (augmented) body.Int<uint8_t>(0);  // augmentation data length
    body.Raw(instructions);
    Entry(body);
    return at;
  }

  // An entry whose length word is 0xffffffff followed by a 64-bit length.
  void WideFde(size_t cie, uint64_t begin, uint64_t length) {
    const size_t pointer_field = bytes_.size() + 12;
    ByteBuilder entry;
    entry.U32(0xffffffff).U64(4 + 16 + 1);
    entry.U32(static_cast<uint32_t>(pointer_field - cie)).U64(begin).U64(length).Int<uint8_t>(0);
    Raw(entry);
  }

  void Terminator() { Raw(ByteBuilder().U32(0)); }
  void Raw(const ByteBuilder& raw) {
    bytes_.insert(bytes_.end(), raw.bytes().begin(), raw.bytes().end());
  }

  uint64_t address() const { return address_; }
  void set_address(uint64_t address) { address_ = address; }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  void Entry(const ByteBuilder& body) {
    ByteBuilder entry;
    entry.U32(static_cast<uint32_t>(body.size())).Append(body);
    Raw(entry);
  }

  uint64_t address_ = 0x7f0000100000;
  std::vector<uint8_t> bytes_;
};

// DW_CFA_undefined `reg`, its number as a ULEB128.
inline std::string UndefinedRegister(uint64_t reg) {
  std::string bytes = "\x07";
  do {
    bytes.push_back(static_cast<char>((reg & 0x7f) | (reg > 0x7f ? 0x80 : 0)));
    reg >>= 7;
  } while (reg != 0);
  return bytes;
}

}  // namespace jitscope::test_support
