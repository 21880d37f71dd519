// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Whether libdw may run call-frame instructions (formats/call_frame_instructions.h): the
// registers they name and the rows they remember, read as libdw reads them.
#include "jitscope/formats/call_frame_instructions.h"

#include <cstdint>
#include <span>
#include <string>

#include <gtest/gtest.h>

#include "support/eh_frame_builder.h"

namespace jitscope::formats {
namespace {

using test_support::UndefinedRegister;

bool Sane(const std::string& bytes, size_t address_size = 8) {
  return CallFrameInstructionsAreSane(
      {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}, address_size);
}

TEST(CallFrameInstructionsTest, RegistersPast255AreRefused) {
  EXPECT_TRUE(Sane(""));
  EXPECT_TRUE(Sane(UndefinedRegister(6)));
  EXPECT_TRUE(Sane(UndefinedRegister(255)));
  EXPECT_FALSE(Sane(UndefinedRegister(256)));
  EXPECT_FALSE(Sane(UndefinedRegister(uint64_t{1} << 31)));
  // In every instruction that names one: DW_CFA_offset_extended, DW_CFA_register (either),
  // DW_CFA_expression, DW_CFA_def_cfa.
  EXPECT_FALSE(Sane(std::string("\x05\x80\x02\x01", 4)));
  EXPECT_TRUE(Sane(std::string("\x09\x06\x07", 3)));
  EXPECT_FALSE(Sane(std::string("\x09\x06\x80\x02", 4)));
  EXPECT_FALSE(Sane(std::string("\x10\x80\x02\x01\x9c", 5)));
  EXPECT_FALSE(Sane(std::string("\x0c\x80\x02\x08", 4)));
}

TEST(CallFrameInstructionsTest, NumbersAreReadAsLibdwReadsThem) {
  // Eleven bytes of ULEB128 for 0: libdw stops after ten and takes the largest number.
  EXPECT_FALSE(Sane("\x07" + std::string(10, '\x80') + std::string(1, '\0')));
  // A register number the bytes cut short: libdw takes the largest number too.
  EXPECT_FALSE(Sane("\x07\x86"));
  // Operands are skipped by their size, so the instruction after them is the one libdw reads:
  // DW_CFA_advance_loc4, DW_CFA_MIPS_advance_loc8, DW_CFA_set_loc (8 bytes, or a ULEB128 when
  // the pointers are), DW_CFA_def_cfa_expression's block.
  EXPECT_FALSE(Sane("\x04\x07\x07\x07\x07" + UndefinedRegister(300)));
  EXPECT_FALSE(Sane("\x1d" + std::string(8, '\x07') + UndefinedRegister(300)));
  EXPECT_FALSE(Sane("\x01" + std::string(8, '\x07') + UndefinedRegister(300)));
  EXPECT_FALSE(Sane("\x01\x87\x07" + UndefinedRegister(300), 0));
  EXPECT_FALSE(Sane("\x0f\x02\x07\x07" + UndefinedRegister(300)));
}

TEST(CallFrameInstructionsTest, WhereLibdwStopsTheRestIsNotRead) {
  // An opcode libdw does not know (0x3f), a block longer than what is left, an operand cut
  // short: libdw stops there, so what follows cannot hurt.
  EXPECT_TRUE(Sane("\x3f" + UndefinedRegister(300)));
  EXPECT_TRUE(Sane("\x0f\x7f" + UndefinedRegister(300)));
  EXPECT_TRUE(Sane("\x03\x07"));
  // DW_CFA_restore_state with no row remembered.
  EXPECT_TRUE(Sane("\x0b" + UndefinedRegister(300)));
}

TEST(CallFrameInstructionsTest, AtMost64RowsAreRememberedAtOnce) {
  EXPECT_TRUE(Sane(std::string(64, '\x0a')));
  EXPECT_FALSE(Sane(std::string(65, '\x0a')));
  std::string nested_and_restored;
  for (int i = 0; i < 1000; ++i) nested_and_restored += "\x0a\x0b";
  EXPECT_TRUE(Sane(nested_and_restored));
}

}  // namespace
}  // namespace jitscope::formats
