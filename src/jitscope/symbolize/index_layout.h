// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Lays a replayed region history (region_history.h) out in the symbol index's memory: pieces of
// the address space, buckets over them, method records beside the line tables, on cache lines
// (symbol_index.h; the reasoning and figures: docs/symbol-index.md, docs/performance.md).
#pragma once

#include "jitscope/symbolize/region_history.h"
#include "jitscope/symbolize/symbol_index.h"

namespace jitscope::symbolize {

// The bytes IndexBuilder leaves in front of each line table for its method's record.
inline constexpr size_t kMethodRecordSize = 20;

// Moves the method record and line table that end `programs` and start at `start` to the next
// cache line when they would straddle two and fit in one, if that wastes at most a quarter line:
// a lookup then reads one line where it would read two. Returns where they start.
uint32_t PutOnOneCacheLine(base::HugeVector<uint8_t>& programs, uint32_t start);

// The index of `reported` (its strings and line tables move into it) and `history`. What the
// layout is done with is freed as it goes, so that it is not held under what comes next.
SymbolIndex LayOutIndex(ReportedCode&& reported, RegionHistory&& history);

// The index of loads that needed no replay (IndexBuilder): `pieces` in address order, none
// overlapping another, each of a method of its own whose record is written in front of its line
// table (WriteMethodRecord).
SymbolIndex LayOutLoads(ReportedCode&& reported, base::HugeVector<SymbolIndex::Piece>&& pieces);

// The record of a method whose id takes at most 32 bits, written in front of `line_table` as the
// layout writes every record; MethodRecordId reads its id back (MethodSymbolsOf, its symbols).
void WriteMethodRecord(base::HugeVector<uint8_t>& programs, uint32_t line_table, uint32_t id,
                       const MethodSymbols& symbols);
uint32_t MethodRecordId(const base::HugeVector<uint8_t>& programs, uint32_t line_table);

}  // namespace jitscope::symbolize
