// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// What a called function does to its caller's frame, where that departs from the ABI. The
// analysis of JIT code (derived_rules.h) takes a call to return with the stack as it was and
// rbp kept. Some engines call code that does otherwise on purpose: V8's baseline code
// (Sparkplug) starts with a call to a builtin, BaselineOutOfLinePrologue, that pops its return
// address, builds the caller's frame (push rbp; mov rbp, rsp; the frame's slots), pushes the
// return address back and returns with the stack pointer moved and rbp the frame pointer of the
// caller. Taking such a call as balanced gives its caller wrong heights, so no rule, or a wrong
// one.
//
// A CallEffect is found by the same stack-state analysis run over the callee from the call's
// target, following where its return address goes: it is a summary of every path that returns
// to the caller (a `ret` with the return address on top of the stack). A path whose `ret` finds
// something else on top while the return address is nowhere the analysis follows is a jump
// elsewhere (V8's prologue enters optimised code that way) and does not return; a path that
// leaves by an indirect or outside jump with the return address still held, or that writes into
// the caller's frame, makes the effect unknown. The paths that return must agree on the stack
// pointer.
//
// Only effects that differ from the ABI where it matters to the caller's rules are kept: the
// stack pointer moved, or rbp left pointing into the stack. A callee that keeps to the ABI, or
// that the analysis cannot follow, gets no effect, and its calls keep the ABI's assumption.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "jitscope/disasm/decoder.h"
#include "jitscope/unwind/derived_rules.h"
#include "jitscope/unwind/stack_state.h"

namespace jitscope::unwind {

class CallEffect {
 public:
  // The effect of calling `entry`, which lies in `regions`; nullopt when it keeps to the ABI as
  // far as its caller's rules go, or is not known. The bytes are read only during the call.
  static std::optional<CallEffect> Of(const disasm::Decoder& decoder,
                                      std::span<const CodeRegion> regions, uint64_t entry);

  // The caller's rsp after the call returns, relative to its rsp before the call.
  int32_t stack_pointer_change() const { return stack_pointer_; }
  // The callee's state at its returns, relative to its CFA (the caller's rsp before the call).
  const stack_state::State& at_return() const { return at_return_; }

  // Applies the effect to the state of the caller at its call instruction.
  void ApplyTo(stack_state::State& caller) const;

 private:
  CallEffect() = default;
  int32_t stack_pointer_ = 0;
  stack_state::State at_return_;
};

// Which code a direct call reaches, and its effect. Implemented over a recorded process's code
// (walk::SessionAddressSpace) and by tests.
class CallTargets {
 public:
  virtual ~CallTargets() = default;
  // The effect of a call to `target`; nullptr: it keeps to the ABI, or nothing is known of it.
  virtual const CallEffect* EffectOf(uint64_t target) = 0;
};

}  // namespace jitscope::unwind
