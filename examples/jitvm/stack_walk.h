// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Walks the JIT frames on the current stack by their frame pointers (every jitvm frame starts
// with push rbp; mov rbp, rsp — codegen.h). The VM uses the walk to decide when replaced code
// may be freed: only once no return address points into it. The walk starts at the runtime
// gate's frame and stops at the first return address outside the code heap: the C++ code that
// entered JIT code, whose frame pointer it must not trust (C++ may be built without frame
// pointers).
#pragma once

#include <cstdint>
#include <vector>

#include "code_heap.h"

namespace jitscope::jitvm {

// Return addresses into JIT code, innermost first. `frame` points at a saved rbp followed by a
// return address (the gate's frame, as passed to a RuntimeFunction); nullptr gives an empty walk.
std::vector<uintptr_t> WalkJitFrames(const uint64_t* frame, const CodeHeap& heap);

}  // namespace jitscope::jitvm
