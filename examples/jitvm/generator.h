// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Writes a jitvm program with many distinct functions, for benchmarks of everything that scales
// with the number of JIT methods (the collector, trace readers, symbol indexes). Leaf functions
// f0..f<N-1> are 4 lines each, with constants and operations that differ per function, so each
// compiles to different code with its own line table; group functions call 1000 leaves each,
// and main calls every group once and prints a checksum. Running it compiles every function
// exactly once (with the default hot threshold nothing is optimized).
#pragma once

#include <cstdint>
#include <cstdio>

namespace jitscope::jitvm {

inline constexpr uint64_t kLeavesPerGroup = 1000;

// Writes the program to `out`; returns false if writing failed.
bool GenerateProgram(uint64_t function_count, std::FILE* out);

}  // namespace jitscope::jitvm
