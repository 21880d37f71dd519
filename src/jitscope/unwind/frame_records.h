// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// A walk that ran out of its stack copy, carried on by rules where the kernel read the words they
// need. With a DWARF sample the kernel also walks the user frame-pointer chain
// (PERF_SAMPLE_CALLCHAIN): from the sampled rbp it reads each frame record — the caller's rbp at
// [rbp], the return address at [rbp + 8] — and reports the return addresses, however far up the
// stack they lie. The records inside the copy are read again here, so the chain's links are known
// up to the first one past the copy. Where the walk stopped in a frame whose rbp is that link, and
// whose call-frame information says rbp is its frame pointer (CFA = rbp + 16, the return address
// at CFA - 8, the caller's rbp at CFA - 16: a frame record), the chain's next word is that frame's
// return address, read where the rule reads it; and so on while each caller's CFI says the same
// at its return address. So every step taken is a rule's (a frame-pointer step is a
// rule only where CFI proves rbp is the frame pointer at that pc), not a guess. It stops at
// the first caller without a frame record (the walk then ends there, still "stack copy too short"),
// at a caller whose CFI says it has none (the end of the stack), or where the chain ends.
//
// Only ELF code's CFI is taken as proof, not rules derived from JIT code: a derived step's return
// address is checked against the code (unwinder.h), and the chain's words would escape the check.
#pragma once

#include <cstdint>
#include <span>

#include "jitscope/unwind/cfi_module.h"
#include "jitscope/unwind/registers.h"
#include "jitscope/unwind/stack_memory.h"
#include "jitscope/unwind/unwinder.h"

namespace jitscope::unwind {

// Carries on `result`, a walk of the sample with `registers` and `stack` that stopped with
// kStackCopyTooShort, through `chain`: the kernel's user frame-pointer chain of the same sample
// (the sampled pc first, then the return addresses). Adds frames and sets the walk's new end;
// returns false, changing nothing, when the chain does not carry it on.
// Whether the kernel's frame-pointer chain of a sample skips the sampled frame's caller, by `row`,
// the rule at the sampled pc (`registers`, `stack`: the sample's). The chain takes the word at
// rbp + 8 for the sampled frame's return address, which it is only once the function has made
// rbp its frame pointer. Where rbp still holds the caller's value — the rule calls rbp unchanged
// (a stub that builds no frame, code before `push rbp` or after `pop rbp`), or saved in a slot
// that holds what rbp holds (between `push rbp` and `mov rbp, rsp`) — the word at rbp + 8 is the
// caller's return address, and the caller is missing from the chain: the chain's own blind spot,
// not a wrong walk. False where the rule does not say so (the CFA based on rbp, rbp lost, a slot
// that holds another value or lies outside the copy), and for any but x86-64 registers.
bool ChainSkipsCaller(const CfiRow& row, const RegisterFile& registers, const StackMemory& stack);

bool ContinueThroughFrameRecords(const RegisterFile& registers, const StackMemory& stack,
                                 std::span<const uint64_t> chain, AddressSpace& space,
                                 const UnwindLimits& limits, UnwindResult& result);

}  // namespace jitscope::unwind
