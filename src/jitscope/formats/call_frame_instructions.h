// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Whether libdw may run a CIE's or an FDE's call-frame instructions. libdw sizes the row it
// computes by the largest register an instruction names, and copies the row for each
// DW_CFA_remember_state until its DW_CFA_restore_state: one hostile number (a register 2^31)
// makes each lookup allocate and clear gigabytes, and nothing in libdw bounds it. Real tables
// name a few dozen registers and remember a few rows at most.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace jitscope::formats {

inline constexpr uint64_t kMaxCfiRegister = 256;
inline constexpr int kMaxRememberedRows = 64;

// Whether the instructions `bytes` name only registers below kMaxCfiRegister and remember at
// most kMaxRememberedRows rows at once, read as libdw reads them up to their end or to the first
// instruction libdw refuses (it stops there). `address_size` is the size of DW_CFA_set_loc's
// operand (the FDE pointers' size); 0: a LEB128.
bool CallFrameInstructionsAreSane(std::span<const uint8_t> bytes, size_t address_size);

}  // namespace jitscope::formats
