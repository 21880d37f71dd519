// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The header of an OProfile JIT dump (<pid>.dump; oprofile_dump_format.h, OProfile's jitdump.h) and
// the writer's struct layout it implies. The reader (oprofile_dump_reader.h) starts here.
//
// The format stores no layout marker, so the layout is read off the header itself, never taken
// from the reader's own word size:
//   - On i386 the fixed header is 28 bytes and the BFD target name starts at offset 28. In the
//     32-byte layouts, offsets 28..31 hold the high half of the u64 timestamp (seconds): zero until
//     the year 2106. So a non-empty name at 28 that starts with "elf32-" means the i386 layout.
//   - Otherwise the name starts at 32, and its word size names the debug entries' vma size:
//     "elf32-..." (ARM EABI, x32) 4 bytes, anything else ("elf64-...") 8.
// Rejected alternative: the 4 bytes at offset 20 (the LP64 alignment hole) cannot tell, as
// OProfile's libopagent leaves them uninitialised.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "jitscope/base/status.h"
#include "jitscope/formats/oprofile_dump_format.h"

namespace jitscope::formats {

struct OprofileHeaderFields {
  uint32_t version = 0;
  uint32_t total_size = 0;  // where the first record starts
  uint32_t bfd_arch = 0;
  uint32_t bfd_mach = 0;
  uint64_t timestamp = 0;  // gettimeofday() seconds
  std::string_view bfd_target;
  OprofileLayout layout = kOprofileLayoutLp64;
};

// True when `bytes` starts with the OProfile dump magic in this machine's byte order.
bool LooksLikeOprofileDump(std::span<const uint8_t> bytes);

// Fails when `bytes` does not start with a readable OProfile dump header: bad magic, the other
// byte order, an unsupported version, a header size out of bounds, an unterminated target name.
// The views point into `bytes`.
base::StatusOr<OprofileHeaderFields> ReadOprofileHeader(std::span<const uint8_t> bytes);

}  // namespace jitscope::formats
