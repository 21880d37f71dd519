// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Intel's line tables as address ranges. A LineNumberInfo entry gives the offset where its line's
// code *ends*: entry i covers [offset of entry i-1, offset of entry i), the first entry starts at
// offset 0 (seeds 000_*.txt, "LineNumberInfo Structure": offsets 1, 12, 15, 18, 21 with lines
// 2, 4, 2, 1, 30 are the sub-ranges 0-1, 1-12, 12-15, 15-18, 18-21). Formats that mark where a
// line *starts* (perf's jitdump DEBUG_INFO, DWARF) need the ranges spelled out, and inline regions
// of a method need to be laid over the method's own ranges; this file does both, as pure
// functions on offsets.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "jitscope/trace/format.h"

namespace jitscope::formats {

// [start, end) of the code, as offsets from the code start, attributed to `line` of the file the
// caller numbered `file`.
struct LineRange {
  uint32_t start = 0;
  uint32_t end = 0;
  uint32_t line = 0;
  uint32_t file = 0;

  bool operator==(const LineRange&) const = default;
};

// The ranges of `table`, sorted by start, non-overlapping, clipped to [0, code_size). An entry
// whose offset does not pass its predecessor's covers nothing. Where entries claim the same code
// (a table that is not sorted), the earlier entry wins: "if supplied line number information
// contains multiple source lines for the same code location, VTune picks up the first line number"
// (000_*.txt, Usage Tips).
std::vector<LineRange> RangesFromLineTable(std::span<const trace::LineEntry> table,
                                           uint32_t code_size, uint32_t file);

// Lays `overlay` (sorted, non-overlapping, offsets in the same code as `ranges`) over `ranges`:
// where they meet, `overlay` wins; elsewhere `ranges` stays. Used for an inline region, whose own
// source lines replace its parent's over the inline's code.
void OverlayRanges(std::vector<LineRange>& ranges, std::span<const LineRange> overlay);

// `ranges` shifted by `delta` bytes and clipped to [0, limit): for an inline region's table, whose
// offsets count from the inline's own start.
std::vector<LineRange> ShiftRanges(std::span<const LineRange> ranges, uint32_t delta,
                                   uint32_t limit);

// The part of `ranges` inside [from, to), with offsets counted from `from`: the lines of a
// sub-range of the code.
std::vector<LineRange> SliceRanges(std::span<const LineRange> ranges, uint32_t from, uint32_t to);

}  // namespace jitscope::formats
