// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Which bytes of a piece of machine code are its instructions: those control flow reaches from
// its entry. Engines put data beside their code (oneDNN's constant tables after a kernel's last
// ret, literal pools, padding), so a linear sweep decodes data as instructions, and the garbage
// can run on into code that follows and start it at the wrong byte. Following flow decodes only
// what can run. unwind/derived_rules.h walks the same flow with a state per instruction; this
// is the stateless form, for checking and listing code (tests compare it with objdump).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "jitscope/disasm/decoder.h"

namespace jitscope::disasm {

struct ReachedCode {
  // Every instruction a path reached, one per address, by address. Two can overlap when a jump
  // lands inside another instruction; both are kept, as the bytes can run either way.
  std::vector<Instruction> instructions;
  // Addresses a path reached where no instruction decodes (or one is cut short by the end of the
  // bytes), by address: flow stops there.
  std::vector<uint64_t> undecodable;
};

// Decodes `bytes`, which sit at `address`, by following control flow from their first byte: an
// instruction leads to the next one unless it ends flow (Instruction::EndsFlow), and a direct
// jump or call to an address inside the bytes leads there too. Indirect targets and targets
// outside the bytes (a call into the engine's runtime, a tail jump) are not followed.
ReachedCode FollowControlFlow(const Decoder& decoder, std::span<const uint8_t> bytes,
                              uint64_t address);

}  // namespace jitscope::disasm
