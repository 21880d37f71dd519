// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Builds the line table of one code region as the JIT Profiling API wants it. The compiler says
// "from this offset on, the code belongs to line L"; the API wants the opposite view: each
// LineNumberInfo entry's Offset is the END of a range that began at the previous entry's Offset
// (or at 0), measured from the start of the region (Intel's guide, "LineNumberInfo Structure":
// entries (1, line 2), (12, line 4) mean bytes [0,1) are line 2 and [1,12) are line 4). So a range
// is emitted when the next one starts, and Finish() closes the last at the region's end. Adjacent
// ranges of one line merge, and a line that covers no bytes leaves no entry, so no instruction
// ever has two lines (where VTune would pick the first).
#pragma once

#include <cstdint>
#include <vector>

namespace jitscope::jitvm {

struct LineEntry {
  uint32_t end_offset;  // exclusive end of the range, relative to the region start
  uint32_t line;
};

class LineTableBuilder {
 public:
  // A region that starts at `start` (an offset in the code buffer) with code of `line`.
  LineTableBuilder(uint32_t start, uint32_t line) : start_(start), run_start_(start), line_(line) {}

  // Code emitted from buffer offset `offset` on belongs to `line`.
  void Mark(uint32_t offset, uint32_t line) {
    if (line == line_) return;
    if (offset > run_start_) {
      Emit(offset);
      run_start_ = offset;
    }
    line_ = line;
  }

  // Closes the table at buffer offset `end`, the end of the region.
  std::vector<LineEntry> Finish(uint32_t end) {
    if (end > run_start_) Emit(end);
    return std::move(entries_);
  }

 private:
  void Emit(uint32_t end) {
    if (!entries_.empty() && entries_.back().line == line_) {
      entries_.back().end_offset = end - start_;
    } else {
      entries_.push_back({end - start_, line_});
    }
  }

  uint32_t start_;
  uint32_t run_start_;
  uint32_t line_;
  std::vector<LineEntry> entries_;
};

}  // namespace jitscope::jitvm
