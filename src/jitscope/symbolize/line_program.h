// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Line tables, stored compactly: every producer's table (Intel's end offsets, jitdump's and
// OProfile's start addresses) is normalised to start rows, "from this offset in the code on, this
// line (and file)", and encoded as a few bytes per row; long tables carry checkpoints so a lookup
// decodes at most 64 rows. The rules (the first line wins, nothing is guessed past the last entry,
// ...) and the encoding: docs/symbol-index.md, "Line tables".
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "jitscope/base/huge_page_allocator.h"
#include "jitscope/symbolize/string_table.h"
#include "jitscope/trace/format.h"

namespace jitscope::symbolize {

// "The method's source file" (a region that reported none inherits it; split-function rule).
inline constexpr StringId kInheritFile = UINT32_MAX;

struct StartRow {
  uint32_t offset = 0;
  uint32_t line = 0;
  StringId file = kInheritFile;
};

struct LineAt {
  uint32_t line = 0;             // 0: no line
  StringId file = kInheritFile;  // the row's file, else the region's; kInheritFile: the method's
};

// Appends the encoded table to `out` and returns where it starts.
uint32_t AppendEndOffsetTable(base::HugeVector<uint8_t>& out, StringId region_file,
                              std::span<const trace::LineEntry> entries);
// `rows` are sorted here (stably, by offset); rows repeating an offset are dropped.
uint32_t AppendStartRows(base::HugeVector<uint8_t>& out, StringId region_file,
                         std::vector<StartRow>& rows);

// Appends a copy of the table at `program` for the code from `origin` on: offsets shift down by
// `origin`, and the row in effect at `origin` starts the copy. Returns where it starts.
uint32_t AppendRebased(base::HugeVector<uint8_t>& out, uint32_t program, uint32_t origin);

// The line at `offset` bytes into the code described by the table at `program`.
LineAt LookupLine(const uint8_t* program, uint64_t offset);
// The file the region itself reported (kInheritFile: none).
StringId ProgramFile(const uint8_t* program);

}  // namespace jitscope::symbolize
