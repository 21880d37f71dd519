// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/unwind/hotspot_interpreter.h"

#include <algorithm>
#include <utility>

namespace jitscope::unwind {
namespace {

// DWARF numbers (registers.h); names of their own, as the unity build shares anonymous namespaces.
constexpr int kFramePointerRegister = 6;
constexpr int kStackPointerRegister = 7;
constexpr int kBcpRegister = 13;
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

bool StartsWith(std::span<const uint8_t> code, std::span<const uint8_t> instruction) {
  return code.size() >= instruction.size() &&
         std::equal(instruction.begin(), instruction.end(), code.begin());
}

}  // namespace

InterpreterStep StepInterpreterFrame(const RegisterFile& callee, const StackMemory& stack,
                                     bool running, std::span<const uint8_t> code,
                                     RegisterFile& caller, InterpreterFrame& frame) {
  uint64_t rbp = 0, rsp = 0;
  if (callee.address_size() != 8 || !callee.Get(kFramePointerRegister, rbp) ||
      !callee.Get(kStackPointerRegister, rsp)) {
    return InterpreterStep::kNotAFrame;
  }
  if (rbp % 8 != 0 || rbp < kFixedFrameBytes || rsp > rbp - kFixedFrameBytes) {
    return InterpreterStep::kNotAFrame;
  }
  // Every slot is inside the stack's reach of rsp, or the copy was too short for it.
  uint64_t return_address = 0, link = 0, sender_sp = 0, method = 0, bcp_slot = 0;
  for (auto [offset, value] : {std::pair{kReturnAddressSlot, &return_address},
                               std::pair{kLinkSlot, &link}, std::pair{kSenderSpSlot, &sender_sp},
                               std::pair{kMethodSlot, &method}, std::pair{kBcpSlot, &bcp_slot}}) {
    switch (stack.Read(rbp + static_cast<uint64_t>(offset), 8, *value)) {
      case ReadResult::kOk:
        break;
      case ReadResult::kBeyondCopy:
        return InterpreterStep::kStackCopyTooShort;
      case ReadResult::kUnreadable:
        return InterpreterStep::kNotAFrame;
    }
  }
  // The sender sp is at least rbp + 8, not + 16: a method handle's linkTo* entry pops its trailing
  // MemberName argument and moves the return address up a word over it, leaving r13, the sender
  // sp the callee saves, at the return address's new slot.
  if (return_address == 0 || sender_sp < rbp + 8 || sender_sp - rbp > kMaxSenderSpReach ||
      sender_sp % 8 != 0) {
    return InterpreterStep::kNotAFrame;
  }
  uint64_t bcp = bcp_slot;
  const bool returned_into =
      StartsWith(code, kRestoreSpFromLastSp) || StartsWith(code, kClearLastSp);
  if (running && !returned_into) {
    uint64_t last_sp = 0;
    if (stack.Read(rbp + static_cast<uint64_t>(kLastSpSlot), 8, last_sp) != ReadResult::kOk ||
        last_sp != 0) {
      return InterpreterStep::kNotAFrame;
    }
    if (!callee.Get(kBcpRegister, bcp) || (bcp >= rsp && bcp <= sender_sp)) {
      return InterpreterStep::kNotAFrame;
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
