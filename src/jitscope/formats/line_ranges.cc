// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/formats/line_ranges.h"

#include <algorithm>

namespace jitscope::formats {
namespace {

// Adds the parts of `range` that no range in `sorted` covers yet, keeping `sorted` sorted.
void AddUncovered(std::vector<LineRange>& sorted, LineRange range) {
  // The common case: a table sorted by offset appends past everything so far.
  if (sorted.empty() || sorted.back().end <= range.start) {
    sorted.push_back(range);
    return;
  }
  std::vector<LineRange> pieces;
  uint32_t cursor = range.start;
  for (const LineRange& existing : sorted) {
    if (existing.end <= cursor) continue;
    if (existing.start >= range.end) break;
    if (existing.start > cursor) pieces.push_back({cursor, existing.start, range.line, range.file});
    cursor = std::max(cursor, existing.end);
    if (cursor >= range.end) break;
  }
  if (cursor < range.end) pieces.push_back({cursor, range.end, range.line, range.file});
  for (const LineRange& piece : pieces) {
    const auto at =
        std::lower_bound(sorted.begin(), sorted.end(), piece.start,
                         [](const LineRange& r, uint32_t start) { return r.start < start; });
    sorted.insert(at, piece);
  }
}

}  // namespace

std::vector<LineRange> RangesFromLineTable(std::span<const trace::LineEntry> table,
                                           uint32_t code_size, uint32_t file) {
  std::vector<LineRange> ranges;
  ranges.reserve(table.size());
  uint32_t start = 0;
  for (const trace::LineEntry& entry : table) {
    // The entry ends its range; the next range starts where this entry says, even when this
    // one was empty (the table is the caller's, taken literally).
    const uint32_t end = std::min(entry.offset, code_size);
    if (start < end) AddUncovered(ranges, {start, end, entry.line, file});
    start = entry.offset;
  }
  return ranges;
}

void OverlayRanges(std::vector<LineRange>& ranges, std::span<const LineRange> overlay) {
  if (overlay.empty()) return;
  std::vector<LineRange> merged;
  merged.reserve(ranges.size() + overlay.size() + 2);
  auto next = overlay.begin();
  for (LineRange range : ranges) {
    // Emit every overlay range that starts before what is left of this range.
    while (range.start < range.end) {
      while (next != overlay.end() && next->end <= range.start) {
        merged.push_back(*next);
        ++next;
      }
      if (next == overlay.end() || next->start >= range.end) {
        merged.push_back(range);
        break;
      }
      if (next->start > range.start)
        merged.push_back({range.start, next->start, range.line, range.file});
      range.start = std::min(range.end, next->end);
      if (next->end <= range.end) {
        merged.push_back(*next);
        ++next;
      }
    }
  }
  merged.insert(merged.end(), next, overlay.end());
  ranges = std::move(merged);
}

std::vector<LineRange> ShiftRanges(std::span<const LineRange> ranges, uint32_t delta,
                                   uint32_t limit) {
  std::vector<LineRange> shifted;
  shifted.reserve(ranges.size());
  for (const LineRange& range : ranges) {
    const uint64_t start = uint64_t{range.start} + delta;
    const uint64_t end = std::min<uint64_t>(uint64_t{range.end} + delta, limit);
    if (start >= end) continue;
    shifted.push_back(
        {static_cast<uint32_t>(start), static_cast<uint32_t>(end), range.line, range.file});
  }
  return shifted;
}

std::vector<LineRange> SliceRanges(std::span<const LineRange> ranges, uint32_t from, uint32_t to) {
  std::vector<LineRange> slice;
  for (const LineRange& range : ranges) {
    const uint32_t start = std::max(range.start, from);
    const uint32_t end = std::min(range.end, to);
    if (start >= end) continue;
    slice.push_back({start - from, end - from, range.line, range.file});
  }
  return slice;
}

}  // namespace jitscope::formats
