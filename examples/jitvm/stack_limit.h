// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The lowest stack address a jitvm program may use on the current thread. Both engines raise
// "stack overflow" instead of crashing when recursion reaches it: the interpreter compares the
// address of a local, JIT code compares rsp in every prologue. The margin leaves room for what
// runs on top of the deepest frame: the compiler (a tier-up), print, and the profiler's
// collector inside iJIT_NotifyEvent.
#pragma once

#include <cstdint>

namespace jitscope::jitvm {

inline constexpr uintptr_t kStackMargin = 256 * 1024;

// Reads the current thread's stack bounds (pthread_getattr_np). Returns 0 (no limit) if they are
// unknown.
uintptr_t CurrentThreadStackLimit();

}  // namespace jitscope::jitvm
