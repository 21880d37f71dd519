// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The stack-height analysis (derived_rules.h) on code assembled here with xbyak. Each test marks,
// before each instruction, the rule it expects there (or "unknown"); the check then compares every
// byte of every region with the mark of the instruction that covers it, so offsets where no rule
// may be claimed (data, unreached code, conflicting paths) are checked as well.
#include "jitscope/unwind/derived_rules.h"

#include <cstring>

#include <xbyak/xbyak.h>

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/unwind/call_effect.h"
#include "jitscope/unwind/unwinder.h"
#include "unwind/dwarf_registers.h"

namespace jitscope::unwind {
namespace {

using namespace Xbyak::util;  // NOLINT: register names read like assembly

constexpr uint64_t kBase = 0x700000;
using namespace test;  // DWARF register numbers

struct Expected {
  DerivedRule rule;
  Expected(int cfa_register, int64_t cfa_offset) {
    rule.cfa_register = cfa_register;
    rule.cfa_offset = cfa_offset;
  }
  Expected& At(int reg, int32_t offset) {
    rule.saved[static_cast<size_t>(reg)] = {SavedRegister::Where::kAt, offset};
    return *this;
  }
  Expected& Lost(int reg) {
    rule.saved[static_cast<size_t>(reg)] = {SavedRegister::Where::kLost, 0};
    return *this;
  }
  Expected& ReturnAddressAt(int32_t offset) {
    rule.return_address_offset = offset;
    return *this;
  }
};

std::string Describe(const DerivedRule* rule) {
  if (rule == nullptr) return "unknown";
  std::string out =
      "CFA=r" + std::to_string(rule->cfa_register) + "+" + std::to_string(rule->cfa_offset);
  if (rule->return_address_offset != -8) {
    out += " ra@CFA" + std::to_string(rule->return_address_offset);
  }
  for (int reg : kCalleeSavedDwarf) {
    const SavedRegister& s = rule->saved[static_cast<size_t>(reg)];
    if (s.where == SavedRegister::Where::kAt) {
      out += " r" + std::to_string(reg) + "@CFA" + std::to_string(s.offset);
    } else if (s.where == SavedRegister::Where::kLost) {
      out += " r" + std::to_string(reg) + ":lost";
    }
  }
  return out;
}

// An assembler that remembers the rule expected from each point on.
class Code : public Xbyak::CodeGenerator {
 public:
  explicit Code(uint64_t base = kBase) : Xbyak::CodeGenerator(4096), base_(base) {}
  uint64_t base() const { return base_; }
  uint64_t AddressOf(const Xbyak::Label& label) const {
    return base_ + label.getAddress() - getCode();
  }
  // From here to the next mark, every byte has `expected` (nullopt: no rule).
  void Expect(std::optional<Expected> expected) {
    marks_[getSize()] = expected ? std::optional<DerivedRule>(expected->rule) : std::nullopt;
  }
  void Unknown() { Expect(std::nullopt); }
  // Starts a region here (the first one at offset 0); `end` region bytes follow until EndRegion.
  void BeginRegion() { region_begin_ = getSize(); }
  void EndRegion() { regions_.push_back({region_begin_, getSize()}); }

  std::vector<CodeRegion> Regions() {
    if (regions_.empty()) regions_.push_back({0, getSize()});
    std::vector<CodeRegion> regions;
    for (const auto& [begin, end] : regions_) {
      regions.push_back({base_ + begin, std::span<const uint8_t>(getCode() + begin, end - begin)});
    }
    return regions;
  }

  DerivedRules Analyze(CallTargets* targets = nullptr, CodeBlock block = CodeBlock::kOneFunction) {
    const std::vector<CodeRegion> regions = Regions();
    auto decoder = disasm::Decoder::Create(disasm::Mode::kX86_64);
    EXPECT_TRUE(decoder.has_value());
    return DerivedRules::Analyze(*decoder, regions, targets, block);
  }

  // The effect of calling this code at its start.
  std::optional<CallEffect> Effect() {
    const std::vector<CodeRegion> regions = Regions();
    auto decoder = disasm::Decoder::Create(disasm::Mode::kX86_64);
    EXPECT_TRUE(decoder.has_value());
    return CallEffect::Of(*decoder, regions, base_);
  }

  // Every byte of every region against the marks.
  void Check(const DerivedRules& rules) {
    if (regions_.empty()) regions_.push_back({0, getSize()});
    for (const auto& [begin, end] : regions_) {
      for (size_t offset = begin; offset < end; ++offset) {
        auto mark = marks_.upper_bound(offset);
        ASSERT_NE(mark, marks_.begin()) << "no mark before offset " << offset;
        --mark;
        const DerivedRule* found = rules.Find(base_ + offset);
        const std::string expected = mark->second ? Describe(&*mark->second) : "unknown";
        EXPECT_EQ(Describe(found), expected) << "at offset " << offset;
        if (found != nullptr) {
          const CfiRow* row = rules.FindRow(base_ + offset);
          ASSERT_NE(row, nullptr);
          EXPECT_EQ(row->return_address_register, 16);
        }
      }
    }
  }

  void AnalyzeAndCheck(CallTargets* targets = nullptr) { Check(Analyze(targets)); }

 private:
  uint64_t base_;
  std::map<size_t, std::optional<DerivedRule>> marks_;
  std::vector<std::pair<size_t, size_t>> regions_;
  size_t region_begin_ = 0;
};

TEST(DerivedRulesTest, LeafCodeThatNeverTouchesTheStack) {
  Code a;
  a.Expect(Expected(kRsp, 8));
  a.mov(rax, rdi);
  a.add(rax, 1);
  a.imul(rax, rsi);
  a.ret();
  a.AnalyzeAndCheck();
}

TEST(DerivedRulesTest, PushAndPopRuns) {
  Code a;
  a.Expect(Expected(kRsp, 8));
  a.push(rbx);
  a.Expect(Expected(kRsp, 16).At(kRbx, -16));
  a.push(r12);
  a.Expect(Expected(kRsp, 24).At(kRbx, -16).At(kR12, -24));
  a.push(rax);  // not a callee-saved register: only the height changes
  a.Expect(Expected(kRsp, 32).At(kRbx, -16).At(kR12, -24));
  a.mov(rbx, rdi);
  a.mov(r12, rsi);
  a.pop(rax);
  a.Expect(Expected(kRsp, 24).At(kRbx, -16).At(kR12, -24));
  a.pop(r12);
  a.Expect(Expected(kRsp, 16).At(kRbx, -16));
  a.pop(rbx);
  a.Expect(Expected(kRsp, 8));
  a.ret();
  a.AnalyzeAndCheck();
}

TEST(DerivedRulesTest, SubRspPrologueWithCallsInTheBody) {
  Code a;
  Xbyak::Label callee;
  a.Expect(Expected(kRsp, 8));
  a.push(rbx);
  a.Expect(Expected(kRsp, 16).At(kRbx, -16));
  a.sub(rsp, 0x40);
  a.Expect(Expected(kRsp, 0x50).At(kRbx, -16));
  a.mov(a.qword[rsp + 8], rdi);
  a.call(a.qword[r11]);
  const size_t after_first_call = a.getSize();
  a.mov(rbx, rax);
  a.call(callee);  // a direct call inside the region: not followed, it returns here
  const size_t after_second_call = a.getSize();
  a.add(rsp, 0x40);
  a.Expect(Expected(kRsp, 16).At(kRbx, -16));
  a.pop(rbx);
  a.Expect(Expected(kRsp, 8));
  a.ret();
  // The callee is reached only by a call: the analysis of this function does not claim it.
  a.Unknown();
  a.L(callee);
  a.ret();
  const DerivedRules rules = a.Analyze();
  a.Check(rules);
  EXPECT_TRUE(rules.IsReturnAddress(kBase + after_first_call));
  EXPECT_TRUE(rules.IsReturnAddress(kBase + after_second_call));
  EXPECT_FALSE(rules.IsReturnAddress(kBase + after_first_call + 1));
  EXPECT_FALSE(rules.IsReturnAddress(kBase));
}

// push rbp; mov rbp, rsp; push rbx, each followed by the rule expected after it.
void EmitRbpFrameSavingRbx(Code& a) {
  a.Expect(Expected(kRsp, 8));
  a.push(rbp);
  a.Expect(Expected(kRsp, 16).At(kRbp, -16));
  a.mov(rbp, rsp);
  // From here the CFA is rbp's, as compilers' CFI has it in frame-pointer code.
  a.Expect(Expected(kRbp, 16).At(kRbp, -16));
  a.push(rbx);
  a.Expect(Expected(kRbp, 16).At(kRbp, -16).At(kRbx, -24));
}

// Its epilogue up to the return: pop rbx; pop rbp, each followed by the rule expected after it.
void EmitRbxAndRbpRestored(Code& a) {
  a.pop(rbx);
  a.Expect(Expected(kRbp, 16).At(kRbp, -16));
  a.pop(rbp);
  a.Expect(Expected(kRsp, 8));
}

TEST(DerivedRulesTest, FramePointerFrames) {
  Code a;
  EmitRbpFrameSavingRbx(a);
  a.sub(rsp, 24);
  a.call(a.qword[r11]);
  a.lea(rsp, a.ptr[rbp - 8]);
  EmitRbxAndRbpRestored(a);
  a.ret();
  a.AnalyzeAndCheck();
}

TEST(DerivedRulesTest, EnterAndLeave) {
  Code a;
  a.Expect(Expected(kRsp, 8));
  a.enter(32, 0);
  a.Expect(Expected(kRbp, 16).At(kRbp, -16));
  a.mov(a.qword[rbp - 8], rdi);
  a.leave();
  a.Expect(Expected(kRsp, 8));
  a.ret();
  a.AnalyzeAndCheck();
}

TEST(DerivedRulesTest, RealignmentKeepsTheCfaOnlyThroughAKeptRsp) {
  Code a;
  a.Expect(Expected(kRsp, 8));
  a.push(rbp);
  a.Expect(Expected(kRsp, 16).At(kRbp, -16));
  a.mov(rbp, rsp);
  // rbp holds CFA - 16, and still does once the realignment leaves rsp unknown.
  a.Expect(Expected(kRbp, 16).At(kRbp, -16));
  a.and_(rsp, -64);
  a.sub(rsp, 128);
  a.call(a.qword[r11]);
  a.mov(rsp, rbp);
  a.pop(rbp);
  a.Expect(Expected(kRsp, 8));
  a.ret();
  a.AnalyzeAndCheck();

  // Without a frame pointer but with rsp kept in r10 the CFA is r10 + 8; with nothing kept it is
  // unknown until rsp is restored.
  Code b;
  b.Expect(Expected(kRsp, 8));
  b.mov(r10, rsp);
  b.and_(rsp, -64);
  b.Expect(Expected(kR10, 8));
  b.vmovdqa64(b.zword[rsp], zmm0);
  b.mov(rsp, r10);
  b.Expect(Expected(kRsp, 8));
  b.ret();
  b.AnalyzeAndCheck();

  Code c;
  c.Expect(Expected(kRsp, 8));
  c.and_(rsp, -64);
  c.Unknown();
  c.push(rax);
  c.pop(rax);
  c.ret();
  c.AnalyzeAndCheck();
}

TEST(DerivedRulesTest, CalleeSavedRegistersSavedByMovesAndLostWithoutASave) {
  Code a;
  a.Expect(Expected(kRsp, 8));
  a.sub(rsp, 24);
  a.Expect(Expected(kRsp, 32));
  a.mov(a.qword[rsp + 8], rbx);  // CFA - 24
  a.Expect(Expected(kRsp, 32).At(kRbx, -24));
  a.mov(rbx, rdi);
  a.mov(r12, rsi);  // r12 never saved: its caller's value is gone
  a.Expect(Expected(kRsp, 32).At(kRbx, -24).Lost(kR12));
  a.mov(rbx, a.qword[rsp + 8]);
  a.Expect(Expected(kRsp, 32).Lost(kR12));
  a.add(rsp, 24);
  a.Expect(Expected(kRsp, 8).Lost(kR12));
  a.ret();
  a.AnalyzeAndCheck();
}

// Padding that writes a register its own value (Mono pads its call sites with lea rbp, [rbp + 0])
// keeps the caller's value there: a callee-saved register it touches is not lost. An lea that
// moves it is a write.
TEST(DerivedRulesTest, PaddingThatWritesARegistersOwnValueKeepsIt) {
  Code a;
  a.Expect(Expected(kRsp, 8));
  a.lea(rbp, a.ptr[rbp]);
  a.mov(rbx, rbx);
  a.lea(r12, a.ptr[r12]);
  a.push(rax);
  a.Expect(Expected(kRsp, 16));
  a.lea(rbp, a.ptr[rbp + 8]);
  a.Expect(Expected(kRsp, 16).Lost(kRbp));
  a.pop(rax);
  a.Expect(Expected(kRsp, 8).Lost(kRbp));
  a.ret();
  a.AnalyzeAndCheck();
}

TEST(DerivedRulesTest, SeveralExitsAndBranchesThatAgree) {
  Code a;
  Xbyak::Label early, loop;
  a.Expect(Expected(kRsp, 8));
  a.test(rdi, rdi);
  a.jz(early, Xbyak::CodeGenerator::T_NEAR);
  a.push(rbx);
  a.Expect(Expected(kRsp, 16).At(kRbx, -16));
  a.mov(rbx, rdi);
  a.L(loop);
  a.dec(rbx);
  a.jnz(loop);
  a.pop(rbx);
  a.Expect(Expected(kRsp, 8));
  a.ret();
  a.L(early);
  a.xor_(eax, eax);
  a.ret();
  a.AnalyzeAndCheck();
}

TEST(DerivedRulesTest, PathsThatMeetWithDifferentHeightsAreUnknown) {
  Code a;
  Xbyak::Label join;
  a.Expect(Expected(kRsp, 8));
  a.test(rdi, rdi);
  a.jz(join);
  a.push(rax);
  a.Expect(Expected(kRsp, 16));
  a.L(join);
  a.Unknown();
  a.nop();
  a.ret();
  a.AnalyzeAndCheck();
}

TEST(DerivedRulesTest, TailJumpsAndDataAfterTheCode) {
  Code a;
  Xbyak::Label elsewhere;
  a.Expect(Expected(kRsp, 8));
  a.push(rbx);
  a.Expect(Expected(kRsp, 16).At(kRbx, -16));
  a.mov(rbx, rdi);
  a.pop(rbx);
  a.Expect(Expected(kRsp, 8));
  a.jmp(elsewhere, Xbyak::CodeGenerator::T_NEAR);  // a tail call out of the region
  // A table after the code, which decodes as a push and a call: never claimed.
  a.Unknown();
  a.db(0x55);
  a.db(0xe8);
  a.dd(0);
  a.dq(0x0123456789abcdefULL);
  a.EndRegion();
  a.L(elsewhere);
  a.ret();
  a.AnalyzeAndCheck();
}

// A switch's cases are entered through a jump table the analysis cannot read: code after a
// flow-ending instruction that no path reaches takes the state of the table jump inside the
// frame, where it holds together in it (a ret finds the return address on top, a tail jump
// leaves it there, flow into known code arrives as that code expects). Padding and the table
// itself get no rule.
TEST(DerivedRulesTest, TheCasesOfASwitchTakeTheTableJumpsFrame) {
  Code a;
  Xbyak::Label table, case0, case1, fallback;
  EmitRbpFrameSavingRbx(a);
  a.cmp(edi, 1);
  a.ja(fallback, Xbyak::CodeGenerator::T_NEAR);
  a.lea(rax, a.ptr[rip + table]);
  a.jmp(a.qword[rax + rdi * 8]);
  a.L(case0);  // reached only through the table
  a.mov(eax, 1);
  EmitRbxAndRbpRestored(a);
  a.ret();
  a.Unknown();
  a.int3();  // padding
  a.int3();
  a.L(case1);  // also: a tail call once the frame is gone
  a.Expect(Expected(kRbp, 16).At(kRbp, -16).At(kRbx, -24));
  a.mov(rax, rsi);
  EmitRbxAndRbpRestored(a);
  a.jmp(rax);
  a.L(fallback);
  a.Expect(Expected(kRbp, 16).At(kRbp, -16).At(kRbx, -24));
  a.xor_(eax, eax);
  EmitRbxAndRbpRestored(a);
  a.ret();
  a.Unknown();
  a.align(8);
  // The table, as the code's own addresses (the base the test gives them, not xbyak's buffer's,
  // so its bytes are the same at every run): data, which does not decode from its start.
  a.L(table);
  a.dq(a.AddressOf(case0));
  a.dq(a.AddressOf(case1));
  a.AnalyzeAndCheck();
}

// Up to the join of a switch on edi whose case 0 is reached only through its table and zeroes
// rcx, and whose other case both through it and by falling through (edi above 1), in the frame
// EmitRbpFrameSavingRbx builds.
struct RejoiningSwitch {
  Xbyak::Label table, case0, other, join;
  const Expected framed = Expected(kRbp, 16).At(kRbp, -16).At(kRbx, -24);

  void EmitCasesUpToTheJoin(Code& a) {
    a.cmp(edi, 1);
    a.ja(other, Xbyak::CodeGenerator::T_NEAR);
    a.lea(rax, a.ptr[rip + table]);
    a.jmp(a.qword[rax + rdi * 8]);
    a.L(case0);
    a.Expect(framed);
    a.xor_(ecx, ecx);
    a.jmp(join, Xbyak::CodeGenerator::T_NEAR);
    a.Unknown();
    a.int3();  // padding
    a.L(other);
    a.Expect(framed);
    a.mov(eax, 2);
    a.L(join);
  }
  void EmitTable(Code& a) {
    a.align(8);
    a.L(table);
    a.dq(a.AddressOf(case0));
    a.dq(a.AddressOf(other));
  }
};

// Mono's switches: each case computes into scratch registers and rejoins the function's other
// paths, where those registers hold other values (here rcx: a height on the path that falls
// through, zero in the case). The case holds together in the table jump's frame, but arriving at
// the join would change what the analysis knows there: it is merged at the join, and the analysis
// runs on from it, so that the case has the frame's rule and the join keeps only what holds on
// both paths (its rule does not depend on rcx).
TEST(DerivedRulesTest, ACaseThatRejoinsWithOtherScratchValuesIsMergedWhereItJoins) {
  Code a;
  RejoiningSwitch s;
  EmitRbpFrameSavingRbx(a);
  a.lea(rcx, a.ptr[rsp - 8]);
  s.EmitCasesUpToTheJoin(a);
  a.lea(rsp, a.ptr[rbp - 8]);
  EmitRbxAndRbpRestored(a);
  a.ret();
  a.Unknown();
  s.EmitTable(a);
  a.AnalyzeAndCheck();
}

// The same, where the code after the join does depend on what the case changed: it restores rsp
// from rcx. Merged, rsp is unknown there, so `pop rbx` may not restore rbx (the rule gives it up:
// lost) and `pop rbp` leaves rbp unknown, and the code after it has no rule; without the case,
// the path that falls through gave them the rules of an epilogue, which would be wrong for a
// sample the case led there.
TEST(DerivedRulesTest, WhatACaseChangesIsForgottenAfterTheJoin) {
  Code a;
  RejoiningSwitch s;
  EmitRbpFrameSavingRbx(a);
  a.mov(rcx, rsp);
  s.EmitCasesUpToTheJoin(a);
  a.mov(rsp, rcx);
  a.pop(rbx);
  a.Expect(Expected(kRbp, 16).At(kRbp, -16).Lost(kRbx));
  a.pop(rbp);
  a.Unknown();
  a.ret();
  s.EmitTable(a);
  a.AnalyzeAndCheck();
}

// V8's baseline code of a generator (an async function) resumes through a table of resume
// points, and leaves through a builtin that tears its frame down (BaselineLeaveFrame): a jump out
// of the code with the frame still up. A resume point that leaves through the same builtin in the
// frame the code the analysis reached leaves it in (the builtin goes by the frame pointer, so
// where rsp is may differ) holds together as a case, and the call it makes ends at a return
// address the walk can check; one that leaves with another frame, or through another builtin
// with its frame up, is no case.
TEST(DerivedRulesTest, ACaseMayLeaveWhereTheFunctionLeavesWithTheSameFrame) {
  Code a;
  Xbyak::Label resume, table;
  constexpr uint64_t kLeaveFrame = kBase + 0x100000;  // the builtin, outside the code
  const auto jmp_to = [&a](uint64_t target) {
    a.db(0xe9);
    a.dd(static_cast<uint32_t>(target - (a.base() + a.getSize() + 4)));
  };
  a.Expect(Expected(kRsp, 8));
  a.push(rbp);
  a.Expect(Expected(kRsp, 16).At(kRbp, -16));
  a.mov(rbp, rsp);
  const Expected framed = Expected(kRbp, 16).At(kRbp, -16);
  a.Expect(framed);
  a.sub(rsp, 0x20);
  a.test(rdi, rdi);
  a.jne(resume, Xbyak::CodeGenerator::T_NEAR);
  a.call(a.qword[r11]);
  jmp_to(kLeaveFrame);
  a.L(resume);
  a.jmp(a.qword[r12 + r9 * 8]);
  a.Unknown();
  a.int3();
  a.Expect(framed);  // a resume point
  a.call(a.qword[r11]);
  const uint64_t after_call = a.base() + a.getSize();
  a.mov(rdx, a.qword[rbp - 0x18]);
  a.push(rdx);  // an argument of the builtin: rsp is not where the function leaves with it
  jmp_to(kLeaveFrame);
  a.Unknown();
  a.int3();
  a.lea(rbp, a.ptr[rsp + 8]);  // leaves with a frame pointer the function never has
  jmp_to(kLeaveFrame);
  a.int3();
  a.mov(rax, rdx);  // leaves through another builtin, with its frame up
  jmp_to(kLeaveFrame + 0x40);
  a.int3();
  a.L(table);
  const DerivedRules rules = a.Analyze();
  a.Check(rules);
  EXPECT_TRUE(rules.IsReturnAddress(after_call));
}

// push rbx, then a jump through `table` for edi <= 1, to `fallback` above: the table jump's state
// is a frame with rbx saved at CFA - 16.
void EmitTableJumpWithRbxSaved(Code& a, Xbyak::Label& table, Xbyak::Label& fallback) {
  a.Expect(Expected(kRsp, 8));
  a.push(rbx);
  a.Expect(Expected(kRsp, 16).At(kRbx, -16));
  a.cmp(edi, 1);
  a.ja(fallback);
  a.lea(rax, a.ptr[rip + table]);
  a.jmp(a.qword[rax + rdi * 8]);
}

// Unreached code that does not hold together in the table jump's state keeps no rule: here a
// ret that would not find the return address on top, and code that runs off the region's end.
TEST(DerivedRulesTest, UnreachedCodeThatDoesNotFitTheTableJumpHasNoRule) {
  Code a;
  Xbyak::Label table, fallback;
  EmitTableJumpWithRbxSaved(a, table, fallback);
  a.L(fallback);
  a.pop(rbx);
  a.Expect(Expected(kRsp, 8));
  a.ret();
  a.Unknown();
  a.pop(rax);  // two pops from the table jump's state: the ret would not return to the caller
  a.pop(rcx);
  a.ret();
  a.mov(eax, 2);  // and this runs off the end
  a.L(table);
  a.AnalyzeAndCheck();
}

// Unreached bytes that would decode over code the analysis reached (here the start of a 10-byte
// mov whose immediate covers the fallback's first instructions) are not a case: taken for one,
// they would claim the bytes of `pop rax` with another rule, and a conflict leaves none.
TEST(DerivedRulesTest, UnreachedCodeOverlappingReachedCodeIsNoCase) {
  Code a;
  Xbyak::Label table, fallback;
  EmitTableJumpWithRbxSaved(a, table, fallback);
  a.Unknown();
  a.db(0x48);  // mov rax, imm64: its 8 bytes of immediate are the fallback's first 8
  a.db(0xb8);
  a.L(fallback);
  a.Expect(Expected(kRsp, 16).At(kRbx, -16));
  a.push(rax);
  a.Expect(Expected(kRsp, 24).At(kRbx, -16));
  a.pop(rax);
  a.Expect(Expected(kRsp, 16).At(kRbx, -16));
  for (int i = 0; i < 6; ++i) a.nop();
  a.pop(rbx);  // where the mov would end, in the state it would arrive in
  a.Expect(Expected(kRsp, 8));
  a.ret();
  a.Unknown();
  a.L(table);
  a.AnalyzeAndCheck();
}

TEST(DerivedRulesTest, AColdRegionEnteredByAJumpInheritsTheHotRegionsHeight) {
  Code a;
  Xbyak::Label slow, back;
  a.Expect(Expected(kRsp, 8));
  a.push(rbx);
  a.Expect(Expected(kRsp, 16).At(kRbx, -16));
  a.sub(rsp, 16);
  a.Expect(Expected(kRsp, 32).At(kRbx, -16));
  a.test(rdi, rdi);
  a.jz(slow, Xbyak::CodeGenerator::T_NEAR);
  a.L(back);
  a.add(rsp, 16);
  a.Expect(Expected(kRsp, 16).At(kRbx, -16));
  a.pop(rbx);
  a.Expect(Expected(kRsp, 8));
  a.ret();
  a.EndRegion();
  a.Unknown();
  for (int i = 0; i < 16; ++i) a.int3();  // between the regions: in neither
  a.BeginRegion();
  a.L(slow);
  a.Expect(Expected(kRsp, 32).At(kRbx, -16));
  a.call(a.qword[r11]);
  a.jmp(back, Xbyak::CodeGenerator::T_NEAR);
  a.EndRegion();
  a.AnalyzeAndCheck();
}

TEST(DerivedRulesTest, CodeThatRunsOffItsRegion) {
  Code a;
  a.Expect(Expected(kRsp, 8));
  a.push(rbx);
  a.Expect(Expected(kRsp, 16).At(kRbx, -16));
  a.mov(rax, rdi);
  // The region ends inside this instruction: its bytes do not decode.
  a.Unknown();
  a.mov(rax, 0x1122334455667788ULL);
  const size_t cut = a.getSize() - 3;
  a.ret();
  std::vector<CodeRegion> regions = {{kBase, std::span<const uint8_t>(a.getCode(), cut)}};
  auto decoder = disasm::Decoder::Create(disasm::Mode::kX86_64);
  ASSERT_TRUE(decoder.has_value());
  const DerivedRules rules = DerivedRules::Analyze(*decoder, regions);
  EXPECT_EQ(Describe(rules.Find(kBase)), "CFA=r7+8");
  for (size_t offset = 1; offset < 4; ++offset) {
    EXPECT_EQ(Describe(rules.Find(kBase + offset)), "CFA=r7+16 r3@CFA-16") << offset;
  }
  for (size_t offset = 4; offset < cut; ++offset) {
    EXPECT_EQ(rules.Find(kBase + offset), nullptr) << offset;
  }
  EXPECT_EQ(rules.Find(kBase + cut), nullptr);
}

TEST(DerivedRulesTest, TheReturnAddressOverwrittenOrPoppedEndsTheRules) {
  Code a;
  a.Expect(Expected(kRsp, 8));
  a.mov(a.qword[rsp], rdi);  // the return address is gone
  a.Unknown();
  a.ret();
  a.AnalyzeAndCheck();

  Code b;
  b.Expect(Expected(kRsp, 8));
  b.pop(rax);
  b.Unknown();
  b.jmp(rax);
  b.AnalyzeAndCheck();
}

// V8's Builtins_CallApiCallback (in the node binary, without CFI): it pops its return address,
// pushes the API call's arguments where it was, pushes it back below them and builds a frame on
// top. The return address then has a slot of its own, which the rules name, and the walk reads.
TEST(DerivedRulesTest, AReturnAddressPushedBackBelowTheArgumentsHasItsSlot) {
  Code a;
  a.Expect(Expected(kRsp, 8));
  a.pop(rax);
  a.Unknown();  // held in rax only
  for (int i = 0; i < 6; ++i) a.push(r10);
  a.mov(rbx, rsp);
  a.push(rax);
  a.Expect(Expected(kRsp, 56).ReturnAddressAt(-56).Lost(kRbx));  // rbx: written, not saved
  a.push(rbp);
  a.Expect(Expected(kRsp, 64).ReturnAddressAt(-56).At(kRbp, -64).Lost(kRbx));
  a.mov(rbp, rsp);
  a.Expect(Expected(kRbp, 64).ReturnAddressAt(-56).At(kRbp, -64).Lost(kRbx));
  a.push(6);
  a.sub(rsp, 0x20);
  a.and_(rsp, -16);
  a.call(rdx);
  const size_t after_call = a.getSize();
  a.leave();
  a.Expect(Expected(kRsp, 56).ReturnAddressAt(-56).Lost(kRbx));
  a.pop(rcx);
  a.Unknown();
  a.add(rsp, rbx);
  a.push(rcx);
  a.ret();
  const DerivedRules rules = a.Analyze();
  a.Check(rules);
  EXPECT_TRUE(rules.IsReturnAddress(kBase + after_call));
  // As a CFI row: the return address read at CFA - 56.
  const CfiRow* row = rules.FindRow(kBase + after_call);
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->registers[16].form.offset, static_cast<uint64_t>(-56));
}

TEST(DerivedRulesTest, HostileCodeEndsBounded) {
  // A jump to itself, a jump back into the middle of an instruction (whose immediate decodes
  // differently), and bytes that do not decode.
  const std::vector<uint8_t> bytes = {0x48, 0x85, 0xff,              // 0: test rdi, rdi
                                      0x74, 0xfe,                    // 3: jz 3
                                      0xb8, 0xeb, 0xff, 0xc3, 0x90,  // 5: mov eax, 0x90c3ffeb
                                      0xeb, 0xfa,   // 10: jmp 6 (jmp -1, inc ebx, ...)
                                      0x0f, 0xff};  // 12: cut short
  std::vector<CodeRegion> regions = {{kBase, bytes}};
  auto decoder = disasm::Decoder::Create(disasm::Mode::kX86_64);
  ASSERT_TRUE(decoder.has_value());
  const DerivedRules rules = DerivedRules::Analyze(*decoder, regions);
  EXPECT_EQ(Describe(rules.Find(kBase)), "CFA=r7+8");
  EXPECT_EQ(Describe(rules.Find(kBase + 5)), "CFA=r7+8");
  EXPECT_EQ(rules.Find(kBase + 12), nullptr);
  EXPECT_LE(rules.instructions(), bytes.size());
}

// A direct call to an address outside the buffer xbyak assembles into: e8 and the target
// relative to where this code is said to sit.
void CallAt(Code& code, uint64_t target) {
  const uint64_t end = code.base() + code.getSize() + 5;
  code.db(0xe8);
  code.dd(static_cast<uint32_t>(target - end));
}

// V8's BaselineOutOfLinePrologue, cut down: it pops its return address, builds its caller's frame
// and returns with the stack moved; its slow path calls the runtime in a frame of its own; one path
// drops the return address and enters other code by a `ret`.
constexpr uint64_t kPrologue = 0x900000;
void AssembleOutOfLinePrologue(Code& p) {
  Xbyak::Label slow, elsewhere;
  p.test(cl, 0x3e);
  p.jnz(elsewhere, Xbyak::CodeGenerator::T_NEAR);
  p.pop(r15);  // the return address
  p.push(rbp);
  p.mov(rbp, rsp);
  p.push(rsi);
  p.push(rdi);
  p.push(rax);
  p.cmp(r10, p.qword[r13 - 0x60]);
  p.jb(slow, Xbyak::CodeGenerator::T_NEAR);
  p.push(r15);
  p.ret();
  p.L(slow);
  p.push(r15);
  p.push(rbp);
  p.mov(rbp, rsp);
  p.push(0x2c);
  p.call(p.qword[r13 + 8]);
  p.mov(rsp, rbp);
  p.pop(rbp);
  p.ret();
  p.L(elsewhere);
  p.add(rsp, 8);  // the return address dropped
  p.push(rbp);
  p.mov(rbp, rsp);
  p.call(p.qword[r13]);
  p.mov(rsp, rbp);
  p.pop(rbp);
  p.mov(rcx, p.qword[rcx + 0x27]);
  p.push(rcx);
  p.ret();  // into the code rcx names, not back to the caller
}

TEST(CallEffectTest, AnOutOfLinePrologueMovesTheStackAndLeavesRbpItsCallersFramePointer) {
  Code p(kPrologue);
  AssembleOutOfLinePrologue(p);
  const std::optional<CallEffect> effect = p.Effect();
  ASSERT_TRUE(effect.has_value());
  // rbp, rsi, rdi and rax pushed below the callee's CFA, which is the caller's rsp at the call.
  EXPECT_EQ(effect->stack_pointer_change(), -32);
  EXPECT_EQ(effect->at_return().rel[stack_state::kRbp], -8);
  EXPECT_EQ(effect->at_return().saved[stack_state::kRbp],
            (SavedRegister{SavedRegister::Where::kAt, -8}));
}

TEST(CallEffectTest, OnlyADepartureFromTheAbiIsAnEffect) {
  // Callee-saved registers saved and restored, the stack balanced: the ABI's, no effect.
  Code a(kPrologue);
  a.push(rbx);
  a.push(rbp);
  a.mov(rbp, rsp);
  a.mov(rbx, rdi);
  a.pop(rbp);
  a.pop(rbx);
  a.ret();
  EXPECT_FALSE(a.Effect().has_value());

  // A callee that pops its arguments (ret 16) moves its caller's stack.
  Code b(kPrologue);
  b.mov(rax, b.qword[rsp + 8]);
  b.ret(16);
  const std::optional<CallEffect> pops = b.Effect();
  ASSERT_TRUE(pops.has_value());
  EXPECT_EQ(pops->stack_pointer_change(), 16);
}

// A block of HotSpot stubs as its perf map names them, one `StubRoutines (1)` (the shapes of
// OpenJDK 17's, x86-64): the forward-exception stub at the start, which pops its return address
// and jumps to the handler (an indirect jump, as a switch's table jump looks, but no case of a
// switch holds together after it); the
// call stub right after it, which every Java thread's stack passes through (an rbp frame, the
// caller's registers stored in it, the Java arguments pushed in a loop, then a call into Java);
// the catch-exception stub, which jumps back to the call stub's return address; padding; a fence
// stub; blocks of a function's middle; code that runs into bytes that are not code. Analysed as
// one function, only the first stub has rules; as functions laid end to end, the call stub and
// the fence too, and the call stub's return address is one its analysis found. The
// catch-exception stub's own state at its start contradicts the call stub's where it jumps, the
// middle blocks do not hold together as functions, and the last is not code: none of them gets a
// rule, nor changes the call stub's.
TEST(DerivedRulesTest, StubsLaidEndToEndAreAnalysedFromEachEntry) {
  Code a;
  a.mov(rsi, a.qword[rsp]);  // forward_exception
  a.mov(rdi, r15);
  a.sub(rsp, 8);
  a.call(a.qword[r11]);
  const uint64_t forward_call_end = kBase + a.getSize();
  a.add(rsp, 8);
  a.mov(rbx, rax);
  a.pop(rdx);  // the return address, handed to the exception handler
  a.jmp(rbx);

  Xbyak::Label no_arguments, next_argument, return_address, exit, long_result;
  const uint64_t call_stub = kBase + a.getSize();
  a.push(rbp);
  a.mov(rbp, rsp);
  a.sub(rsp, 0x60);
  a.mov(a.qword[rbp - 0x8], r9);
  a.mov(a.qword[rbp - 0x10], r8);
  a.mov(a.qword[rbp - 0x38], rbx);
  a.mov(a.qword[rbp - 0x40], r12);
  a.mov(a.qword[rbp - 0x58], r15);
  a.mov(r15, a.qword[rbp + 0x18]);
  a.mov(ecx, a.dword[rbp + 0x10]);
  a.test(ecx, ecx);
  a.je(no_arguments, Xbyak::CodeGenerator::T_NEAR);
  a.mov(rdx, a.qword[rbp - 0x8]);
  a.mov(esi, ecx);
  a.L(next_argument);
  const uint64_t in_loop = kBase + a.getSize();
  a.mov(rax, a.qword[rdx]);
  a.add(rdx, 8);
  a.dec(esi);
  a.push(rax);
  a.jne(next_argument);
  a.L(no_arguments);
  a.mov(rbx, a.qword[rbp - 0x18]);
  a.mov(rsi, a.qword[rbp - 0x10]);
  a.mov(r13, rsp);
  a.call(rsi);
  a.L(return_address);
  a.mov(rdi, a.qword[rbp - 0x28]);
  a.cmp(esi, 0xb);
  a.je(long_result);
  a.mov(a.dword[rdi], eax);
  a.L(exit);
  a.lea(rsp, a.ptr[rbp - 0x60]);
  a.mov(r15, a.qword[rbp - 0x58]);
  a.mov(r12, a.qword[rbp - 0x40]);
  a.mov(rbx, a.qword[rbp - 0x38]);
  a.add(rsp, 0x60);
  a.pop(rbp);
  a.ret();
  a.L(long_result);
  a.mov(a.qword[rdi], rax);
  a.jmp(exit);

  const uint64_t catch_exception = kBase + a.getSize();
  a.mov(a.qword[r15 + 8], rax);
  a.mov(r10, 0x12345678);
  a.mov(a.qword[r15 + 0x10], r10);
  a.jmp(return_address, Xbyak::CodeGenerator::T_NEAR);

  a.nop(13);  // padding to the next stub
  const uint64_t fence = kBase + a.getSize();
  a.lock();
  a.add(a.dword[rsp - 0x40], 0);
  a.ret();

  // Two blocks of a function's middle, reached only through a table (a generator's resume points
  // in V8's baseline code): one leaves through a jump to a builtin and never returns, one tears
  // down a frame the entry's state does not have before its ret.
  const uint64_t middles = kBase + a.getSize();
  a.mov(rax, a.qword[rbp - 0x18]);
  a.db(0xe9);  // jmp to a builtin outside the block
  a.dd(static_cast<uint32_t>(0x100000 - (a.getSize() + 4)));
  a.add(rsp, 0x20);
  a.pop(rbx);
  a.ret();

  a.mov(eax, 1);  // code that runs into bytes that are not code
  a.db(0x06);     // push es: no such instruction in 64-bit mode
  a.ret();

  const CodeRegion region{kBase, std::span<const uint8_t>(a.getCode(), a.getSize())};
  auto decoder = disasm::Decoder::Create(disasm::Mode::kX86_64);
  ASSERT_TRUE(decoder.has_value());
  const DerivedRule at_entry = Expected(kRsp, 8).rule;
  const Expected in_frame =
      Expected(kRbp, 16).At(kRbp, -16).At(kRbx, -0x48).At(kR12, -0x50).At(kR15, -0x68);
  const DerivedRule in_call_stub = in_frame.rule;
  constexpr int kR13 = 13;  // the sender's sp, from the call on: the caller's value is lost
  const DerivedRule after_call = Expected(in_frame).Lost(kR13).rule;

  const DerivedRules one = DerivedRules::Analyze(*decoder, {&region, 1});
  EXPECT_EQ(Describe(one.Find(kBase)), Describe(&at_entry));
  EXPECT_TRUE(one.IsReturnAddress(forward_call_end));
  EXPECT_EQ(Describe(one.Find(call_stub)), "unknown");
  EXPECT_EQ(Describe(one.Find(a.AddressOf(return_address))), "unknown");
  EXPECT_FALSE(one.IsReturnAddress(a.AddressOf(return_address)));

  const DerivedRules stubs =
      DerivedRules::Analyze(*decoder, {&region, 1}, nullptr, CodeBlock::kFunctionsEndToEnd);
  EXPECT_EQ(Describe(stubs.Find(kBase)), Describe(&at_entry));
  EXPECT_TRUE(stubs.IsReturnAddress(forward_call_end));
  EXPECT_EQ(Describe(stubs.Find(call_stub)), Describe(&at_entry));
  EXPECT_EQ(Describe(stubs.Find(in_loop)), Describe(&in_call_stub));
  EXPECT_EQ(Describe(stubs.Find(a.AddressOf(return_address))), Describe(&after_call));
  EXPECT_EQ(Describe(stubs.Find(a.AddressOf(long_result))), Describe(&after_call));
  EXPECT_TRUE(stubs.IsReturnAddress(a.AddressOf(return_address)));
  for (uint64_t pc = catch_exception; pc < fence; ++pc) {
    EXPECT_EQ(stubs.Find(pc), nullptr) << "catch_exception or padding, at +" << pc - kBase;
  }
  EXPECT_EQ(Describe(stubs.Find(fence)), Describe(&at_entry));
  EXPECT_EQ(Describe(stubs.Find(middles - 1)), Describe(&at_entry)) << "the fence's ret";
  for (uint64_t pc = middles; pc < kBase + a.getSize(); ++pc) {
    EXPECT_EQ(stubs.Find(pc), nullptr) << "at +" << pc - kBase;
  }
}

// HotSpot makes compiled code not entrant, once better code replaces it, by writing a 5-byte jmp
// to a VM stub over the first instruction of its verified entry, a 7-byte stack bang (mov
// [rsp - 0x14000], eax); frames already in the code stay, and return into it. Read from the
// process after the patch (a perf map's code), the code from its start reaches the jump and
// nothing else: analysed as functions laid end to end, the function's code is found again where
// it resumes after what is left of the bang (bytes that do not decode, or that do), and its calls
// and rules are the unpatched code's. Analysed as one function (a JIT file's code), nothing
// changes. Both shapes: an instance method's (the inline-cache check first) and a static one's.
TEST(DerivedRulesTest, CodeAfterAJumpPatchedOverItsEntryIsAnalysedWhereItResumes) {
  struct Shape {
    bool inline_cache_check;
    std::array<uint8_t, 2> bang_tail;
  };
  for (const Shape shape : {Shape{true, {0xfe, 0xff}}, Shape{false, {0xfd, 0xff}}}) {
    SCOPED_TRACE(shape.inline_cache_check ? "instance method" : "static method");
    Code a;
    a.Expect(Expected(kRsp, 8));
    if (shape.inline_cache_check) {
      a.mov(r10d, a.dword[rsi + 8]);
      a.shl(r10, 3);
      a.cmp(rax, r10);
      a.db(0x0f);  // jne to the inline-cache miss stub, outside the code
      a.db(0x85);
      a.dd(0x10000);
      a.nop(4);
    }
    a.db(0xe9);  // jmp to the VM's stub: the patch
    a.dd(0x20000);
    a.Unknown();
    a.db(shape.bang_tail[0]);
    a.db(shape.bang_tail[1]);
    const uint64_t resumes = kBase + a.getSize();
    a.Expect(Expected(kRsp, 8));
    a.push(rbp);
    a.Expect(Expected(kRsp, 16).At(kRbp, -16));
    a.sub(rsp, 0x30);
    a.Expect(Expected(kRsp, 0x40).At(kRbp, -16));
    a.mov(a.qword[rsp + 8], rdx);
    a.db(0xe8);  // call the callee, outside the code
    a.dd(0x30000);
    const uint64_t return_address = kBase + a.getSize();
    a.add(rax, 1);
    a.add(rsp, 0x30);
    a.Expect(Expected(kRsp, 16).At(kRbp, -16));
    a.pop(rbp);
    a.Expect(Expected(kRsp, 8));
    a.ret();

    const DerivedRules laid_end_to_end = a.Analyze(nullptr, CodeBlock::kFunctionsEndToEnd);
    a.Check(laid_end_to_end);
    EXPECT_TRUE(laid_end_to_end.IsReturnAddress(return_address));

    const DerivedRules one = a.Analyze();
    EXPECT_EQ(one.Find(resumes), nullptr);
    EXPECT_EQ(one.Find(return_address), nullptr);
    EXPECT_FALSE(one.IsReturnAddress(return_address));
  }
}

TEST(CallEffectTest, UnknownWhereTheCalleeMayReturnAnotherWay) {
  // A tail jump with the return address still on the stack: whatever it reaches returns.
  Code a(kPrologue);
  a.push(rbp);
  a.mov(rbp, rsp);
  a.pop(rbp);
  a.pop(rbp);  // not the ABI's: rsp moves
  a.push(rax);
  a.jmp(a.qword[r11]);
  EXPECT_FALSE(a.Effect().has_value());

  // Returns that disagree on the stack pointer.
  Code b(kPrologue);
  Xbyak::Label other;
  b.test(rdi, rdi);
  b.jz(other);
  b.pop(r15);
  b.push(rbp);
  b.push(r15);
  b.ret();
  b.L(other);
  b.ret(8);
  EXPECT_FALSE(b.Effect().has_value());

  // A write into the caller's frame.
  Code c(kPrologue);
  c.pop(r15);
  c.push(rbp);
  c.mov(c.qword[rsp + 8], rax);
  c.push(r15);
  c.ret();
  EXPECT_FALSE(c.Effect().has_value());

  // A return address that leaves through a register the analysis does not follow.
  Code d(kPrologue);
  d.pop(r15);
  d.push(rbp);
  d.xchg(r15, rax);
  d.push(rax);
  d.ret();
  EXPECT_FALSE(d.Effect().has_value());
}

class KnownTargets : public CallTargets {
 public:
  void Add(uint64_t target, std::optional<CallEffect> effect) { effects_[target] = effect; }
  const CallEffect* EffectOf(uint64_t target) override {
    auto it = effects_.find(target);
    return it == effects_.end() || !it->second ? nullptr : &*it->second;
  }

 private:
  std::map<uint64_t, std::optional<CallEffect>> effects_;
};

// Sparkplug's code: a call to the prologue first, then calls whose callees pop the arguments
// pushed for them (taken as balanced, so rsp's height is wrong after them, and the frame pointer
// the prologue built gives the CFA).
void AssembleBaselineCode(Code& a) {
  a.Expect(Expected(kRsp, 8));
  CallAt(a, kPrologue);
  // The prologue kept its return address in r15.
  a.Expect(Expected(kRbp, 16).At(kRbp, -16).Lost(kR15));
  a.push(rax);
  a.push(rax);
  a.push(a.qword[rbp - 8]);
  CallAt(a, 0xa00000);  // pops the argument: not known here
  a.mov(a.qword[rbp - 0x30], rax);
  a.mov(rsp, rbp);
  a.pop(rbp);
  a.Expect(Expected(kRsp, 8).Lost(kR15));
  a.ret();
}

TEST(DerivedRulesTest, ACallWithAKnownEffectCarriesTheFramePointerItBuilds) {
  Code p(kPrologue);
  AssembleOutOfLinePrologue(p);
  KnownTargets targets;
  targets.Add(kPrologue, p.Effect());
  Code a;
  AssembleBaselineCode(a);
  a.AnalyzeAndCheck(&targets);
}

TEST(DerivedRulesTest, WithoutTheCallsEffectTheHeightsAfterItAreWrong) {
  // Taken as balanced, the prologue's call leaves rbp unknown and rsp's height 32 bytes short:
  // the rules claimed after it are wrong (the CFA is rbp + 16 there), which is what the effect
  // mends; none is claimed once rsp is taken from rbp.
  Code a;
  a.Expect(Expected(kRsp, 8));
  CallAt(a, kPrologue);
  a.push(rax);
  a.Expect(Expected(kRsp, 16));
  a.push(rax);
  a.Expect(Expected(kRsp, 24));
  a.push(a.qword[rbp - 8]);
  a.Expect(Expected(kRsp, 32));
  CallAt(a, 0xa00000);
  a.mov(a.qword[rbp - 0x30], rax);
  a.mov(rsp, rbp);
  a.Unknown();
  a.pop(rbp);
  a.ret();
  KnownTargets none;
  a.AnalyzeAndCheck(&none);
}

// An .eh_frame an engine might supply, with pc-relative FDE pointers, for the code at `code`
// (`size` bytes) when the table lies at `table`: a CIE whose initial rules are those at a call
// (CFA = rsp + 8, return address at CFA - 8), then one FDE whose `instructions` follow.
std::vector<uint8_t> EhFrame(uint64_t table, uint64_t code, uint32_t size,
                             const std::vector<uint8_t>& instructions) {
  std::vector<uint8_t> out;
  auto u32 = [&](uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  auto pad_and_patch_length = [&](size_t start) {
    while ((out.size() - start) % 4 != 0) out.push_back(0);  // DW_CFA_nop
    const auto length = static_cast<uint32_t>(out.size() - start - 4);
    std::memcpy(out.data() + start, &length, 4);
  };
  u32(0);                                                         // the CIE's length, patched
  u32(0);                                                         // CIE id
  out.insert(out.end(), {1, 'z', 'R', 0, 1, 0x78, 16, 1, 0x1b});  // DW_EH_PE_pcrel|sdata4
  out.insert(out.end(), {0x0c, 7, 8, 0x90, 1});  // def_cfa rsp+8; offset r16 at CFA-8
  pad_and_patch_length(0);
  const size_t fde = out.size();
  u32(0);
  u32(static_cast<uint32_t>(out.size() - 0));               // from this field back to the CIE
  u32(static_cast<uint32_t>(code - (table + out.size())));  // pc-relative pc_begin
  u32(size);
  out.push_back(0);  // no augmentation data
  out.insert(out.end(), instructions.begin(), instructions.end());
  pad_and_patch_length(fde);
  return out;
}

// Two JIT functions, each its own code version: outer saves r12 and calls inner, which saves rbx.
// A walk from inside inner recovers outer's frame through inner's derived rules, and stops when a
// return address follows no call that outer's analysis found. With `engine_tables`, inner begins
// with a byte that is no instruction, so the analysis reads none of it, and its engine supplied
// unwind tables for the rest: their rows take the walk through it.
class TwoFunctions : public AddressSpace {
 public:
  explicit TwoFunctions(bool engine_tables = false) {
    Xbyak::Label inner;
    a_.push(r12);
    a_.call(inner);
    after_call_ = a_.getSize();
    a_.pop(r12);
    a_.ret();
    outer_size_ = a_.getSize();
    a_.L(inner);
    if (engine_tables) a_.db(0x06);  // not an instruction in 64-bit mode
    const size_t body = a_.getSize();
    a_.push(rbx);
    a_.sub(rsp, 16);
    sampled_ = a_.getSize();
    a_.mov(rbx, rdi);
    a_.add(rsp, 16);
    a_.pop(rbx);
    a_.ret();
    auto decoder = disasm::Decoder::Create(disasm::Mode::kX86_64);
    const uint8_t* code = a_.getCode();
    const CodeRegion outer[] = {{kBase, std::span<const uint8_t>(code, outer_size_)}};
    const CodeRegion inner_region[] = {
        {kBase + outer_size_,
         std::span<const uint8_t>(code + outer_size_, a_.getSize() - outer_size_)}};
    outer_ = DerivedRules::Analyze(*decoder, outer);
    inner_ = DerivedRules::Analyze(*decoder, inner_region);
    if (!engine_tables) return;
    // After push rbx: CFA = rsp + 16, rbx at CFA - 16; after sub rsp, 16: CFA = rsp + 32.
    const uint64_t table = kBase + 0x1000;
    const auto body_size = static_cast<uint32_t>(a_.getSize() - body);
    auto module = CfiModule::FromEhFrame(
        EhFrame(table, kBase + body, body_size, {0x41, 0x0e, 16, 0x83, 2, 0x44, 0x0e, 32}), table);
    if (module.ok()) tables_ = std::move(*module);
  }
  bool Find(uint64_t pc, ModuleAt& found) override {
    if (pc >= kBase && pc < kBase + outer_size_) {
      found = {nullptr, 0, &outer_};
      return true;
    }
    if (pc >= kBase + outer_size_ && pc < kBase + a_.getSize()) {
      found = {use_tables ? tables_.get() : nullptr, 0, &inner_};
      return true;
    }
    return false;
  }
  uint64_t after_call() const { return kBase + after_call_; }
  uint64_t sampled() const { return kBase + sampled_; }
  const DerivedRules& inner() const { return inner_; }
  CfiModule* tables() const { return tables_.get(); }
  bool use_tables = true;  // hand out the engine's tables, if there are any

 private:
  Code a_;
  size_t after_call_ = 0, outer_size_ = 0, sampled_ = 0;
  DerivedRules outer_, inner_;
  std::unique_ptr<CfiModule> tables_;
};

// Walks `space` from inside inner, whose frame holds 16 bytes of locals, the caller's rbx and
// `return_address`; outer's frame, above it, the caller's r12, then a return address of 0 (the
// end of the stack).
UnwindResult WalkFromInner(TwoFunctions& space, uint64_t return_address) {
  constexpr uint64_t kSp = 0x7ffd0000;
  const uint64_t words[] = {0x1111, 0x2222, 0xbbbb, return_address, 0x1212, 0};
  std::string bytes(sizeof words, '\0');
  std::memcpy(bytes.data(), words, sizeof words);
  RegisterFile registers = RegisterFile::X86_64();
  registers.Set(7, kSp);
  registers.Set(16, space.sampled());
  registers.Set(3, 0x5555);
  UnwindResult result;
  Unwind(registers, StackMemory(kSp, bytes), space, {}, result);
  return result;
}

// The walk from inside inner found inner, then outer, whose return address of 0 ends the stack.
void ExpectInnerThenOuter(const TwoFunctions& space, const UnwindResult& result) {
  ASSERT_EQ(result.frames.size(), 2u);
  EXPECT_EQ(result.frames[0], (UnwoundFrame{space.sampled(), true}));
  EXPECT_EQ(result.frames[1], (UnwoundFrame{space.after_call(), false}));
  EXPECT_EQ(result.reason, StopReason::kOutermost);
}

TEST(DerivedRulesWalkTest, StepsThroughJitFramesAndChecksReturnAddresses) {
  TwoFunctions space;
  UnwindResult result = WalkFromInner(space, space.after_call());
  ExpectInnerThenOuter(space, result);
  EXPECT_EQ(result.steps, (std::array<uint32_t, kRuleSourceCount>{0, 0, 1, 0}));

  // The same stack with a return address one byte off: no call ends there.
  result = WalkFromInner(space, space.after_call() + 1);
  ASSERT_EQ(result.frames.size(), 1u);
  EXPECT_EQ(result.reason, StopReason::kNotAfterCall);
}

TEST(DerivedRulesWalkTest, AnEnginesTablesTakeTheWalkWhereTheAnalysisHasNoRule) {
  TwoFunctions space(/*engine_tables=*/true);
  ASSERT_NE(space.tables(), nullptr);
  EXPECT_EQ(space.inner().Find(space.sampled()), nullptr) << "the analysis reads none of it";
  UnwindResult result = WalkFromInner(space, space.after_call());
  ExpectInnerThenOuter(space, result);
  // One step, by the tables; outer's return address of 0 ends the walk without one.
  EXPECT_EQ(result.steps, (std::array<uint32_t, kRuleSourceCount>{0, 1, 0, 0}));

  space.use_tables = false;
  result = WalkFromInner(space, space.after_call());
  ASSERT_EQ(result.frames.size(), 1u);
  EXPECT_EQ(result.reason, StopReason::kNoRule);
}

}  // namespace
}  // namespace jitscope::unwind
