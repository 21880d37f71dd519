// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Where the functions of an ELF file without CFI begin and end: by symbol, else as the gap
// between the code the file's tables describe.
#include "jitscope/unwind/elf_functions.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include <gtest/gtest.h>

namespace jitscope::unwind {
namespace {

using formats::CodeRange;

// The file's bytes: int3 padding from 0x1400 to 0x1410, zeros from 0x1800 to 0x1804, the rest
// code (0x90).
std::span<const uint8_t> Code(uint64_t address, std::span<uint8_t> out) {
  for (size_t i = 0; i < out.size(); ++i) {
    const uint64_t at = address + i;
    out[i] = at >= 0x1400 && at < 0x1410 ? 0xcc : at >= 0x1800 && at < 0x1804 ? 0x00 : 0x90;
  }
  return out;
}

std::optional<CodeRange> At(const ElfFunctions& functions, uint64_t address) {
  return functions.At(address, Code);
}

TEST(ElfFunctionsTest, ASymbolGivesItsFunctionTheInnermostWinning) {
  const ElfFunctions functions = ElfFunctions::FromRanges(
      {{0x1000, 0x1100}, {0x1100, 0x1300}, {0x1100, 0x1180}, {0x2000, 0x2000 + 0x10}},
      {{0x3000, 0x3100}}, {{0x1000, 0x4000}});
  EXPECT_EQ(At(functions, 0x1000), (CodeRange{0x1000, 0x1100}));
  EXPECT_EQ(At(functions, 0x10ff), (CodeRange{0x1000, 0x1100}));
  EXPECT_EQ(At(functions, 0x1120), (CodeRange{0x1100, 0x1180}));  // the shorter of one start
  EXPECT_EQ(At(functions, 0x1200), (CodeRange{0x1100, 0x1300}));
  EXPECT_EQ(At(functions, 0x2008), (CodeRange{0x2000, 0x2010}));
}

TEST(ElfFunctionsTest, CodeNoSymbolNamesIsTheGapBetweenDescribedCode) {
  // Symbols end at 0x1400 and start again at 0x1600; an FDE covers 0x1700-0x1800, the next
  // symbol starts at 0x1900.
  const ElfFunctions functions =
      ElfFunctions::FromRanges({{0x1000, 0x1400}, {0x1600, 0x1700}, {0x1900, 0x1a00}},
                               {{0x1700, 0x1800}}, {{0x1000, 0x2000}});
  // Past the int3 padding after the symbol before it, up to the next symbol.
  EXPECT_EQ(At(functions, 0x1500), (CodeRange{0x1410, 0x1600}));
  EXPECT_EQ(At(functions, 0x1410), (CodeRange{0x1410, 0x1600}));
  // After the FDE, past zero padding, up to the next symbol.
  EXPECT_EQ(At(functions, 0x1850), (CodeRange{0x1804, 0x1900}));
  // Code an FDE describes is not the gap's (its CFI has the rules).
  EXPECT_EQ(At(functions, 0x1750), std::nullopt);
  // After the last symbol, up to the end of the executable section.
  EXPECT_EQ(At(functions, 0x1b00), (CodeRange{0x1a00, 0x2000}));
}

// What bounds each answer, for a compact copy to keep: the symbol that holds the address, or the
// described code on either side of the gap (of what comes before, the range that reaches
// furthest), and from those alone the same functions follow.
TEST(ElfFunctionsTest, TheSymbolsAndFdesThatBoundAFunctionAreSaid) {
  const ElfFunctions functions = ElfFunctions::FromRanges(
      {{0x1000, 0x1400}, {0x1100, 0x1200}, {0x1600, 0x1700}, {0x1900, 0x1a00}}, {{0x1700, 0x1800}},
      {{0x1000, 0x2000}});
  std::vector<uint64_t> bounds;
  EXPECT_EQ(functions.At(0x1300, Code, &bounds), (CodeRange{0x1000, 0x1400}));
  EXPECT_EQ(bounds, (std::vector<uint64_t>{0x1000}));
  bounds.clear();
  EXPECT_EQ(functions.At(0x1500, Code, &bounds), (CodeRange{0x1410, 0x1600}));
  EXPECT_EQ(bounds, (std::vector<uint64_t>{0x1000, 0x1600}));
  bounds.clear();
  EXPECT_EQ(functions.At(0x1850, Code, &bounds), (CodeRange{0x1804, 0x1900}));
  EXPECT_EQ(bounds, (std::vector<uint64_t>{0x1700, 0x1900}));
  // Only the ranges that bound them: the same answers.
  const ElfFunctions kept = ElfFunctions::FromRanges({{0x1000, 0x1400}, {0x1600, 0x1700}},
                                                     {{0x1700, 0x1800}}, {{0x1000, 0x2000}});
  EXPECT_EQ(At(kept, 0x1300), (CodeRange{0x1000, 0x1400}));
  EXPECT_EQ(At(kept, 0x1500), (CodeRange{0x1410, 0x1600}));
}

TEST(ElfFunctionsTest, NothingOutsideExecutableSectionsOrTooLong) {
  const ElfFunctions functions = ElfFunctions::FromRanges(
      {{0x1000, 0x1000 + ElfFunctions::kMaxFunctionSize + 1}}, {},
      {{0x1000, 0x1000 + 2 * ElfFunctions::kMaxFunctionSize}, {0x900000, 0x900100}});
  EXPECT_EQ(At(functions, 0x800), std::nullopt);
  EXPECT_EQ(At(functions, 0x1000), std::nullopt);  // its symbol is longer than any builtin
  EXPECT_EQ(At(functions, 0x900080), (CodeRange{0x900000, 0x900100}));
  EXPECT_EQ(At(functions, 0x900100), std::nullopt);
  const ElfFunctions none = ElfFunctions::FromRanges({}, {}, {});
  EXPECT_EQ(At(none, 0x1000), std::nullopt);
}

}  // namespace
}  // namespace jitscope::unwind
