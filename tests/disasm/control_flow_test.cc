// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/disasm/control_flow.h"

#include <gtest/gtest.h>
#include <xbyak/xbyak.h>

#include <string>
#include <vector>

namespace jitscope::disasm {
namespace {

using namespace Xbyak::util;  // NOLINT: register names, as xbyak code is written

// The offsets and text of what FollowControlFlow reached, then the offsets that did not decode.
std::string Reached(const Xbyak::CodeGenerator& code, uint64_t base) {
  const std::optional<Decoder> decoder = Decoder::Create(Mode::kX86_64);
  EXPECT_TRUE(decoder.has_value());
  const ReachedCode reached =
      FollowControlFlow(*decoder, std::span<const uint8_t>(code.getCode(), code.getSize()), base);
  std::string out;
  for (const Instruction& instruction : reached.instructions) {
    out += std::to_string(instruction.address - base) + " " +
           decoder->Format(instruction, Syntax::kIntel) + "\n";
  }
  for (uint64_t address : reached.undecodable) {
    out += std::to_string(address - base) + " undecodable\n";
  }
  return out;
}

// Code with data beside it, as JIT engines lay it out: bytes between an unconditional jump and
// the next label, a table after the last ret, a call out of the code and an indirect jump. Only
// what flow reaches is decoded; a branch into data is where flow stops.
TEST(FollowControlFlow, DecodesWhatFlowReachesAndNotTheDataBeside) {
  class WithData : public Xbyak::CodeGenerator {
   public:
    WithData() {
      Xbyak::Label after_data, done, helper, table, bad;
      test(edi, edi);              // 0
      jnz(done);                   // 2
      lea(rax, ptr[rip + table]);  // 4: reads the table; flow does not go there
      jmp(after_data);             // 11
      db(0xff);                    // 13: data between code (0xff 0xff is no instruction)
      db(0xff);                    // 14
      L(after_data);               // 15
      call(helper);                // 15
      db(0xe8);                    // 20: call rel32 far past the end: not followed
      dd(0x1000);                  //
      cmp(eax, 1);                 // 25
      je(bad);                     // 28
      L(done);                     // 30
      ret();                       // 30
      L(helper);                   // 31
      xor_(eax, eax);              // 31
      jmp(rax);                    // 33: indirect, not followed
      L(table);                    // 35
      db(0x06);                    // 35: push %es does not exist in 64-bit code
      L(bad);                      // 36
      db(0x06);                    // 36
    }
  };
  EXPECT_EQ(Reached(WithData(), 0x7f0000001000),
            "0 test edi,edi\n"
            "2 jnz 0x7f000000101e\n"
            "4 lea rax,[rip+0x18]\n"
            "11 jmp 0x7f000000100f\n"
            "15 call 0x7f000000101f\n"
            "20 call 0x7f0000002019\n"
            "25 cmp eax,0x1\n"
            "28 jz 0x7f0000001024\n"
            "30 ret\n"
            "31 xor eax,eax\n"
            "33 jmp rax\n"
            "36 undecodable\n");
}

TEST(FollowControlFlow, AnInstructionCutShortByTheEndIsUndecodable) {
  class CutShort : public Xbyak::CodeGenerator {
   public:
    CutShort() {
      nop();
      db(0x48);  // the REX prefix of an instruction that never comes
      db(0xb8);
    }
  };
  EXPECT_EQ(Reached(CutShort(), 0x1000), "0 nop\n1 undecodable\n");
  const std::optional<Decoder> decoder = Decoder::Create(Mode::kX86_64);
  ASSERT_TRUE(decoder.has_value());
  const ReachedCode nothing = FollowControlFlow(*decoder, {}, 0x1000);
  EXPECT_TRUE(nothing.instructions.empty());
  EXPECT_TRUE(nothing.undecodable.empty());
}

}  // namespace
}  // namespace jitscope::disasm
