// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// x86-64's DWARF register numbers (jitscope/unwind/registers.h lists them all), by name, for the
// tests that write rules and register files by hand.
#pragma once

namespace jitscope::unwind::test {

inline constexpr int kRbx = 3, kRbp = 6, kRsp = 7, kR10 = 10, kR12 = 12, kR13 = 13, kR15 = 15,
                     kPc = 16;

}  // namespace jitscope::unwind::test
