// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// When the kernel's frame-pointer chain skips the sampled frame's caller (frame_records.h,
// ChainSkipsCaller): by the rules derived from code assembled here with xbyak, at each of its
// instructions, with the stack a sample there would copy.
#include <xbyak/xbyak.h>

#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/disasm/decoder.h"
#include "jitscope/unwind/derived_rules.h"
#include "jitscope/unwind/frame_records.h"

namespace jitscope::unwind {
namespace {

using namespace Xbyak::util;  // NOLINT: register names read like assembly

constexpr uint64_t kBase = 0x700000;
constexpr uint64_t kSp = 0x7ffd0000;          // rsp at the function's entry
constexpr uint64_t kCallerRbp = kSp + 0x100;  // the caller's frame pointer
constexpr uint64_t kCallerReturn = 0x400123;  // the caller's own return address
constexpr int kRbp = 6, kRsp = 7, kPc = 16;   // DWARF numbers (registers.h)

// A function's code, its rules, and a stack as a sample at one of its instructions sees it.
class Sampled {
 public:
  explicit Sampled(const Xbyak::CodeGenerator& code) {
    auto decoder = disasm::Decoder::Create(disasm::Mode::kX86_64);
    const CodeRegion regions[] = {{kBase, {code.getCode(), code.getSize()}}};
    rules_ = DerivedRules::Analyze(*decoder, regions);
  }

  // At the instruction at `offset`, with rsp `depth` bytes below its value at the entry and rbp
  // `rbp`; the words below the entry's rsp (what the code pushed) are `pushed`, the highest first.
  bool At(size_t offset, uint64_t depth, uint64_t rbp, std::vector<uint64_t> pushed = {}) const {
    const CfiRow* row = rules_.FindRow(kBase + offset);
    if (row == nullptr) {
      ADD_FAILURE() << "no rule at +" << offset;
      return false;
    }
    RegisterFile registers = RegisterFile::X86_64();
    registers.Set(kPc, kBase + offset);
    registers.Set(kRsp, kSp - depth);
    registers.Set(kRbp, rbp);
    // The copy from rsp: what was pushed, the return address at the entry's rsp, the caller's
    // frame record above.
    std::string bytes(depth + 0x110, '\0');
    auto put = [&](uint64_t address, uint64_t value) {
      std::memcpy(bytes.data() + (address - (kSp - depth)), &value, 8);
    };
    for (size_t i = 0; i < pushed.size(); ++i) put(kSp - 8 * (i + 1), pushed[i]);
    put(kSp, 0x500000);  // the return address into the caller
    put(kCallerRbp, 0x7ffd0400);
    put(kCallerRbp + 8, kCallerReturn);
    storage_.push_back(std::move(bytes));
    return ChainSkipsCaller(*row, registers, StackMemory(kSp - depth, storage_.back()));
  }

 private:
  DerivedRules rules_;
  mutable std::vector<std::string> storage_;
};

TEST(ChainSkipsCallerTest, AStubThatBuildsNoFrame) {
  Xbyak::CodeGenerator code(4096);
  code.mov(rax, rdi);
  code.ret();
  const Sampled sampled(code);
  EXPECT_TRUE(sampled.At(0, 0, kCallerRbp));
  EXPECT_TRUE(sampled.At(3, 0, kCallerRbp));  // the ret
}

TEST(ChainSkipsCallerTest, AFramePointerFunctionBeforeAndAfterItsFrame) {
  Xbyak::CodeGenerator code(4096);
  code.push(rbp);  // +0
  const size_t pushed = code.getSize();
  code.mov(rbp, rsp);  // +1
  const size_t framed = code.getSize();
  code.sub(rsp, 16);
  const size_t body = code.getSize();
  code.mov(rax, rdi);
  code.add(rsp, 16);
  code.pop(rbp);
  const size_t popped = code.getSize();
  code.ret();
  const Sampled sampled(code);
  const uint64_t frame = kSp - 8;  // rbp once `mov rbp, rsp` ran
  EXPECT_TRUE(sampled.At(0, 0, kCallerRbp));
  // rbp pushed, not yet the frame pointer: the slot holds what rbp holds.
  EXPECT_TRUE(sampled.At(pushed, 8, kCallerRbp, {kCallerRbp}));
  // ... unless the slot holds something else (then rbp is not the caller's: the rule does not
  // say the chain skips it).
  EXPECT_FALSE(sampled.At(pushed, 8, kCallerRbp, {kCallerRbp + 0x40}));
  // rbp is the frame pointer: the chain reads this frame's return address.
  EXPECT_FALSE(sampled.At(framed, 8, frame, {kCallerRbp}));
  EXPECT_FALSE(sampled.At(body, 24, frame, {kCallerRbp}));
  // After `pop rbp`, before the ret.
  EXPECT_TRUE(sampled.At(popped, 0, kCallerRbp));
}

TEST(ChainSkipsCallerTest, RbpWrittenWithoutBeingSavedSaysNothing) {
  Xbyak::CodeGenerator code(4096);
  code.mov(rbp, rdi);
  const size_t written = code.getSize();
  code.mov(rax, rbp);
  code.ret();
  const Sampled sampled(code);
  EXPECT_FALSE(sampled.At(written, 0, 0x1234));
}

}  // namespace
}  // namespace jitscope::unwind
