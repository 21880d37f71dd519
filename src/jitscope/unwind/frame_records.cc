// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/unwind/frame_records.h"

#include "jitscope/unwind/call_check.h"

namespace jitscope::unwind {
namespace {

// True when `row` says what a frame record means: CFA = rbp + 2 words, the return address at
// CFA - 1 word, the caller's rbp at CFA - 2 words (ebp and 4-byte words for i386).
bool IsFrameRecord(const CfiRow& row, int frame_pointer, int word) {
  const auto at = [&](int reg, int64_t offset) {
    const RegisterRule& rule = row.registers[static_cast<size_t>(reg)];
    return rule.kind == RegisterRule::Kind::kLocation &&
           rule.form.kind == CommonForm::Kind::kAtCfaPlus &&
           rule.form.offset == static_cast<uint64_t>(offset);
  };
  return !row.signal_frame && row.cfa_form.kind == CommonForm::Kind::kRegisterPlus &&
         row.cfa_form.reg == frame_pointer &&
         row.cfa_form.offset == static_cast<uint64_t>(2 * word) &&
         at(row.return_address_register, -word) && at(frame_pointer, -2 * word);
}

// The CFI row of ELF code at `lookup`, or nullptr (no module, JIT code, no row).
const CfiRow* ElfRowAt(AddressSpace& space, uint64_t lookup, ModuleAt& at) {
  at = {};
  if (!space.Find(lookup, at) || at.module == nullptr || at.derived != nullptr) return nullptr;
  return at.module->Find(lookup - at.bias);
}

}  // namespace

bool ChainSkipsCaller(const CfiRow& row, const RegisterFile& registers, const StackMemory& stack) {
  constexpr int kFramePointer = 6;
  uint64_t rbp = 0;
  if (registers.address_size() != 8 || !registers.Get(kFramePointer, rbp) ||
      row.cfa_form.kind != CommonForm::Kind::kRegisterPlus || row.cfa_form.reg == kFramePointer) {
    return false;
  }
  const RegisterRule& saved = row.registers[kFramePointer];
  if (saved.kind == RegisterRule::Kind::kSameValue) return true;
  uint64_t cfa = 0, slot = 0;
  return saved.kind == RegisterRule::Kind::kLocation &&
         saved.form.kind == CommonForm::Kind::kAtCfaPlus && registers.Get(row.cfa_form.reg, cfa) &&
         stack.Read(cfa + row.cfa_form.offset + saved.form.offset, 8, slot) == ReadResult::kOk &&
         slot == rbp;
}

bool ContinueThroughFrameRecords(const RegisterFile& registers, const StackMemory& stack,
                                 std::span<const uint64_t> chain, AddressSpace& space,
                                 const UnwindLimits& limits, UnwindResult& result) {
  if (result.reason != StopReason::kStackCopyTooShort || result.frames.empty()) return false;
  const int word = registers.address_size();
  const int frame_pointer = word == 8 ? 6 : 5;
  // The chain's links inside the copy, as the kernel followed them from the sampled rbp: each
  // record's return address must be the chain's, or this is not the chain the kernel read.
  uint64_t link = 0;
  if (chain.empty() || chain[0] != registers.pc() || !registers.Get(frame_pointer, link)) {
    return false;
  }
  size_t next = 1;  // the chain's word the record at `link` holds
  for (;;) {
    uint64_t caller_link = 0, return_address = 0;
    const ReadResult saved = stack.Read(link, word, caller_link);
    const ReadResult returns = stack.Read(link + static_cast<uint64_t>(word), word, return_address);
    if (saved == ReadResult::kBeyondCopy || returns == ReadResult::kBeyondCopy) break;
    if (saved != ReadResult::kOk || returns != ReadResult::kOk) return false;
    if (next >= chain.size() || chain[next] != return_address || caller_link <= link) return false;
    link = caller_link;
    ++next;
  }
  if (next >= chain.size()) return false;
  // The frame the walk stopped in keeps its record there.
  uint64_t frame_pointer_value = 0;
  const UnwoundFrame& last = result.frames.back();
  ModuleAt at;
  const CfiRow* row = ElfRowAt(space, last.activation ? last.pc : last.pc - 1, at);
  if (!result.stopped.Get(frame_pointer, frame_pointer_value) || frame_pointer_value != link ||
      row == nullptr || !IsFrameRecord(*row, frame_pointer, word)) {
    return false;
  }
  // Each caller's return address is the chain's next word while the callers keep records.
  for (; next < chain.size(); ++next) {
    const uint64_t return_address = chain[next];
    if (return_address == 0) {
      result.reason = StopReason::kOutermost;
      return true;
    }
    if (result.frames.size() >= limits.max_frames) {
      result.reason = StopReason::kDepthLimit;
      return true;
    }
    result.frames.push_back({return_address, false});
    result.CountStep(RuleSource::kFrameRecords);
    row = ElfRowAt(space, return_address - 1, at);
    if (row == nullptr) {
      const bool entry =
          at.module != nullptr && InEntryCode(*at.module, return_address - 1 - at.bias);
      result.reason = entry ? StopReason::kOutermost : StopReason::kNoRule;
      return true;
    }
    if (row->registers[static_cast<size_t>(row->return_address_register)].kind ==
        RegisterRule::Kind::kUndefined) {
      result.reason = StopReason::kOutermost;  // CFI says this frame has no caller
      return true;
    }
    if (!IsFrameRecord(*row, frame_pointer, word)) return true;  // still stack copy too short
  }
  return true;  // the chain ended: the kernel stopped, or its depth limit did
}

}  // namespace jitscope::unwind
