// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Which code an .eh_frame describes: the [begin, end) of each of its FDEs, decoded by the pointer
// encoding its CIE's augmentation names (the "R" letter; absolute 8-byte pointers without one),
// as they read where the section lies in memory. An engine registers the .eh_frame of its JIT
// code with __register_frame (registered_frames.h); a walk needs to know which registration
// holds a pc before it asks libdw for the row.
//
// The bytes are hostile: every read is bounded, and decoding stops at the first entry that does
// not parse (the FDEs before it are kept) or at the zero terminator. FDEs whose pointers need a
// base the section cannot give (datarel, textrel, funcrel, indirect) are skipped, as are those
// whose CIE lies outside the bytes.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace jitscope::formats {

struct CodeRange {
  uint64_t begin = 0;
  uint64_t end = 0;
  bool operator==(const CodeRange&) const = default;
};

// The FDEs' ranges of the .eh_frame `bytes` lying at `address`, in section order; empty ones
// (length 0) are left out.
std::vector<CodeRange> EhFrameRanges(std::span<const uint8_t> bytes, uint64_t address);

// The length of the .eh_frame that starts at `bytes` and ends at its zero terminator, the
// terminator included, as __register_frame reads it; 0 when no terminator lies within `bytes`.
// Reads only the entries' length words.
uint64_t EhFrameLength(std::span<const uint8_t> bytes);

}  // namespace jitscope::formats
