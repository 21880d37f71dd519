// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/unwind/hotspot_interpreter.h"

#include <algorithm>
#include <array>
#include <optional>
#include <utility>

#include "jitscope/disasm/decoder.h"

namespace jitscope::unwind {
namespace {

// DWARF numbers (registers.h); names of their own, as the unity build shares anonymous namespaces.
constexpr int kFramePointerRegister = 6;
constexpr int kStackPointerRegister = 7;
constexpr int kBcpRegister = 13;
constexpr int kMethodRegister = 3;  // rbx, in a method entry
constexpr int kPcRegister = 16;

// frame_x86.hpp's offsets, in bytes from rbp.
constexpr int64_t kReturnAddressSlot = 8;
constexpr int64_t kLinkSlot = 0;
constexpr int64_t kSenderSpSlot = -8;
constexpr int64_t kLastSpSlot = -16;
constexpr int64_t kMethodSlot = -24;
constexpr int64_t kBcpSlot = -64;
// The fixed part of the frame: rbp - 72 is its lowest slot (the initial sp).
constexpr uint64_t kFixedFrameBytes = 72;
// How far above rbp the sender sp can lie: the return address and the caller's rbp, then the
// frame's locals (the interpreter extends its caller's frame for them; a method has at most 65535
// local slots) and a word of alignment.
constexpr uint64_t kMaxSenderSpReach = 16 + (uint64_t{65535} + 2) * 8;

// A return or deoptimization entry's first two instructions, where the running frame's last sp is
// still set: `mov rsp, [rbp - 16]` and `mov qword ptr [rbp - 16], 0`.
constexpr uint8_t kRestoreSpFromLastSp[] = {0x48, 0x8b, 0x65, 0xf0};
constexpr uint8_t kClearLastSp[] = {0x48, 0xc7, 0x45, 0xf0, 0x00, 0x00, 0x00, 0x00};

bool AtReturnEntryStart(uint64_t pc, const CodeReader& read_code) {
  std::array<uint8_t, sizeof(kClearLastSp)> code{};
  const size_t known = read_code(pc, code);
  auto starts_with = [&](std::span<const uint8_t> instruction) {
    return known >= instruction.size() &&
           std::equal(instruction.begin(), instruction.end(), code.begin());
  };
  return starts_with(kRestoreSpFromLastSp) || starts_with(kClearLastSp);
}

// How far before the pc generate_fixed_frame's start is looked for: its code up to the last slot.
constexpr uint64_t kFixedFrameCodeReach = 0x80;

bool IsRegister(const ZydisDecodedOperand& operand, ZydisRegister reg) {
  return operand.type == ZYDIS_OPERAND_TYPE_REGISTER && operand.reg.value == reg;
}

// Whether the running frame at `pc` is one generate_fixed_frame is building: the code before the
// pc is its start — `push rax` (the return address the method entry popped), `push rbp`,
// `mov rbp, rsp` — then straight-line code that only pushes (the fixed slots, the sender sp first)
// and moves values between registers and memory, with forward jumps over no push, up to the pc;
// and the stack is as deep as those pushes made it. Sets `pushed` to the slots pushed, and
// `codebase_in_r13` when the last write of r13 was the `lea` that makes it the bytecodes' base
// (the bcp of the method's first bytecode, where it is about to start).
bool BuildingFixedFrame(uint64_t pc, uint64_t rbp, uint64_t rsp, const CodeReader& read_code,
                        size_t& pushed, bool& codebase_in_r13) {
  static const std::optional<disasm::Decoder> decoder =
      disasm::Decoder::Create(disasm::Mode::kX86_64);
  std::array<uint8_t, kFixedFrameCodeReach> code{};
  if (!decoder || pc < kFixedFrameCodeReach ||
      read_code(pc - kFixedFrameCodeReach, code) != code.size()) {
    return false;
  }
  const std::span<const uint8_t> bytes(code);
  const uint64_t base = pc - kFixedFrameCodeReach;
  // The nearest start first: `push rax; push rbp` is 50 55.
  for (size_t start = kFixedFrameCodeReach - 2; start-- > 0;) {
    if (bytes[start] != 0x50 || bytes[start + 1] != 0x55) continue;
    size_t offset = start + 2;
    const auto enter = decoder->Decode(bytes.subspan(offset), base + offset);
    if (!enter || enter->raw.mnemonic != ZYDIS_MNEMONIC_MOV ||
        !IsRegister(enter->operands[0], ZYDIS_REGISTER_RBP) ||
        !IsRegister(enter->operands[1], ZYDIS_REGISTER_RSP)) {
      continue;
    }
    offset += enter->length;
    size_t pushes = 0;
    bool codebase = false;
    uint64_t no_push_until = 0;  // a forward jump's target: the code it skips pushes nothing
    bool straight = true;
    while (straight && base + offset < pc) {
      const auto instruction = decoder->Decode(bytes.subspan(offset), base + offset);
      if (!instruction) break;
      const bool push = instruction->raw.mnemonic == ZYDIS_MNEMONIC_PUSH;
      bool writes_rsp = false;
      for (uint8_t i = 0; i < instruction->operand_count; ++i) {
        writes_rsp |= IsRegister(instruction->operands[i], ZYDIS_REGISTER_RSP) &&
                      (instruction->operands[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) != 0;
      }
      const std::optional<uint64_t> target = instruction->BranchTarget();
      if ((writes_rsp && !push) || instruction->IsCall() || instruction->EndsFlow() ||
          (instruction->IsJump() &&
           (!instruction->IsConditionalJump() || !target || *target <= instruction->address)) ||
          (push && instruction->address < no_push_until)) {
        straight = false;
        break;
      }
      if (target) no_push_until = std::max(no_push_until, *target);
      if (push) ++pushes;
      if (instruction->operand_count > 0 &&
          IsRegister(instruction->operands[0], ZYDIS_REGISTER_R13) &&
          (instruction->operands[0].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) != 0) {
        codebase = instruction->raw.mnemonic == ZYDIS_MNEMONIC_LEA;
      }
      offset += instruction->length;
    }
    if (straight && base + offset == pc && rbp == rsp + 8 * pushes) {
      pushed = pushes;
      codebase_in_r13 = codebase;
      return true;
    }
  }
  return false;
}

}  // namespace

InterpreterStep StepInterpreterFrame(const RegisterFile& callee, const StackMemory& stack,
                                     bool running, const CodeReader& read_code,
                                     RegisterFile& caller, InterpreterFrame& frame) {
  uint64_t rbp = 0, rsp = 0, pc = 0;
  if (callee.address_size() != 8 || !callee.Get(kFramePointerRegister, rbp) ||
      !callee.Get(kStackPointerRegister, rsp) || !callee.Get(kPcRegister, pc)) {
    return InterpreterStep::kNotAFrame;
  }
  if (rbp % 8 != 0 || rbp < kFixedFrameBytes) return InterpreterStep::kNotAFrame;
  // A frame still being built has the slots pushed so far; the sender sp is in r13 until the
  // first of them.
  size_t pushed = kFixedFrameBytes / 8;
  bool codebase_in_r13 = false;
  if (rsp > rbp - kFixedFrameBytes &&
      !(running && BuildingFixedFrame(pc, rbp, rsp, read_code, pushed, codebase_in_r13))) {
    return InterpreterStep::kNotAFrame;
  }
  const bool complete = pushed == kFixedFrameBytes / 8;
  // Every slot is inside the stack's reach of rsp, or the copy was too short for it.
  uint64_t return_address = 0, link = 0, sender_sp = 0, method = 0, bcp_slot = 0;
  for (auto [offset, value] : {std::pair{kReturnAddressSlot, &return_address},
                               std::pair{kLinkSlot, &link}, std::pair{kSenderSpSlot, &sender_sp},
                               std::pair{kMethodSlot, &method}, std::pair{kBcpSlot, &bcp_slot}}) {
    if (offset < 0 && static_cast<uint64_t>(-offset) > 8 * pushed) continue;  // not pushed yet
    switch (stack.Read(rbp + static_cast<uint64_t>(offset), 8, *value)) {
      case ReadResult::kOk:
        break;
      case ReadResult::kBeyondCopy:
        return InterpreterStep::kStackCopyTooShort;
      case ReadResult::kUnreadable:
        return InterpreterStep::kNotAFrame;
    }
  }
  if (pushed == 0 && !callee.Get(kBcpRegister, sender_sp)) return InterpreterStep::kNotAFrame;
  // The sender sp is at least rbp + 8, not + 16: a method handle's linkTo* entry pops its trailing
  // MemberName argument and moves the return address up a word over it, leaving r13, the sender
  // sp the callee saves, at the return address's new slot.
  if (return_address == 0 || sender_sp < rbp + 8 || sender_sp - rbp > kMaxSenderSpReach ||
      sender_sp % 8 != 0) {
    return InterpreterStep::kNotAFrame;
  }
  uint64_t bcp = bcp_slot;
  if (!complete) {
    // The Method* is in rbx until its slot is pushed (the method entry's convention), and the
    // bcp is the code base in r13 once the entry computed it.
    if (pushed < 3 && !callee.Get(kMethodRegister, method)) method = 0;
    if (!codebase_in_r13 || !callee.Get(kBcpRegister, bcp)) bcp = 0;
  }
  if (running && complete) {
    uint64_t last_sp = 0;
    if (stack.Read(rbp + static_cast<uint64_t>(kLastSpSlot), 8, last_sp) != ReadResult::kOk) {
      return InterpreterStep::kNotAFrame;
    }
    // Where the last sp is set, or r13 holds a stack address of the frame, rbp may be a method
    // entry's caller's, but for the start of a return entry.
    if (!callee.Get(kBcpRegister, bcp) || last_sp != 0 || (bcp >= rsp && bcp <= sender_sp)) {
      if (!AtReturnEntryStart(pc, read_code)) return InterpreterStep::kNotAFrame;
      bcp = bcp_slot;
    }
  }
  frame = {method, bcp};
  caller = callee.EmptyLike();
  caller.Set(kStackPointerRegister, sender_sp);
  caller.Set(kFramePointerRegister, link);
  caller.Set(kPcRegister, return_address);
  return InterpreterStep::kOk;
}

}  // namespace jitscope::unwind
