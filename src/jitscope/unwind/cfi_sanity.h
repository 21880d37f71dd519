// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Whether libdw can be handed a file's table of call-frame information. libdw sizes every row
// it reads by the largest register an instruction names (formats/call_frame_instructions.h): one
// hostile number makes each lookup allocate and clear gigabytes. So a table is looked over once
// before libdw reads a row of it, and refused whole when an entry libdw could reach is not sane.
//
// "Could reach" is what libdw's lookups parse: the entries a walk from the table's start meets
// (skipping a damaged one as libdw does, ending at the zero terminator), the CIE each FDE points
// to wherever it lies, and, for an .eh_frame whose .eh_frame_hdr has a search table, the FDE
// each of its entries points to. The table's bytes are found where dwarf_getcfi_elf and
// dwarf_getcfi find them. What this check cannot read exactly as libdw does (an index of an
// unusual encoding, a file of the other byte order) is refused.
#pragma once

#include <elfutils/libdw.h>
#include <libelf.h>

namespace jitscope::unwind {

// The .eh_frame dwarf_getcfi_elf reads from `elf`: true when libdw may read it (or it has none).
bool EhFrameIsSane(Elf* elf);

// The .debug_frame dwarf_getcfi reads from `dwarf`: true when libdw may read it (or it has none).
bool DebugFrameIsSane(Dwarf* dwarf);

}  // namespace jitscope::unwind
