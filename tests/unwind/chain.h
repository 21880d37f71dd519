// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// A call chain without frame pointers (chain.c is built with -fomit-frame-pointer
// -fasynchronous-unwind-tables), whose innermost function captures its own registers and the
// top of its stack, as the kernel does for a PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER
// sample.
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// General-purpose registers in perf_event_x86_regs order (asm/perf_regs.h), 24 of them.
struct CapturedStack {
  uint64_t regs[24];
  uint64_t stack_start;  // the captured rsp
  size_t stack_size;     // bytes copied into `stack`
  unsigned char stack[65536];
};

// Captures in chain_leaf, called as chain_outer → chain_middle → chain_inner → chain_leaf.
// Returns a value that depends on every call, so none is a tail call.
int chain_outer(struct CapturedStack* out, int depth);

// Captures from a SIGALRM handler that interrupted chain_spin (called as chain_signal_outer →
// chain_spin): the stack then holds the kernel's signal frame.
int chain_signal_outer(struct CapturedStack* out);

int chain_leaf(struct CapturedStack* out, int depth);

// The entry of the assembly routine that captures registers (as at its entry, rip = itself).
void chain_capture(struct CapturedStack* out);

#ifdef __cplusplus
}
#endif
