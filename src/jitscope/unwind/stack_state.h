// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The abstract state the analysis of machine code follows, and the walk over a piece of code's
// control flow that computes it at every instruction. Two analyses stand on it: the unwind rules
// of a JIT code version (derived_rules.h), and what a called function does to its caller's frame
// (call_effect.h). Internal to unwind.
//
// The state says, for one point in the code, where each general-purpose register's value stands
// relative to the CFA of the function the analysis started in (a "height"), or that it holds that
// function's return address, or nothing; which stack slots hold such values; where the caller's
// callee-saved registers are; and whether the return address is still at CFA - 8. Registers are
// numbered as x86 encodes them (rax 0, rcx 1, rdx 2, rbx 3, rsp 4, rbp 5, rsi 6, rdi 7, r8-r15),
// which is Zydis's order of its 64-bit registers.
#pragma once

#include <array>
#include <climits>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "jitscope/disasm/decoder.h"
#include "jitscope/unwind/derived_rules.h"

namespace jitscope::unwind {

class CallEffect;
class CallTargets;

namespace stack_state {

constexpr int kRsp = 4;
constexpr int kRbp = 5;
constexpr int kGprCount = 16;
constexpr int kDwarfOfX86[kGprCount] = {0, 2, 1, 3, 7, 6, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15};
constexpr bool kCalleeSaved[kGprCount] = {false, false, false, true,  false, true, false, false,
                                          false, false, false, false, true,  true, true,  true};

// A value: a height (value - CFA), or one of these. Heights stay far from the int32 limits:
// anything beyond kMaxHeight is treated as unknown.
constexpr int32_t kUnknown = INT32_MIN;
constexpr int32_t kReturnAddress = INT32_MIN + 1;  // the analysed function's return address
constexpr int64_t kMaxHeight = int64_t{1} << 30;

inline bool IsHeight(int32_t value) { return value != kUnknown && value != kReturnAddress; }
inline int32_t Known(int64_t value) {
  return value > -kMaxHeight && value < kMaxHeight ? static_cast<int32_t>(value) : kUnknown;
}

// A stack slot (8 bytes at CFA + offset) whose content is known.
struct Slot {
  int32_t offset = kUnknown;  // kUnknown: the entry is free
  int32_t value = kUnknown;
  bool operator==(const Slot&) const = default;
};

struct State {
  std::array<int32_t, kGprCount> rel;
  std::array<SavedRegister, kGprCount> saved{};
  std::array<Slot, 8> slots{};  // a few are enough: frames set up by pushes and a prologue
  bool return_address = true;   // still at CFA - 8
  // The code wrote at or above the CFA, into its caller's frame, at a place the analysis knows.
  bool wrote_caller_frame = false;

  static State Entry();
  bool operator==(const State&) const = default;

  // Merges `other` into this state, field by field; true if anything changed.
  bool Merge(const State& other);
  // The value in the slot at CFA + offset (kUnknown if none is known).
  int32_t ValueAt(int32_t offset) const;
  // True when a `ret` here would return to the analysed function's caller.
  bool ReturnAddressOnTop() const;
  // True when the return address is anywhere the analysis follows: a register, a live slot.
  bool HoldsReturnAddress() const;
};

// Applies `instruction` to `state`. A direct call to a target whose effect `targets` knows takes
// that effect; every other call keeps to the ABI (the stack balanced, callee-saved registers
// kept, the others clobbered). `targets` may be nullptr.
void Apply(State& state, const disasm::Instruction& instruction, CallTargets* targets);

struct Visit {
  State state;         // before the instruction
  uint8_t length = 0;  // 0: not decoded (yet, or it does not decode)
  bool decodes = true;
  bool indirect_jump = false;  // jmp through a register or memory
  bool ends_flow = false;      // control never goes on to the next instruction
  bool call = false;
  bool returns = false;    // a `ret`
  bool jumps_out = false;  // a direct jump out of the regions explored (a tail call)
};

struct Exploration {
  std::unordered_map<uint64_t, Visit> visits;
  std::vector<uint64_t> call_ends;  // where the reached calls end, unsorted, maybe repeated
  bool complete = false;            // false: the step bound cut it short; nothing is known
};

// The state at every instruction that control flow reaches from `entry` within `regions`,
// to a fixed point. A direct jump into another region carries its state there; paths that meet
// merge. Bounded by the number of bytes. With `switch_cases`, also the code a switch's jump
// table leads to, where it holds together in the state of the indirect jumps reached (the rules
// of a code version want it; a call's effect, which must come from the genuine returns, does
// not).
Exploration Explore(const disasm::Decoder& decoder, std::span<const CodeRegion> regions,
                    uint64_t entry, CallTargets* targets, bool switch_cases = false);

// Alignment padding between functions or their blocks, which never runs: nops of any length,
// int3.
bool IsPadding(const disasm::Instruction& instruction);

// True when the instruction at [address, address + length) overlaps one `explored` decoded
// without starting where it does: it enters that one's middle, or covers its start.
bool OverlapsKnownInstruction(const Exploration& explored, uint64_t address, uint8_t length);

// The region that holds `address`, or nullptr.
const CodeRegion* RegionOf(std::span<const CodeRegion> regions, uint64_t address);

}  // namespace stack_state
}  // namespace jitscope::unwind
