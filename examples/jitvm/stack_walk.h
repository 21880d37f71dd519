// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Finds the return addresses into JIT code on the current stack. The VM uses them to decide when
// replaced code may be freed: only once no return address points into it.
//
// With frame pointers (every jitvm frame starts with push rbp; mov rbp, rsp — codegen.h) the
// walk follows them from the runtime gate's frame and stops at the first return address outside
// the code heap: the C++ code that entered JIT code, whose frame pointer it must not trust (C++
// may be built without frame pointers).
//
// Without frame pointers the VM has no unwind rules of its own for its code, so it scans: every
// word between the gate's frame and the frame of Vm::Run that points into the code heap counts.
// A stale word or a local that happens to look like a code address only keeps code a little
// longer; a real return address is never missed, since all JIT frames lie in that range.
#pragma once

#include <cstdint>
#include <vector>

#include "code_heap.h"

namespace jitscope::jitvm {

// Return addresses into JIT code, innermost first. `frame` points at a saved rbp followed by a
// return address (the gate's frame, as passed to a RuntimeFunction); nullptr gives an empty walk.
std::vector<uintptr_t> WalkJitFrames(const uint64_t* frame, const CodeHeap& heap);

// Every word in [from, to) that points into the code heap; an empty range or nullptr `from`
// gives none.
std::vector<uintptr_t> ScanJitReturnAddresses(const uint64_t* from, const uint64_t* to,
                                              const CodeHeap& heap);

}  // namespace jitscope::jitvm
