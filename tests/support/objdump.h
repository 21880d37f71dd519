// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Test support: objdump (binutils) as the oracle for jitscope's decoder. objdump's listing of
// x86-64 bytes, and the comparison of a listing of ours (disasm::Decoder::Format, AT&T) with it
// after normalising what differs only in form, never in substance: lengths, mnemonics (modulo
// the two tools' names for the same instruction) and operands must agree.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "jitscope/base/status.h"

namespace jitscope::test_support {

// One instruction of a listing: where it starts in the bytes, how many bytes it takes, its text.
struct ListedInstruction {
  uint64_t offset = 0;
  int length = 0;
  std::string text;
};

// `objdump -D -b binary -m i386:x86-64` of `bytes`, which sit at `address` (--adjust-vma, so
// branch targets are absolute as in our text): a linear sweep from the first byte, by offset from
// it. Bytes objdump cannot decode are listed too, as "(bad)" or ".byte 0x..". An error says why
// objdump did not run or did not exit with 0.
base::StatusOr<std::map<uint64_t, ListedInstruction>> ObjdumpListing(std::span<const uint8_t> bytes,
                                                                     uint64_t address = 0);

// `text` after normalising what differs only in form: spacing and case, objdump's comments
// ("# 0x11d") and labels ("<.data+0x29>"), leading zeros of hex numbers, an encoded zero
// displacement ("0x0(%rbp)" and "(%rbp)"), the fixed operands of string instructions (objdump
// spells them out, Zydis leaves them implicit), the long nop's /0 register (Zydis' "nop %ax,m" is
// objdump's "nopw m"), 66 90 (objdump's "xchg %ax,%ax", the SDM's nop), and the cmpps family's
// predicate (objdump's "vcmpnleps x" is "vcmpps $0x6,x").
std::string Normalise(std::string text);

// True when two normalised texts are the same instruction with the same operands. Mnemonics may
// differ only by the two tools' names for one instruction (a condition's two names, je/jz or
// jg/jnle, in jcc, setcc and cmovcc; cqto/cqo, movabs/mov, movzbl/movzx, ...) or by an AT&T size
// suffix (b w l q, and Zydis' x y z for vector memory) that one tool writes and the other not.
bool SameInstruction(const std::string& a, const std::string& b);

// How `ours` differs from objdump's `listing` of the same bytes: objdump must list an
// instruction at each of our offsets, of the same length, and the same by SameInstruction. One
// line per difference, offsets in hex as objdump prints them ("at 0x17: ours \"jz 0x29\" (2
// bytes), objdump \"jne 0x29\" (2 bytes)"); none when they agree.
std::vector<std::string> DifferencesFromObjdump(
    std::span<const ListedInstruction> ours, const std::map<uint64_t, ListedInstruction>& listing);

}  // namespace jitscope::test_support
