// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Call-consistency of a return address in an ELF file: the instruction that ends just before it
// is a call. A step by derived rules (derived_rules.h) may rest on stale or misread code bytes, so
// the walk checks the return address it found wherever the caller's bytes are at hand; for a
// caller in JIT code the analysis of its version knows its calls, for one in an ELF file the
// bytes are read from the file.
#pragma once

#include <cstdint>

#include "jitscope/unwind/cfi_module.h"

namespace jitscope::unwind {

// True when some call instruction of `module` ends at its address `file_address` (a call is 2 to
// 15 bytes long; each possible start is decoded). False as well when the bytes cannot be read.
bool FollowsCall(CfiModule& module, uint64_t file_address);

// True when `file_address` lies in the code the kernel starts a process at — `module`'s entry
// point (ELF e_entry) and the straight run of code that follows it, through its last call before
// a jump — which has no caller: its frame is the outermost. The program interpreter's entry
// (ld.so's `_start`, which calls _dl_start and then _dl_init) carries no CFI to say so, and every
// sample taken while the dynamic loader relocates a large program (lli's libLLVM) or runs its
// initialisers has it at the bottom of its stack.
bool InEntryCode(CfiModule& module, uint64_t file_address);

}  // namespace jitscope::unwind
