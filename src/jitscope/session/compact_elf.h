// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// A compact copy of an ELF file, as `jitscope archive --compact` keeps one in a session
// (record/compact_copy.h writes it): what naming a session's native frames and walking its stacks
// read of the file, without the megabytes of code and data they never read.
//  - The ELF header and the program headers as they were: the program headers say where each part
//    of the file was mapped, which turns a sample's address into an address of the file. Their
//    offsets are the original file's, so nothing may be read through them.
//  - Every section of the original, in the same order, with the same header but for its offset
//    and size. The notes (the build id), .gnu_debuglink and .debug_frame keep their bytes, the
//    symbol tables, their strings and the .eh_frame the part of them the session reads
//    (record/compact_copy.h); every other section (code, data, relocations, DWARF, the
//    .eh_frame_hdr) is SHT_NOBITS, as in a separate debug file.
//  - A section named kCompactMarker (no bytes) that says the file is such a copy.
//  - The code the session's walks read (whether a return address follows a call, what a function
//    that JIT code calls does to the stack, the entry point's code): sections named kKeptCode,
//    not loaded (no SHF_ALLOC), each with the bytes at its sh_addr.
// So a compact copy names functions and unwinds as the file does for the session it was made for,
// and for no other, and has no source lines or disassembly beyond the code kept.
#pragma once

#include <libelf.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace jitscope::session {

inline constexpr char kCompactMarker[] = ".jitscope.compact";
inline constexpr char kKeptCode[] = ".jitscope.code";

struct KeptCode {
  uint64_t address = 0;  // the file's address of its first byte
  uint64_t offset = 0;   // where its bytes are in the compact copy
  uint64_t size = 0;
};

// The pieces of code kept in `elf`, by address, when it is a compact copy; nullopt when it is not
// (its code is where its program headers say).
std::optional<std::vector<KeptCode>> KeptCodeOf(Elf* elf);

// The piece of `pieces` (KeptCodeOf's) that holds `address`, or nullptr.
const KeptCode* KeptCodeAt(const std::vector<KeptCode>& pieces, uint64_t address);

}  // namespace jitscope::session
