// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The JVMTI agent's reading of HotSpot's compressed line number tables (examples/jvmti-opagent/
// vm_structs.h), on tables encoded by hand as HotSpot's CompressedLineNumberWriteStream writes
// them.
#include <vector>

#include <gtest/gtest.h>

extern "C" {
#include "vm_structs.h"
}

namespace {

struct Line {
  uint32_t start_bci;
  uint32_t line;
  bool operator==(const Line&) const = default;
};

std::vector<Line> Decode(const std::vector<unsigned char>& table, uint32_t code_size) {
  std::vector<method_line> lines(16);
  const long count = decode_line_table(table.data(), code_size, lines.data(), lines.size());
  EXPECT_GE(count, 0);
  EXPECT_LE(count, 16);
  std::vector<Line> out;
  for (long i = 0; i < count; ++i) out.push_back({lines[i].start_bci, lines[i].line});
  return out;
}

// CallChain.c's (javap -l): one byte per pair where both deltas fit (bci 0-31, line 0-7), else
// 0xff and both as signed UNSIGNED5 numbers: the first line (14), and the loop's back edge to
// line 15.
TEST(HotSpotLineTableTest, DecodesBytePairsAndEscapedPairsWithNegativeDeltas) {
  const std::vector<unsigned char> table = {0xff, 0x00, 0x1c,  // (0, 14): +0, +14
                                            0x11,              // (2, 15): +2, +1
                                            0x49,              // (11, 16)
                                            0x39, 0x39, 0x39,  // (18, 17) (25, 18) (32, 19)
                                            0xff, 0x0c, 0x07,  // (38, 15): +6, -4
                                            0x36,              // (44, 21)
                                            0x00};
  EXPECT_EQ(Decode(table, 46),
            (std::vector<Line>{
                {0, 14}, {2, 15}, {11, 16}, {18, 17}, {25, 18}, {32, 19}, {38, 15}, {44, 21}}));
}

// Numbers of 192 and more take more bytes: 192 + the low 6 bits (after taking 192), then the rest
// the same way, the last byte below 192.
TEST(HotSpotLineTableTest, DecodesNumbersOfSeveralBytes) {
  const std::vector<unsigned char> table = {0xff, 0xd8, 0x06,        // +300 (600: 216, 6)
                                            0xd0, 0x1c,              // +1000 (2000: 208, 28)
                                            0x2a,                    // +5, +2
                                            0xff, 0x00, 0xe0, 0xf5,  // +0, +10000 (20000: 224,
                                            0x01,                    // 245, 1)
                                            0x00};
  EXPECT_EQ(Decode(table, 400), (std::vector<Line>{{300, 1000}, {305, 1002}, {305, 11002}}));
}

TEST(HotSpotLineTableTest, AnEmptyTableHasNoLines) {
  EXPECT_EQ(Decode({0x00}, 10), std::vector<Line>{});
}

// More lines than room: how many there are, and the first ones.
TEST(HotSpotLineTableTest, SaysHowManyLinesWhenThereIsNoRoomForThemAll) {
  const std::vector<unsigned char> table = {0x09, 0x09, 0x09, 0x00};
  method_line lines[2] = {};
  EXPECT_EQ(decode_line_table(table.data(), 10, lines, 2), 3);
  EXPECT_EQ(lines[1].start_bci, 2u);
  EXPECT_EQ(lines[1].line, 2u);
  EXPECT_EQ(decode_line_table(table.data(), 10, nullptr, 0), 3);
}

// What no method's table holds is refused, so that JVMTI is asked instead.
TEST(HotSpotLineTableTest, RefusesWhatNoMethodHas) {
  method_line lines[4];
  const unsigned char past_the_code[] = {0x20, 0x00};  // bci 4 of 4 bytes of code
  EXPECT_EQ(decode_line_table(past_the_code, 4, lines, 4), -1);
  const unsigned char before_the_code[] = {0x28, 0xff, 0x0b, 0x00, 0x00};  // bci 5, then -6
  EXPECT_EQ(decode_line_table(before_the_code, 10, lines, 4), -1);
  const unsigned char negative_line[] = {0xff, 0x00, 0x03, 0x00};  // line -2
  EXPECT_EQ(decode_line_table(negative_line, 10, lines, 4), -1);
}

}  // namespace
