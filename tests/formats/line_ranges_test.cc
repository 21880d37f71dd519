// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Intel's end-offset line tables as ranges (src/jitscope/formats/line_ranges.h): one named test per
// rule of Intel's guide ("LineNumberInfo Structure" and its usage tips).
#include "jitscope/formats/line_ranges.h"

#include <vector>

#include <gtest/gtest.h>

namespace jitscope::formats {
namespace {

using trace::LineEntry;
using Ranges = std::vector<LineRange>;

TEST(LineRanges, EndOffsetsOfTheSeedsTable) {
  // Intel's guide's own example: offsets 1, 12, 15, 18, 21 → sub-ranges 0-1, 1-12, 12-15, 15-18,
  // 18-21.
  const std::vector<LineEntry> table = {{1, 2}, {12, 4}, {15, 2}, {18, 1}, {21, 30}};
  EXPECT_EQ((Ranges{{0, 1, 2, 7}, {1, 12, 4, 7}, {12, 15, 2, 7}, {15, 18, 1, 7}, {18, 21, 30, 7}}),
            RangesFromLineTable(table, 32, 7));
}

TEST(LineRanges, ClippedToTheCode) {
  const std::vector<LineEntry> table = {{4, 1}, {40, 2}, {50, 3}};
  EXPECT_EQ((Ranges{{0, 4, 1, 0}, {4, 16, 2, 0}}), RangesFromLineTable(table, 16, 0));
}

TEST(LineRanges, AnEntryThatDoesNotPassItsPredecessorCoversNothing) {
  const std::vector<LineEntry> table = {{4, 1}, {4, 2}, {8, 3}};
  EXPECT_EQ((Ranges{{0, 4, 1, 0}, {4, 8, 3, 0}}), RangesFromLineTable(table, 8, 0));
}

TEST(LineRanges, FirstLineWinsForTheSameCode) {
  // Unsorted: the third entry's range [4, 8) lies inside the first entry's [0, 10), and the
  // fourth's [8, 20) overlaps it; "VTune picks up the first line number".
  const std::vector<LineEntry> table = {{10, 1}, {4, 2}, {8, 3}, {20, 4}};
  EXPECT_EQ((Ranges{{0, 10, 1, 0}, {10, 20, 4, 0}}), RangesFromLineTable(table, 32, 0));
}

TEST(LineRanges, AnEmptyTableHasNoRanges) { EXPECT_TRUE(RangesFromLineTable({}, 16, 0).empty()); }

TEST(LineRanges, OverlayReplacesWhatItCovers) {
  Ranges ranges = {{0, 10, 1, 0}, {10, 20, 2, 0}};
  OverlayRanges(ranges, Ranges{{5, 15, 7, 1}});
  EXPECT_EQ((Ranges{{0, 5, 1, 0}, {5, 15, 7, 1}, {15, 20, 2, 0}}), ranges);
}

TEST(LineRanges, OverlayInsideOneRangeAndInAGap) {
  Ranges ranges = {{0, 10, 1, 0}, {20, 30, 2, 0}};
  OverlayRanges(ranges, Ranges{{2, 3, 5, 1}, {6, 8, 6, 1}, {12, 14, 7, 1}, {28, 40, 8, 1}});
  EXPECT_EQ((Ranges{{0, 2, 1, 0},
                    {2, 3, 5, 1},
                    {3, 6, 1, 0},
                    {6, 8, 6, 1},
                    {8, 10, 1, 0},
                    {12, 14, 7, 1},
                    {20, 28, 2, 0},
                    {28, 40, 8, 1}}),
            ranges);
}

TEST(LineRanges, OverlayOnNothing) {
  Ranges ranges;
  OverlayRanges(ranges, Ranges{{2, 3, 5, 1}});
  EXPECT_EQ((Ranges{{2, 3, 5, 1}}), ranges);
}

TEST(LineRanges, ShiftMovesAndClips) {
  EXPECT_EQ((Ranges{{10, 14, 1, 0}, {14, 16, 2, 0}}),
            ShiftRanges(Ranges{{0, 4, 1, 0}, {4, 8, 2, 0}, {8, 9, 3, 0}}, 10, 16));
}

TEST(LineRanges, SliceKeepsASubRange) {
  EXPECT_EQ((Ranges{{0, 2, 1, 0}, {2, 5, 2, 0}}),
            SliceRanges(Ranges{{0, 4, 1, 0}, {4, 8, 2, 0}, {8, 9, 3, 0}}, 2, 7));
}

}  // namespace
}  // namespace jitscope::formats
