// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/formats/call_frame_instructions.h"

#include <dwarf.h>

#include "jitscope/formats/dwarf_cursor.h"

namespace jitscope::formats {
namespace {

// A LEB128 as libdw reads one in call-frame instructions: at most ten bytes, and the largest
// value when they do not end it or the bytes do. Its length must match libdw's for the next
// instruction to be the one libdw reads.
uint64_t LibdwLeb(DwarfCursor& in) {
  uint64_t value = 0;
  for (unsigned i = 0; i < 10; ++i) {
    const std::optional<uint8_t> byte = in.Fixed<uint8_t>();
    if (!byte) return UINT64_MAX;
    value |= uint64_t{*byte & 0x7fu} << (7 * i);
    if ((*byte & 0x80) == 0) return value;
  }
  return UINT64_MAX;
}

}  // namespace

bool CallFrameInstructionsAreSane(std::span<const uint8_t> bytes, size_t address_size) {
  DwarfCursor in(bytes, 0, bytes.size());
  const auto reg = [&in] { return LibdwLeb(in) < kMaxCfiRegister; };
  // A block's length past the end makes libdw stop, as it makes the cursor's skip fail.
  const auto block = [&in] { return in.Skip(LibdwLeb(in)); };
  int remembered = 0;
  while (in.left() > 0) {
    const uint8_t op = *in.Fixed<uint8_t>();
    switch (op >> 6) {
      case 1:  // DW_CFA_advance_loc
      case 3:  // DW_CFA_restore (register in the low bits)
        continue;
      case 2:  // DW_CFA_offset (register in the low bits)
        LibdwLeb(in);
        continue;
    }
    bool more = true;  // false: libdw stops reading here
    switch (op) {
      case DW_CFA_nop:
      case DW_CFA_GNU_window_save:
        break;
      case DW_CFA_remember_state:
        if (++remembered > kMaxRememberedRows) return false;
        break;
      case DW_CFA_restore_state:
        more = remembered-- > 0;
        break;
      case DW_CFA_set_loc:
        if (address_size == 0) {
          LibdwLeb(in);
        } else {
          more = in.Skip(address_size);
        }
        break;
      case DW_CFA_advance_loc1:
        more = in.Skip(1);
        break;
      case DW_CFA_advance_loc2:
        more = in.Skip(2);
        break;
      case DW_CFA_advance_loc4:
        more = in.Skip(4);
        break;
      case DW_CFA_MIPS_advance_loc8:
        more = in.Skip(8);
        break;
      case DW_CFA_def_cfa_offset:
      case DW_CFA_def_cfa_offset_sf:
      case DW_CFA_GNU_args_size:
        LibdwLeb(in);
        break;
      case DW_CFA_restore_extended:
      case DW_CFA_undefined:
      case DW_CFA_same_value:
      case DW_CFA_def_cfa_register:
        if (!reg()) return false;
        break;
      case DW_CFA_offset_extended:
      case DW_CFA_offset_extended_sf:
      case DW_CFA_def_cfa:
      case DW_CFA_def_cfa_sf:
      case DW_CFA_val_offset:
      case DW_CFA_val_offset_sf:
      case DW_CFA_GNU_negative_offset_extended:
        if (!reg()) return false;
        LibdwLeb(in);
        break;
      case DW_CFA_register:
        if (!reg() || !reg()) return false;
        break;
      case DW_CFA_def_cfa_expression:
        more = block();
        break;
      case DW_CFA_expression:
      case DW_CFA_val_expression:
        if (!reg()) return false;
        more = block();
        break;
      default:
        more = false;
        break;
    }
    if (!more) return true;
  }
  return true;
}

}  // namespace jitscope::formats
