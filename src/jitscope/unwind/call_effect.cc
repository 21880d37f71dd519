// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/unwind/call_effect.h"

namespace jitscope::unwind {

using stack_state::IsHeight;
using stack_state::kGprCount;
using stack_state::kRbp;
using stack_state::kReturnAddress;
using stack_state::kRsp;
using stack_state::kUnknown;
using stack_state::State;

namespace {

// How a path through the callee ends, seen from its caller.
enum class PathEnd : uint8_t { kReturns, kGoesElsewhere, kUnknown };

// A path that leaves the callee other than by a return: harmless when it took the return
// address with it nowhere (it never comes back), unknown when it may still return.
PathEnd Leaving(const State& state) {
  return state.HoldsReturnAddress() ? PathEnd::kUnknown : PathEnd::kGoesElsewhere;
}

}  // namespace

std::optional<CallEffect> CallEffect::Of(const disasm::Decoder& decoder,
                                         std::span<const CodeRegion> regions, uint64_t entry) {
  const stack_state::Exploration explored = stack_state::Explore(decoder, regions, entry, nullptr);
  if (!explored.complete) return std::nullopt;
  std::optional<CallEffect> effect;
  auto leaves = [&](uint64_t target) { return stack_state::RegionOf(regions, target) == nullptr; };
  for (const auto& [pc, visit] : explored.visits) {
    PathEnd end = PathEnd::kGoesElsewhere;
    State returned;
    int32_t stack_pointer = 0;
    if (!visit.decodes) {
      end = Leaving(visit.state);
    } else if (visit.length != 0) {
      const CodeRegion* region = stack_state::RegionOf(regions, pc);
      const auto in = decoder.Decode(region->bytes.subspan(pc - region->address), pc);
      if (!in) return std::nullopt;  // decoded during the exploration: cannot happen
      if (in->IsReturn()) {
        const State& s = visit.state;
        if (s.ReturnAddressOnTop() && !s.wrote_caller_frame) {
          const int64_t pops = in->operands[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE
                                   ? in->operands[0].imm.value.u
                                   : 0;
          end = PathEnd::kReturns;
          returned = s;
          stack_pointer = stack_state::Known(int64_t{s.rel[kRsp]} + 8 + pops);
        } else {
          end = s.ReturnAddressOnTop() ? PathEnd::kUnknown : Leaving(s);
        }
      } else {
        State after = visit.state;
        stack_state::Apply(after, *in, nullptr);
        const auto target = in->BranchTarget();
        const bool jumps_out = in->IsJump() && (!target || leaves(*target));
        const bool runs_out = !in->EndsFlow() && leaves(in->End());
        if (jumps_out || runs_out) end = Leaving(after);
      }
    }
    if (end == PathEnd::kUnknown) return std::nullopt;
    if (end != PathEnd::kReturns) continue;
    if (stack_pointer == kUnknown) return std::nullopt;
    if (!effect) {
      effect = CallEffect();
      effect->stack_pointer_ = stack_pointer;
      effect->at_return_ = returned;
      continue;
    }
    if (effect->stack_pointer_ != stack_pointer) return std::nullopt;
    effect->at_return_.Merge(returned);
  }
  if (!effect) return std::nullopt;  // it never returns, as far as the analysis sees
  // Only what departs from the ABI where the caller's rules look: the stack pointer, and rbp
  // pointing into the stack (a callee that merely loses rbp is taken at the ABI's word).
  if (effect->stack_pointer_ == 0 && !IsHeight(effect->at_return_.rel[kRbp])) return std::nullopt;
  return effect;
}

void CallEffect::ApplyTo(State& caller) const {
  const int32_t height = caller.rel[kRsp];  // the callee's CFA, as the caller sees it
  auto shifted = [&](int32_t value) {
    if (!IsHeight(value) || !IsHeight(height)) return kUnknown;
    return stack_state::Known(int64_t{height} + value);
  };
  const int32_t rsp = IsHeight(height) ? shifted(stack_pointer_) : kUnknown;
  for (int g = 0; g < kGprCount; ++g) {
    if (g == kRsp) continue;
    const SavedRegister& callee_saved = at_return_.saved[g];
    if (stack_state::kCalleeSaved[g] && callee_saved.where == SavedRegister::Where::kSame) {
      continue;  // the caller's value, kept
    }
    caller.rel[g] = at_return_.rel[g] == kReturnAddress ? kUnknown : shifted(at_return_.rel[g]);
    if (!stack_state::kCalleeSaved[g] || caller.saved[g].where != SavedRegister::Where::kSame) {
      continue;
    }
    // The caller had not saved its caller's value yet; the callee may have, in a slot that is
    // now part of the caller's frame.
    const int32_t at =
        callee_saved.where == SavedRegister::Where::kAt ? shifted(callee_saved.offset) : kUnknown;
    caller.saved[g] = at != kUnknown && rsp != kUnknown && at >= rsp
                          ? SavedRegister{SavedRegister::Where::kAt, at}
                          : SavedRegister{SavedRegister::Where::kLost, 0};
  }
  // The stack pointer moves; what the callee left above it belongs to the caller's frame now.
  caller.rel[kRsp] = rsp;
  if (rsp == kUnknown) return;
  if (rsp > -8) caller.return_address = false;
  for (SavedRegister& saved : caller.saved) {
    if (saved.where == SavedRegister::Where::kAt && saved.offset < rsp) {
      saved = {SavedRegister::Where::kLost, 0};
    }
  }
  for (stack_state::Slot& slot : caller.slots) {
    if (slot.offset != kUnknown && slot.offset < rsp) slot = {};
  }
  for (const stack_state::Slot& left : at_return_.slots) {
    const int32_t offset = shifted(left.offset), value = shifted(left.value);
    if (offset == kUnknown || value == kUnknown || offset < rsp) continue;
    for (stack_state::Slot& slot : caller.slots) {
      if (slot.offset == kUnknown) {
        slot = {offset, value};
        break;
      }
    }
  }
}

}  // namespace jitscope::unwind
