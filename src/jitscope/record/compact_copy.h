// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Writes a compact copy of an ELF file for one session (session/compact_elf.h says what it holds
// and why), with libelf: what `jitscope archive --compact` keeps of each file, so that a session's
// archive holds what it reads of a 40 MB library in a few KB.
//  - Of the symbol tables, the function symbols that name an address of the session's stacks
//    (the one report finds for it, any other at the same address, and the next one, which ends a
//    symbol without a size), with their names; the other symbols are left out.
//  - Of the .eh_frame, the FDEs that hold an address whose row the walks read, or one they name
//    (eh_frame_subset.h); .eh_frame_hdr, whose table would point at the FDEs left out, is left
//    out too: libdw then reads the few FDEs in order.
//  - The bytes of code the walks read, and the symbols and FDEs that bound the functions of code
//    without CFI whose rules they derived (so that the copy finds the same functions).
// What a walk or report of the session looks up is then found as in the file itself, and nothing
// else is.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "jitscope/base/status.h"

namespace jitscope::record {

// Ranges of a file's addresses whose bytes to keep, [start, end) by start; overlapping or
// touching ranges are one.
using CodeRanges = std::map<uint64_t, uint64_t>;
// Adds [start, end) to `ranges`, merged with the ranges it overlaps or touches.
void AddCodeRange(CodeRanges& ranges, uint64_t start, uint64_t end);

// What a session reads of a file (walk/walked_code.h).
struct SessionParts {
  CodeRanges code = {};              // addresses whose bytes the walks read
  std::vector<uint64_t> rows = {};   // addresses whose unwind rows the walks read
  std::vector<uint64_t> named = {};  // offsets in the file of addresses report names
  // Addresses whose symbols and FDEs bound the functions of code without CFI the walks analysed
  // (unwind/elf_functions.h): kept as for the addresses named and the rows read.
  std::vector<uint64_t> function_bounds = {};
};

// Writes the compact copy of the ELF file open as `source` (`name` in messages) to `out`, for a
// session that reads `parts` of it; `laid_out`, the file whose program headers turn the offsets
// of `parts.named` into addresses: `source` itself, or the file whose separate debug file it is
// (a debug file's headers need not say where its file's bytes are). The fds stay the caller's.
base::Status WriteCompactCopy(int source, const std::string& name, const SessionParts& parts,
                              int out, int laid_out = -1);

}  // namespace jitscope::record
