// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The part of an .eh_frame that unwinds given pcs, for a compact copy of its file
// (compact_copy.h): the FDEs whose range holds one of them, with the CIEs they use, in their
// order, the rest left out. A record moves closer to the start; each pointer it holds relative
// to its own place (DW_EH_PE_pcrel: an FDE's pc_begin and LSDA pointer, a CIE's personality) and
// each FDE's offset to its CIE are rewritten so they point where they did, so libdw reads the
// same rows from the part at the section's address as from the whole.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jitscope::record {

// The part of `eh_frame` (the section's bytes, at `address`) whose FDEs cover one of `pcs`
// (sorted), ended by a zero terminator; nullopt when a record is not one it can move (a 64-bit
// length, a pointer of variable size or relative to something other than its place, a damaged
// record): the caller keeps the section whole.
std::optional<std::string> EhFrameSubset(std::string_view eh_frame, uint64_t address,
                                         const std::vector<uint64_t>& pcs);

}  // namespace jitscope::record
