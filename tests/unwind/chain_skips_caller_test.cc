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
#include "unwind/dwarf_registers.h"

namespace jitscope::unwind {
namespace {

using namespace Xbyak::util;  // NOLINT: register names read like assembly

constexpr uint64_t kFunction = 0x700000;
constexpr uint64_t kEntrySp = 0x7ffd0000;           // rsp at the function's entry
constexpr uint64_t kCallersRbp = kEntrySp + 0x100;  // the caller's frame pointer
constexpr uint64_t kCallerReturn = 0x400123;        // the caller's own return address
using namespace test;                               // DWARF register numbers

// A function's code, its rules, and a stack as a sample at one of its instructions sees it.
class Sampled {
 public:
  explicit Sampled(const Xbyak::CodeGenerator& code) {
    auto decoder = disasm::Decoder::Create(disasm::Mode::kX86_64);
    const CodeRegion regions[] = {{kFunction, {code.getCode(), code.getSize()}}};
    rules_ = DerivedRules::Analyze(*decoder, regions);
  }

  // At the instruction at `offset`, with rsp `depth` bytes below its value at the entry and rbp
  // `rbp`; the words below the entry's rsp (what the code pushed) are `pushed`, the highest first.
  bool At(size_t offset, uint64_t depth, uint64_t rbp, std::vector<uint64_t> pushed = {}) const {
    const CfiRow* row = rules_.FindRow(kFunction + offset);
    if (row == nullptr) {
      ADD_FAILURE() << "no rule at +" << offset;
      return false;
    }
    RegisterFile registers = RegisterFile::X86_64();
    registers.Set(kPc, kFunction + offset);
    registers.Set(kRsp, kEntrySp - depth);
    registers.Set(kRbp, rbp);
    // The copy from rsp: what was pushed, the return address at the entry's rsp, the caller's
    // frame record above.
    std::string bytes(depth + 0x110, '\0');
    auto put = [&](uint64_t address, uint64_t value) {
      std::memcpy(bytes.data() + (address - (kEntrySp - depth)), &value, 8);
    };
    for (size_t i = 0; i < pushed.size(); ++i) put(kEntrySp - 8 * (i + 1), pushed[i]);
    put(kEntrySp, 0x500000);  // the return address into the caller
    put(kCallersRbp, 0x7ffd0400);
    put(kCallersRbp + 8, kCallerReturn);
    storage_.push_back(std::move(bytes));
    return ChainSkipsCaller(*row, registers, StackMemory(kEntrySp - depth, storage_.back()));
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
  EXPECT_TRUE(sampled.At(0, 0, kCallersRbp));
  EXPECT_TRUE(sampled.At(3, 0, kCallersRbp));  // the ret
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
  const uint64_t frame = kEntrySp - 8;  // rbp once `mov rbp, rsp` ran
  EXPECT_TRUE(sampled.At(0, 0, kCallersRbp));
  // rbp pushed, not yet the frame pointer: the slot holds what rbp holds.
  EXPECT_TRUE(sampled.At(pushed, 8, kCallersRbp, {kCallersRbp}));
  // ... unless the slot holds something else (then rbp is not the caller's: the rule does not
  // say the chain skips it).
  EXPECT_FALSE(sampled.At(pushed, 8, kCallersRbp, {kCallersRbp + 0x40}));
  // rbp is the frame pointer: the chain reads this frame's return address.
  EXPECT_FALSE(sampled.At(framed, 8, frame, {kCallersRbp}));
  EXPECT_FALSE(sampled.At(body, 24, frame, {kCallersRbp}));
  // After `pop rbp`, before the ret.
  EXPECT_TRUE(sampled.At(popped, 0, kCallersRbp));
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
