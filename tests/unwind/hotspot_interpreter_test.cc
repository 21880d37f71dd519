// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// HotSpot's interpreter frames walked by their layout (hotspot_interpreter.h), on stacks laid out
// by hand as the template interpreter lays them out: the checks that keep a method entry's and a
// return's rbp (its caller's) from being taken for the frame's, and the steps into and out of the
// interpreter beside JIT code whose rules are derived from its bytes (assembled with xbyak).
#include "jitscope/unwind/hotspot_interpreter.h"

#include <xbyak/xbyak.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/disasm/decoder.h"
#include "jitscope/unwind/derived_rules.h"
#include "jitscope/unwind/unwinder.h"
#include "unwind/dwarf_registers.h"

namespace jitscope::unwind {
namespace {

using namespace Xbyak::util;  // NOLINT: register names read like assembly

using namespace test;  // DWARF register numbers

constexpr uint64_t kInterpreter = 0x100000;  // the interpreter's code: 64 KiB
constexpr uint64_t kInterpreterSize = 0x10000;
constexpr uint64_t kReturnEntry = kInterpreter + 0x500;  // where an invoke returns to
constexpr uint64_t kTemplate = kInterpreter + 0x2000;    // a bytecode's template
constexpr uint64_t kStub = 0x200000;                     // the call stub: push rbp; call
constexpr uint64_t kCompiled = 0x300000;                 // compiled code without a frame pointer
constexpr uint64_t kSp = 0x7ffd0000;
constexpr uint64_t kMethod1 = 0x800010000, kMethod2 = 0x800020000;
constexpr uint64_t kBcp1 = 0x800011040, kBcp2 = 0x800021008;

std::span<const uint8_t> Bytes(const Xbyak::CodeGenerator& code) {
  return {code.getCode(), code.getSize()};
}

// The interpreter (no bytes needed: its layout is the rule), a call stub that builds an rbp frame
// and calls into Java, and a compiled method that saves rbp in its frame, as C2's do.
class JvmSpace : public AddressSpace {
 public:
  JvmSpace() : stub_(4096), compiled_(4096) {
    stub_.push(rbp);
    stub_.mov(rbp, rsp);
    stub_.call(rax);
    after_stub_call_ = kStub + stub_.getSize();
    stub_.pop(rbp);
    stub_.ret();

    compiled_.push(rbp);
    compiled_.sub(rsp, 16);
    compiled_sampled_ = kCompiled + compiled_.getSize();
    compiled_.mov(rax, rdi);
    compiled_.add(rsp, 16);
    compiled_.pop(rbp);
    compiled_.ret();

    auto decoder = disasm::Decoder::Create(disasm::Mode::kX86_64);
    const CodeRegion stub[] = {{kStub, Bytes(stub_)}};
    const CodeRegion compiled[] = {{kCompiled, Bytes(compiled_)}};
    stub_rules_ = DerivedRules::Analyze(*decoder, stub);
    compiled_rules_ = DerivedRules::Analyze(*decoder, compiled);
  }

  bool Find(uint64_t pc, ModuleAt& found) override {
    if (pc >= kInterpreter && pc < kInterpreter + kInterpreterSize) {
      // As JIT code, the interpreter has rules from no path that reaches its templates.
      found = interpreter_known ? ModuleAt{nullptr, 0, nullptr, true}
                                : ModuleAt{nullptr, 0, &stub_rules_};
      return interpreter_known || interpreter_as_jit_code;
    }
    if (pc >= kStub && pc < kStub + stub_.getSize()) {
      found = {nullptr, 0, &stub_rules_};
      return true;
    }
    if (pc >= kCompiled && pc < kCompiled + compiled_.getSize()) {
      found = {nullptr, 0, &compiled_rules_};
      return true;
    }
    return false;
  }

  // The interpreter's code the test wrote, by address.
  size_t ReadCode(uint64_t address, std::span<uint8_t> out) override {
    size_t known = 0;
    while (known < out.size() && code.count(address + known) != 0) {
      out[known] = code.at(address + known);
      ++known;
    }
    return known;
  }

  uint64_t after_stub_call() const { return after_stub_call_; }
  uint64_t compiled_sampled() const { return compiled_sampled_; }
  // Whether the address space recognises the interpreter's code, or (as before the rule) hands
  // it out as JIT code with no rules.
  bool interpreter_known = true;
  bool interpreter_as_jit_code = false;
  std::map<uint64_t, uint8_t> code;

 private:
  Xbyak::CodeGenerator stub_, compiled_;
  uint64_t after_stub_call_ = 0, compiled_sampled_ = 0;
  DerivedRules stub_rules_, compiled_rules_;
};

// A stack copy starting at kSp, written word by word.
class Stack {
 public:
  void Put(uint64_t address, uint64_t value) { words_[address] = value; }
  // An interpreter frame at `rbp`: its links and slots.
  void Frame(uint64_t rbp, uint64_t return_address, uint64_t caller_rbp, uint64_t sender_sp,
             uint64_t last_sp, uint64_t method, uint64_t bcp) {
    Put(rbp + 8, return_address);
    Put(rbp, caller_rbp);
    Put(rbp - 8, sender_sp);
    Put(rbp - 16, last_sp);
    Put(rbp - 24, method);
    Put(rbp - 64, bcp);
  }
  // The copy's bytes, `size` of them.
  std::string Bytes(size_t size = 0x400) const {
    std::string bytes(size, '\0');
    for (const auto& [address, value] : words_) {
      if (address >= kSp && address + 8 <= kSp + size) {
        std::memcpy(bytes.data() + (address - kSp), &value, 8);
      }
    }
    return bytes;
  }

 private:
  std::map<uint64_t, uint64_t> words_;
};

// The frames above the sampled one, shared by the walks: an interpreter frame at kCallerRbp, at an
// invoke (its last sp set), called by the call stub, whose own return address is 0 (the end).
constexpr uint64_t kCallerRbp = kSp + 0x200;
constexpr uint64_t kCallerSenderSp = kCallerRbp + 16;

void PutCallerFrames(const JvmSpace& space, Stack& stack) {
  // The stub pushed its caller's rbp at kCallerSenderSp and made that rbp, then called: the
  // interpreter's sender sp is the stub's rsp after the call returns.
  stack.Frame(kCallerRbp, space.after_stub_call(), kCallerSenderSp, kCallerSenderSp,
              /*last_sp=*/kSp + 0x100, kMethod2, kBcp2);
  stack.Put(kCallerSenderSp + 8, 0);  // the stub's return address: the end of the stack
}

struct Walk {
  RegisterFile registers = RegisterFile::X86_64();
  Stack stack;
  size_t copy = 0x400;
  UnwindResult Run(JvmSpace& space) const {
    const std::string bytes = stack.Bytes(copy);
    UnwindResult result;
    Unwind(registers, StackMemory(kSp, bytes), space, {}, result);
    return result;
  }
};

// Sampled in a template of a running interpreter frame at kLeafRbp, called by the caller above.
constexpr uint64_t kLeafRbp = kSp + 0x100;

Walk InterpreterLeaf(const JvmSpace& space) {
  Walk walk;
  walk.registers.Set(kPc, kTemplate);
  walk.registers.Set(kRsp, kSp);
  walk.registers.Set(kRbp, kLeafRbp);
  walk.registers.Set(kR13, kBcp1);
  walk.stack.Frame(kLeafRbp, kReturnEntry, kCallerRbp, /*sender_sp=*/kLeafRbp + 0x20,
                   /*last_sp=*/0, kMethod1, /*bcp slot, stale=*/kBcp1 - 0x30);
  PutCallerFrames(space, walk.stack);
  return walk;
}

TEST(HotspotInterpreterTest, WalksInterpreterFramesToTheCallStub) {
  JvmSpace space;
  const UnwindResult result = InterpreterLeaf(space).Run(space);
  ASSERT_EQ(result.frames.size(), 3u);
  EXPECT_EQ(result.frames[0].pc, kTemplate);
  EXPECT_TRUE(result.frames[0].activation);
  // The running frame's bcp is r13, the caller's its slot.
  EXPECT_EQ(result.frames[0].interpreter, (InterpreterFrame{kMethod1, kBcp1}));
  EXPECT_EQ(result.frames[1].pc, kReturnEntry);
  EXPECT_EQ(result.frames[1].interpreter, (InterpreterFrame{kMethod2, kBcp2}));
  EXPECT_EQ(result.frames[2].pc, space.after_stub_call());
  EXPECT_FALSE(result.frames[2].interpreter);
  EXPECT_EQ(result.reason, StopReason::kOutermost);
  // The stub's step reads a return address of 0, which ends the walk without a step.
  EXPECT_EQ(result.steps, (std::array<uint32_t, kRuleSourceCount>{0, 0, 0, 0, 2}));
}

// Compiled code called from the interpreter returns into its return entry, which no call
// precedes: the step is taken, and the interpreter frame's checks take over.
Walk CompiledLeaf(const JvmSpace& space) {
  Walk walk;
  walk.registers.Set(kPc, space.compiled_sampled());
  walk.registers.Set(kRsp, kSp);
  walk.registers.Set(kRbp, 0x1234);  // compiled code uses rbp as it likes; it saved the caller's
  walk.stack.Put(kSp + 16, kCallerRbp);
  walk.stack.Put(kSp + 24, kReturnEntry);
  PutCallerFrames(space, walk.stack);
  return walk;
}

TEST(HotspotInterpreterTest, CompiledCodeReturnsIntoTheInterpreter) {
  JvmSpace space;
  const UnwindResult result = CompiledLeaf(space).Run(space);
  ASSERT_EQ(result.frames.size(), 3u);
  EXPECT_FALSE(result.frames[0].interpreter);
  EXPECT_EQ(result.frames[1].pc, kReturnEntry);
  EXPECT_EQ(result.frames[1].interpreter, (InterpreterFrame{kMethod2, kBcp2}));
  EXPECT_EQ(result.frames[2].pc, space.after_stub_call());
  EXPECT_EQ(result.reason, StopReason::kOutermost);
  EXPECT_EQ(result.steps, (std::array<uint32_t, kRuleSourceCount>{0, 0, 1, 0, 1}));
}

TEST(HotspotInterpreterTest, WithoutTheRuleTheReturnIntoTheInterpreterIsRefused) {
  JvmSpace space;
  space.interpreter_known = false;
  space.interpreter_as_jit_code = true;
  const UnwindResult result = CompiledLeaf(space).Run(space);
  EXPECT_EQ(result.frames.size(), 1u);
  EXPECT_EQ(result.reason, StopReason::kNotAfterCall);
}

// A method entry before `enter` runs with its caller's rbp, whose frame is at an invoke: its last
// sp is set. Taking that frame for the running one would drop a frame and name the caller.
TEST(HotspotInterpreterTest, AMethodEntryBeforeItsFrameIsNotTakenForItsCaller) {
  JvmSpace space;
  Walk walk = InterpreterLeaf(space);
  walk.registers.Set(kRbp, kCallerRbp);
  walk.registers.Set(kR13, kSp + 0x40);  // the sender sp, as invokes and c2i leave it
  UnwindResult result = walk.Run(space);
  EXPECT_EQ(result.frames.size(), 1u);
  EXPECT_EQ(result.reason, StopReason::kBadInterpreterFrame);

  // The same frame with its last sp cleared (an invoke's last instructions, before it is set),
  // but r13 still a stack address of the frame: refused as well.
  walk = InterpreterLeaf(space);
  walk.registers.Set(kR13, kLeafRbp + 8);
  result = walk.Run(space);
  EXPECT_EQ(result.reason, StopReason::kBadInterpreterFrame);
}

// A return entry (where an invoke returns to) starts `mov rsp, [rbp - 16]`, then
// `mov qword ptr [rbp - 16], 0`: until the second has run, the frame returned into, which runs
// there, still has its last sp set, and r13 holds what the callee left (here an address of the
// frame's stack). Known by those bytes, the frame is walked, its bcp the slot's.
TEST(HotspotInterpreterTest, AReturnEntrysFirstInstructionsRunInTheFrameReturnedInto) {
  JvmSpace space;
  const uint8_t entry[] = {0x48, 0x8b, 0x65, 0xf0, 0x48, 0xc7, 0x45, 0xf0, 0, 0, 0, 0};
  for (size_t i = 0; i < sizeof(entry); ++i) space.code[kReturnEntry + 0x40 + i] = entry[i];
  for (uint64_t pc : {kReturnEntry + 0x40, kReturnEntry + 0x44}) {
    Walk walk = InterpreterLeaf(space);
    walk.registers.Set(kPc, pc);
    walk.registers.Set(kR13, kLeafRbp + 8);
    walk.stack.Put(kLeafRbp - 16, kSp + 0x10);  // the last sp
    const UnwindResult result = walk.Run(space);
    ASSERT_EQ(result.frames.size(), 3u) << pc;
    EXPECT_EQ(result.frames[0].interpreter, (InterpreterFrame{kMethod1, kBcp1 - 0x30}));
    EXPECT_EQ(result.frames[1].pc, kReturnEntry);
    EXPECT_EQ(result.reason, StopReason::kOutermost);
  }
  // The same frame anywhere else: refused, as a method entry's caller is.
  Walk walk = InterpreterLeaf(space);
  walk.registers.Set(kPc, kReturnEntry + 0x48);  // inside the second instruction
  walk.stack.Put(kLeafRbp - 16, kSp + 0x10);
  EXPECT_EQ(walk.Run(space).reason, StopReason::kBadInterpreterFrame);
}

// A method entry's generate_fixed_frame, at kFixedFrame: the code the walk reads before a pc in it.
constexpr uint64_t kFixedFrame = kInterpreter + 0x3000;

struct FixedFrameCode {
  std::vector<uint64_t> pcs;   // after each instruction from `mov rbp, rsp` on
  std::vector<size_t> pushed;  // the slots pushed by then
  std::vector<bool> codebase;  // whether r13 holds the code base by then
  uint64_t before_enter = 0;   // `mov rbp, rsp` itself
};

FixedFrameCode PutFixedFrameCode(JvmSpace& space) {
  Xbyak::CodeGenerator code(4096);
  code.mov(rdx, ptr[rbx + 0x10]);  // the end of the method entry's locals loop
  code.pop(rax);                   // not a push of the frame: before its start
  code.push(rax);                  // the return address the entry popped
  code.push(rbp);
  FixedFrameCode out;
  out.before_enter = kFixedFrame + code.getSize();
  code.mov(rbp, rsp);
  size_t pushed = 0;
  bool codebase = false;
  auto mark = [&](size_t pushes) {
    pushed += pushes;
    out.pcs.push_back(kFixedFrame + code.getSize());
    out.pushed.push_back(pushed);
    out.codebase.push_back(codebase);
  };
  mark(0);
  code.push(r13);  // the sender sp
  mark(1);
  code.push(0);  // the last sp
  mark(1);
  code.mov(r13, ptr[rbx + 8]);
  mark(0);
  code.lea(r13, ptr[r13 + 0x30]);
  codebase = true;
  mark(0);
  code.push(rbx);  // the Method*
  mark(1);
  code.mov(rdx, ptr[rbx + 0x18]);
  mark(0);
  code.test(rdx, rdx);
  mark(0);
  Xbyak::Label no_data;
  code.jz(no_data);
  mark(0);
  code.add(rdx, 0x100);  // skipped or not, no push
  code.L(no_data);
  mark(0);
  code.push(rdx);  // the mdp
  mark(1);
  // The interpreter's code before it (the walk reads 128 bytes before the pc).
  for (uint64_t address = kFixedFrame - 0x100; address < kFixedFrame; ++address) {
    space.code[address] = 0x90;
  }
  for (size_t i = 0; i < code.getSize(); ++i) space.code[kFixedFrame + i] = code.getCode()[i];
  return out;
}

// Sampled while generate_fixed_frame pushes the fixed slots: rbp is the frame's, which is not
// complete; its code says how far it got.
Walk FrameBeingBuilt(const JvmSpace& space, uint64_t pc, size_t pushed, bool codebase) {
  Walk walk = InterpreterLeaf(space);
  walk.registers.Set(kPc, pc);
  walk.registers.Set(kRsp, kLeafRbp - 8 * pushed);
  walk.registers.Set(kRbx, kMethod1);
  // The sender sp until the entry loads the code base (kBcp1: the test's method at its start).
  walk.registers.Set(kR13, codebase ? kBcp1 : kLeafRbp + 0x20);
  walk.stack.Put(kLeafRbp - 24, pushed >= 3 ? kMethod1 : 0);
  walk.stack.Put(kLeafRbp - 16, 0);
  return walk;
}

TEST(HotspotInterpreterTest, AFrameGenerateFixedFrameIsBuildingIsWalkedByItsCode) {
  JvmSpace space;
  const FixedFrameCode code = PutFixedFrameCode(space);
  for (size_t i = 0; i < code.pcs.size(); ++i) {
    const UnwindResult result =
        FrameBeingBuilt(space, code.pcs[i], code.pushed[i], code.codebase[i]).Run(space);
    ASSERT_EQ(result.frames.size(), 3u) << i;
    EXPECT_EQ(result.frames[1].pc, kReturnEntry);
    EXPECT_EQ(result.frames[1].interpreter, (InterpreterFrame{kMethod2, kBcp2}));
    EXPECT_EQ(result.reason, StopReason::kOutermost);
    // The Method* from rbx, then its slot; the bcp once r13 holds the code base.
    EXPECT_EQ(result.frames[0].interpreter,
              (InterpreterFrame{kMethod1, code.codebase[i] ? kBcp1 : 0}))
        << i;
  }
  // The stack not as deep as the code pushed: not that frame.
  EXPECT_EQ(FrameBeingBuilt(space, code.pcs[3], 1, false).Run(space).reason,
            StopReason::kBadInterpreterFrame);
  // Before `mov rbp, rsp`, rbp is the caller's, whose frame is at an invoke: refused.
  Walk walk = FrameBeingBuilt(space, code.before_enter, 0, false);
  walk.registers.Set(kRbp, kCallerRbp);
  EXPECT_EQ(walk.Run(space).reason, StopReason::kBadInterpreterFrame);
}

TEST(HotspotInterpreterTest, AFrameStillBeingBuiltIsNotAFrame) {
  JvmSpace space;
  Walk walk = InterpreterLeaf(space);
  // After `enter`, before the nine fixed slots are pushed: rsp is less than 72 bytes below rbp.
  walk.registers.Set(kRsp, kLeafRbp - 40);
  const UnwindResult result = walk.Run(space);
  EXPECT_EQ(result.reason, StopReason::kBadInterpreterFrame);
}

TEST(HotspotInterpreterTest, SendersSpBelowTheFrameOrFarAboveItIsNotAFrame) {
  JvmSpace space;
  for (uint64_t sender_sp : {kLeafRbp, kLeafRbp + (uint64_t{1} << 22), kLeafRbp + 0x21}) {
    Walk walk = InterpreterLeaf(space);
    walk.stack.Put(kLeafRbp - 8, sender_sp);
    EXPECT_EQ(walk.Run(space).reason, StopReason::kBadInterpreterFrame) << sender_sp;
  }
  Walk walk = InterpreterLeaf(space);
  walk.registers.Set(kRbp, kLeafRbp + 4);  // not a word address
  EXPECT_EQ(walk.Run(space).reason, StopReason::kBadInterpreterFrame);
}

// A method invoked through a method handle's linkTo* entry (a lambda's bootstrap, a
// LambdaForm's call): the entry popped the trailing MemberName argument and pushed the return
// address back a word higher, so the sender sp the callee saved (r13, unchanged) is the return
// address's own slot, rbp + 8 once the frame is built.
TEST(HotspotInterpreterTest, AFrameEnteredThroughALinkToEntryHasItsSenderSpAtItsReturnAddress) {
  JvmSpace space;
  Walk walk = InterpreterLeaf(space);
  walk.stack.Put(kLeafRbp - 8, kLeafRbp + 8);
  const UnwindResult result = walk.Run(space);
  ASSERT_EQ(result.frames.size(), 3u);
  EXPECT_EQ(result.frames[1].pc, kReturnEntry);
  EXPECT_EQ(result.frames[1].interpreter, (InterpreterFrame{kMethod2, kBcp2}));
  EXPECT_EQ(result.reason, StopReason::kOutermost);
}

TEST(HotspotInterpreterTest, AnInterpreterFramesReturnAddressMustFollowACall) {
  JvmSpace space;
  Walk walk = InterpreterLeaf(space);
  walk.stack.Put(kCallerRbp + 8, space.after_stub_call() - 1);
  const UnwindResult result = walk.Run(space);
  EXPECT_EQ(result.frames.size(), 2u);
  EXPECT_EQ(result.reason, StopReason::kNotAfterCall);
}

TEST(HotspotInterpreterTest, SlotsPastTheCopyStopTheWalkForWantOfStack) {
  JvmSpace space;
  Walk walk = InterpreterLeaf(space);
  walk.copy = 0x100 - 16;  // ends below the running frame's rbp
  const UnwindResult result = walk.Run(space);
  EXPECT_EQ(result.frames.size(), 1u);
  EXPECT_EQ(result.reason, StopReason::kStackCopyTooShort);
}

}  // namespace
}  // namespace jitscope::unwind
