// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Line tables, stored compactly. Every producer's table is normalised to *start rows*: "from this
// offset in the code on, this line (and file)". A row's line 0 means "no line known here".
//
// Intel tables use end offsets (seeds 000_*.txt, LineNumberInfo; intel-jit-api.md §2.1): an
// entry's offset ENDS the range that starts at the previous entry's offset, or at 0. The seeds'
// example 1→2, 12→4, 15→2, 18→1, 21→30 becomes the rows 0:2, 1:4, 12:2, 15:1, 18:30, 21:0 —
// that is, 0-1 is line 2, 1-12 line 4, 12-15 line 2, 15-18 line 1, 18-21 line 30.
//  - Entries are taken in offset order (a stable sort: reporting order breaks ties).
//  - Several lines for one code location: the first one wins (seeds: "picks up the first line
//    number"). With end offsets, a second entry with the same offset covers an empty range.
//  - Past the last entry's offset, but inside the method, the table says nothing: such an address
//    resolves to the method with no line (line 0), rather than to a guessed one. LLVM's
//    converter, for one, ends its tables with an entry at the method's size, so nothing is lost
//    for correct producers.
// jitdump and OProfile tables give absolute start addresses (perf-jitdump-oprofile.md §1.3,
// §4.3), with a file per entry; an address before the first entry has no line, the last entry
// runs to the end of the code; for one address the first entry wins as well.
//
// Encoding (per table): varint(file + 1, 0 = the method's file), varint(row count), then per
// row varint(offset delta << 1 | file changes), zigzag varint(line delta), [varint(file + 1)].
// Typical rows take two bytes; a lookup decodes rows until it passes the offset. Tables of 128
// rows or more (a JIT's whole-script functions: Node's top-level code of a large script has
// hundreds of thousands) also carry, before the rows, varint(checkpoint count) and a fixed-width
// checkpoint per 64 rows, which a lookup binary-searches so it decodes at most 64 rows.
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
