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

}  // namespace jitscope::unwind
