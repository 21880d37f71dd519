// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/unwind/unwinder.h"

#include <bit>
#include <span>

#include "jitscope/unwind/call_check.h"
#include "jitscope/unwind/dwarf_expression.h"

namespace jitscope::unwind {
namespace {

StopReason FromEval(EvalStatus status) {
  switch (status) {
    case EvalStatus::kOk:
    case EvalStatus::kNoRule:
      break;
    case EvalStatus::kBeyondCopy:
      return StopReason::kStackCopyTooShort;
    case EvalStatus::kUnreadable:
      return StopReason::kUnreadableMemory;
  }
  return StopReason::kUnreadableMemory;
}

// One step: the caller's registers from `callee`'s, by `row`. Returns false with `stop` set
// when the step cannot be taken.
bool Step(const CfiRow& row, const RegisterFile& callee, const StackMemory& stack,
          RegisterFile& caller, StopReason& stop) {
  ExpressionContext context{callee, stack};
  const EvalResult cfa = EvaluateExpression(row.cfa, row.cfa_form, context);
  if (cfa.status == EvalStatus::kNoRule) {
    stop = row.cfa.empty() ? StopReason::kNoRule : StopReason::kUnreadableMemory;
    return false;
  }
  if (cfa.status != EvalStatus::kOk) {
    stop = FromEval(cfa.status);
    return false;
  }
  context.cfa = cfa.value;
  context.has_cfa = true;
  caller = callee.EmptyLike();
  // Only the registers with a rule other than undefined: the caller's file starts empty.
  for (uint32_t left = row.defined & ((uint32_t{1} << callee.count()) - 1); left != 0;
       left &= left - 1) {
    const int reg = std::countr_zero(left);
    const RegisterRule& rule = row.registers[static_cast<size_t>(reg)];
    uint64_t value = 0;
    if (rule.kind == RegisterRule::Kind::kSameValue) {
      if (callee.Get(reg, value)) caller.Set(reg, value);
      continue;
    }
    const EvalResult result = EvaluateLocation(rule.location, rule.form, context);
    if (result.status == EvalStatus::kOk) {
      caller.Set(reg, result.value);
    } else if (reg == row.return_address_register) {
      stop = FromEval(result.status);
      return false;
    }
  }
  // The caller's stack pointer is the CFA unless CFI says otherwise (psABI: "the value of the
  // stack pointer at the call site in the previous frame").
  if (row.registers[static_cast<size_t>(callee.sp_register())].kind !=
      RegisterRule::Kind::kLocation) {
    caller.Set(callee.sp_register(), cfa.value);
  }
  uint64_t return_address = 0;
  if (!caller.Get(row.return_address_register, return_address) || return_address == 0) {
    stop = StopReason::kOutermost;
    return false;
  }
  caller.Set(caller.pc_register(), return_address);
  return true;
}

// The source of a step's rule: a derived row is of JIT code (with or without its engine's
// tables), of code read while recording, or of an ELF file's code its CFI leaves out.
RuleSource StepSource(const ModuleAt& at, bool derived_row) {
  if (!derived_row) {
    return at.module->supplied_by_engine() ? RuleSource::kEngineTables : RuleSource::kCfi;
  }
  if (at.captured) return RuleSource::kCaptured;
  if (at.module != nullptr && !at.module->supplied_by_engine()) return RuleSource::kNativeDerived;
  return RuleSource::kDerived;
}

}  // namespace

const char* StopReasonName(StopReason reason) {
  switch (reason) {
    case StopReason::kOutermost:
      return "end of stack";
    case StopReason::kNoRule:
      return "no rule";
    case StopReason::kStackCopyTooShort:
      return "stack copy too short";
    case StopReason::kUnreadableMemory:
      return "unreadable memory";
    case StopReason::kLoop:
      return "loop";
    case StopReason::kDepthLimit:
      return "depth limit";
    case StopReason::kNoRegisters:
      return "no registers";
    case StopReason::kNotAfterCall:
      return "return address after no call";
    case StopReason::kBadInterpreterFrame:
      return "interpreter frame not valid";
  }
  return "?";
}

const char* RuleSourceName(RuleSource source) {
  switch (source) {
    case RuleSource::kCfi:
      return "CFI";
    case RuleSource::kEngineTables:
      return "engine tables";
    case RuleSource::kDerived:
      return "derived";
    case RuleSource::kFrameRecords:
      return "frame records past the copy";
    case RuleSource::kInterpreter:
      return "interpreter frames";
    case RuleSource::kCaptured:
      return "derived from code read while recording";
    case RuleSource::kNativeDerived:
      return "derived from native code without CFI";
  }
  return "?";
}

std::vector<std::pair<std::string, uint64_t>> UnwindStats::Steps() const {
  std::vector<std::pair<std::string, uint64_t>> sources;
  for (size_t i = 0; i < kRuleSourceCount; ++i) {
    if (steps[i] > 0) sources.emplace_back(RuleSourceName(static_cast<RuleSource>(i)), steps[i]);
  }
  return sources;
}

std::string DescribeCounts(const std::vector<std::pair<std::string, uint64_t>>& counts) {
  std::string text;
  for (const auto& [name, count] : counts) {
    text += (text.empty() ? "" : ", ") + std::to_string(count) + " " + name;
  }
  return text;
}

std::vector<std::pair<std::string, uint64_t>> UnwindStats::Ends() const {
  std::vector<std::pair<std::string, uint64_t>> ends;
  for (size_t i = 0; i < kStopReasonCount; ++i) {
    if (stops[i] > 0) ends.emplace_back(StopReasonName(static_cast<StopReason>(i)), stops[i]);
  }
  return ends;
}

void Unwind(const RegisterFile& registers, const StackMemory& stack, AddressSpace& space,
            const UnwindLimits& limits, UnwindResult& result) {
  result.frames.clear();
  result.steps = {};
  uint64_t pc = 0;
  if (!registers.is_valid() || !registers.Get(registers.pc_register(), pc) ||
      !registers.Has(registers.sp_register())) {
    result.reason = StopReason::kNoRegisters;
    return;
  }
  RegisterFile current = registers;
  RegisterFile caller;
  bool activation = true;  // the sampled instruction itself
  // The code at the next frame's lookup address, when the call check already found it.
  bool next_known = false, next_found = false;
  ModuleAt next_at;
  for (;;) {
    result.frames.push_back({current.pc(), activation});
    if (result.frames.size() >= limits.max_frames) {
      result.reason = StopReason::kDepthLimit;
      return;
    }
    const uint64_t lookup = activation ? current.pc() : current.pc() - 1;
    ModuleAt at = next_at;
    const bool found = next_known ? next_found : space.Find(lookup, at);
    next_known = false;
    const CfiRow* row = nullptr;
    bool derived_row = false;
    bool signal_frame = false;
    if (found && at.interpreter) {
      InterpreterFrame frame;
      const CodeReader read_code = [&space](uint64_t address, std::span<uint8_t> out) {
        return space.ReadCode(address, out);
      };
      switch (StepInterpreterFrame(current, stack, activation, read_code, caller, frame)) {
        case InterpreterStep::kOk:
          break;
        case InterpreterStep::kNotAFrame:
          result.reason = StopReason::kBadInterpreterFrame;
          return;
        case InterpreterStep::kStackCopyTooShort:
          result.reason = StopReason::kStackCopyTooShort;
          result.stopped = current;
          return;
      }
      result.frames.back().interpreter = frame;
      result.CountStep(RuleSource::kInterpreter);
    } else {
      if (found && at.module != nullptr) row = at.module->Find(lookup - at.bias);
      // The code the kernel starts a process at has no caller, whatever rule its bytes would give.
      if (row == nullptr && found && at.module != nullptr &&
          InEntryCode(*at.module, lookup - at.bias)) {
        result.reason = StopReason::kOutermost;
        return;
      }
      if (row == nullptr && found && at.derived != nullptr) {
        row = at.derived->FindRow(lookup);
        derived_row = row != nullptr;
      }
      if (row == nullptr) {
        result.reason = StopReason::kNoRule;
        return;
      }
      StopReason stop = StopReason::kNoRule;
      if (!Step(*row, current, stack, caller, stop)) {
        result.reason = stop;
        result.stopped = current;
        return;
      }
      result.CountStep(StepSource(at, derived_row));
      signal_frame = row->signal_frame;
    }
    // A derived rule's return address must follow a call: in JIT code, one the analysis of
    // that code found; in an ELF file, one its bytes hold. So must an interpreter frame's. Compiled
    // code returns into the interpreter with no call before the return address; there the
    // interpreter's own checks take over.
    if (derived_row || at.interpreter) {
      next_at = {};
      next_found = space.Find(caller.pc() - 1, next_at);
      next_known = !signal_frame;  // the next lookup is of the same address
      // An ELF file's bytes say whether a call ends there, also in its code without CFI.
      const bool elf = next_at.module != nullptr && !next_at.module->supplied_by_engine();
      const bool follows =
          !next_found || next_at.interpreter ||
          (elf                          ? FollowsCall(*next_at.module, caller.pc() - next_at.bias)
           : next_at.derived != nullptr ? next_at.derived->IsReturnAddress(caller.pc())
                                        : true);
      if (!follows) {
        result.reason = StopReason::kNotAfterCall;
        return;
      }
    }
    // Stacks grow down: a caller's frame lies above its callee's. A signal handler may run on
    // an alternate stack, so only a signal frame may step down.
    if (!signal_frame && caller.sp() <= current.sp() && caller.pc() == current.pc()) {
      result.reason = StopReason::kLoop;
      return;
    }
    if (!signal_frame && caller.sp() < current.sp()) {
      result.reason = StopReason::kLoop;
      return;
    }
    activation = signal_frame;
    current = caller;
  }
}

}  // namespace jitscope::unwind
