// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// What a tier produces for one function, before it is placed in the code heap: the machine code
// (a hot region, and for the optimizing tier a cold region that is placed separately — a split
// function), line tables for both regions, the inline tree, and the rel32 jumps that cross from
// one region to the other and must be re-aimed once the regions' final addresses are known.
#pragma once

#include <cstdint>
#include <vector>

#include "line_table.h"

namespace jitscope::jitvm {

enum class Tier : uint8_t { kBaseline, kOptimized };

const char* TierName(Tier tier);

// One inlined call: [start, end) of the hot region holds the callee's code.
struct InlineRegion {
  int32_t function;  // the inlined callee
  int32_t parent;    // the InlineRegion it is nested in, or -1: directly in the method
  uint32_t start;    // offsets in the code buffer (inside the hot region)
  uint32_t end;
  std::vector<LineEntry> lines;  // the callee's own lines, relative to start
};

// A rel32 field at code offset `field` whose jump target is code offset `target`.
struct Relocation {
  uint32_t field;
  uint32_t target;
};

struct CompiledCode {
  Tier tier = Tier::kBaseline;
  int32_t function = -1;
  const uint8_t* code = nullptr;  // the compiler's buffer; valid until its next Compile()
  uint32_t hot_size = 0;          // the hot region is code[0, hot_size)
  uint32_t cold_size = 0;         // the cold region is code[hot_size, hot_size + cold_size)
  std::vector<LineEntry> hot_lines;
  std::vector<LineEntry> cold_lines;
  std::vector<InlineRegion> inlines;
  std::vector<Relocation> relocations;
};

}  // namespace jitscope::jitvm
