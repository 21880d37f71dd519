// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Unit tests of jitvm's parts that have exact, small answers: the end-offset line tables (Intel's
// guide, "LineNumberInfo Structure"), first-fit reuse in the code heap, the front end's error
// messages, and the inliner's decisions.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "checker.h"
#include "code_heap.h"
#include "constant_folding.h"
#include "frame_plan.h"
#include "line_table.h"

namespace jitscope::jitvm {
namespace {

std::vector<std::pair<uint32_t, uint32_t>> Pairs(const std::vector<LineEntry>& lines) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (const LineEntry& e : lines) out.emplace_back(e.end_offset, e.line);
  return out;
}

using Table = std::vector<std::pair<uint32_t, uint32_t>>;

TEST(LineTable, EachEntryEndsTheRangeThatTheNextMarkStarts) {
  // Code at [0,1) is line 2, [1,12) line 4, [12,15) line 2, [15,18) line 1, [18,21) line 30:
  // Intel's guide's example, written as "from here on" marks.
  LineTableBuilder builder(0, 2);
  builder.Mark(1, 4);
  builder.Mark(12, 2);
  builder.Mark(15, 1);
  builder.Mark(18, 30);
  EXPECT_EQ(Pairs(builder.Finish(21)), (Table{{1, 2}, {12, 4}, {15, 2}, {18, 1}, {21, 30}}));
}

TEST(LineTable, OffsetsAreRelativeToTheRegionStart) {
  LineTableBuilder builder(100, 7);
  builder.Mark(110, 8);
  EXPECT_EQ(Pairs(builder.Finish(130)), (Table{{10, 7}, {30, 8}}));
}

TEST(LineTable, EmptyRangesLeaveNoEntryAndEqualNeighboursMerge) {
  LineTableBuilder builder(0, 1);
  builder.Mark(0, 5);  // line 1 covered nothing
  builder.Mark(4, 6);
  builder.Mark(4, 5);  // line 6 covered nothing: line 5 continues
  builder.Mark(9, 5);  // same line: no new range
  builder.Mark(12, 7);
  EXPECT_EQ(Pairs(builder.Finish(12)), (Table{{12, 5}}));  // line 7 ended up empty too
}

// The value main returns, folded, or "not constant".
std::string Folded(const char* expression) {
  const std::string source = std::string(
                                 "fn f() -> int { return 1; }\nfn main(x: int) -> int {\n"
                                 "  return ") +
                             expression + ";\n}\n";
  auto program = Compile(source, "fold.jv");
  if (!program.ok()) return program.status().message();
  const Function& main = program->functions[program->main_index];
  auto value = FoldConstant(*main.body.back()->expr);
  return value ? std::to_string(static_cast<int64_t>(*value)) : "not constant";
}

TEST(ConstantFolding, FoldsWhatCannotChangeAndLeavesTheRestToRunTime) {
  EXPECT_EQ(Folded("2 * 3 + 1"), "7");
  EXPECT_EQ(Folded("-9223372036854775808 / -1"), "-9223372036854775808");
  EXPECT_EQ(Folded("int(sqrt(16.0) * 2.5)"), "10");
  EXPECT_EQ(Folded("0 && f()"), "0") << "the call never runs";
  EXPECT_EQ(Folded("1 || f()"), "1");
  EXPECT_EQ(Folded("1 && f()"), "not constant");
  EXPECT_EQ(Folded("7 / 0"), "not constant") << "the error must happen at run time";
  EXPECT_EQ(Folded("x + 1"), "not constant");
  EXPECT_EQ(Folded("print(1)"), "not constant");
}

TEST(CodeHeap, FreedBlocksAreReusedFirstFitFromTheLowestAddress) {
  auto heap = CodeHeap::Create(1 << 20);
  ASSERT_TRUE(heap.ok()) << heap.status().message();
  CodeHeap& h = **heap;
  uint8_t* a = *h.Allocate(100);  // 112 bytes
  uint8_t* b = *h.Allocate(40);   // 48
  uint8_t* c = *h.Allocate(200);  // 208
  uint8_t* d = *h.Allocate(16);
  EXPECT_EQ(b, a + 112);
  EXPECT_EQ(c, b + 48);
  EXPECT_EQ(d, c + 208);
  std::memset(a, 0x90, 100);
  h.Free(a, 100);
  EXPECT_EQ(a[0], 0xcc) << "freed code is overwritten with int3";
  h.Free(c, 200);
  EXPECT_EQ(h.reused_allocations(), 0u);
  EXPECT_EQ(*h.Allocate(150), c) << "a does not fit 150 bytes; c is the first block that does";
  EXPECT_EQ(*h.Allocate(64), a) << "the lowest free block that fits";
  EXPECT_EQ(*h.Allocate(48), a + 64) << "the rest of a";
  EXPECT_EQ(h.reused_allocations(), 3u);
  EXPECT_TRUE(h.Contains(reinterpret_cast<uintptr_t>(d)));
  EXPECT_FALSE(h.Contains(reinterpret_cast<uintptr_t>(a) - 1));
}

TEST(CodeHeap, NeighbouringFreeBlocksCoalesce) {
  auto heap = CodeHeap::Create(1 << 20);
  ASSERT_TRUE(heap.ok());
  CodeHeap& h = **heap;
  uint8_t* a = *h.Allocate(32);
  uint8_t* b = *h.Allocate(32);
  uint8_t* c = *h.Allocate(32);
  *h.Allocate(32);  // keeps c from touching the top
  h.Free(a, 32);
  h.Free(c, 32);
  h.Free(b, 32);
  EXPECT_EQ(*h.Allocate(96), a) << "a, b and c merged into one block";
}

TEST(CodeHeap, ReportsAFullHeap) {
  auto heap = CodeHeap::Create(4096);
  ASSERT_TRUE(heap.ok());
  EXPECT_TRUE((*heap)->Allocate(4000).ok());
  auto full = (*heap)->Allocate(200);
  ASSERT_FALSE(full.ok());
  EXPECT_EQ(full.status().message(), "the code heap is full (4096 bytes); cannot place 208 more");
}

std::string CompileError(const char* source) {
  auto program = Compile(source, "t.jv");
  return program.ok() ? "no error" : program.status().message();
}

TEST(FrontEnd, ReportsErrorsWithFileLineAndColumn) {
  EXPECT_EQ(CompileError("fn main() -> int {\n  return 1 +;\n}\n"),
            "t.jv:2:13: error: expected an expression but found ';'");
  EXPECT_EQ(CompileError("fn main() -> int {\n  var x = 1.5;\n  return x;\n}\n"),
            "t.jv:3:3: error: 'main' returns int, not float");
  EXPECT_EQ(CompileError("fn main() -> int {\n  return 1 + 2.0;\n}\n"),
            "t.jv:2:12: error: '+' on int and float: convert one side with int(...) or "
            "float(...)");
  EXPECT_EQ(CompileError("fn main() -> int {\n  return y;\n}\n"),
            "t.jv:2:10: error: undeclared variable 'y'");
  EXPECT_EQ(CompileError("fn f(a: int) -> int { return a; }\nfn main() -> int {\n"
                         "  return f(1, 2);\n}\n"),
            "t.jv:3:10: error: 'f' takes 1 arguments, not 2");
  EXPECT_EQ(CompileError("fn main() -> int { return 1 < 2 < 3; }"),
            "t.jv:1:33: error: comparisons do not chain; use && between them");
  EXPECT_EQ(CompileError("fn main() -> int { return 9223372036854775808; }"),
            "t.jv:1:27: error: integer literal out of range");
  EXPECT_EQ(CompileError("fn main() -> int { return -9223372036854775808; }"), "no error");
  EXPECT_EQ(CompileError("fn f() -> int { return 0; }"),
            "t.jv: error: the program has no function 'main'");
  EXPECT_EQ(CompileError("fn main() -> int { return 1 $ 2; }"),
            "t.jv:1:29: error: unexpected character");
}

TEST(FrontEnd, RefusesNestingThatWouldExhaustTheStack) {
  std::string deep =
      "fn main() -> int { return " + std::string(300, '(') + "1" + std::string(300, ')') + "; }";
  EXPECT_EQ(CompileError(deep.c_str()), "t.jv:1:226: error: expression nested too deeply");
}

// The inliner: small callees inline, recursion and the depth limit stop it.
constexpr const char* kInlineProgram = R"(fn leaf(x: int) -> int { return x + 1; }
fn middle(x: int) -> int { return leaf(x) * leaf(x + 2); }
fn self(x: int) -> int { if x < 1 { return 0; } return self(x - 1); }
fn big(x: int) -> int {
  var a = x + 1; var b = a * 2; var c = b - 3; var d = c * c; var e = d + a + b + c;
  var f = e * e + d * d; var g = f - e + d - c + b - a; return g + f + e + d + c + b + a;
}
fn main() -> int { return middle(1) + self(3) + big(2); }
)";

TEST(FramePlan, InlinesSmallCalleesRecursivelyWithinBudgetAndDepth) {
  auto program = Compile(kInlineProgram, "inline.jv");
  ASSERT_TRUE(program.ok()) << program.status().message();
  const int32_t main = program->main_index;
  FramePlan plan = PlanFrame(*program, main, /*optimize=*/true, InlinePolicy{40, 3});
  // main inlines middle (which inlines leaf twice) and self (whose own recursive call stays a
  // call); big is over the budget.
  std::vector<std::pair<std::string, int32_t>> instances;
  for (const InlineInstance& instance : plan.instances) {
    instances.emplace_back(program->functions[instance.function].name, instance.parent);
  }
  EXPECT_EQ(instances, (std::vector<std::pair<std::string, int32_t>>{
                           {"main", -1}, {"middle", 0}, {"leaf", 1}, {"leaf", 1}, {"self", 0}}));

  FramePlan shallow = PlanFrame(*program, main, true, InlinePolicy{40, 1});
  EXPECT_EQ(shallow.instances.size(), 3u) << "depth 1: middle and self, not leaf";
  FramePlan none = PlanFrame(*program, main, true, InlinePolicy{0, 3});
  EXPECT_EQ(none.instances.size(), 1u);
  FramePlan baseline = PlanFrame(*program, main, /*optimize=*/false, InlinePolicy{40, 3});
  EXPECT_EQ(baseline.instances.size(), 1u) << "the baseline tier never inlines";
  for (const Home& home : baseline.homes) EXPECT_EQ(home.kind, Home::Kind::kSlot);
}

TEST(FramePlan, GivesTheBusiestLocalsRegisters) {
  auto program = Compile(R"(fn main() -> int {
  var a = 1; var b = 2; var c = 3; var d = 4; var e = 5; var f = 6;
  var x = 0.5; var y = 1.5;
  while a < 10 { b = b + f; a = a + 1; x = x * y; }
  return a + b;
}
)",
                         "regs.jv");
  ASSERT_TRUE(program.ok()) << program.status().message();
  FramePlan plan = PlanFrame(*program, program->main_index, true, InlinePolicy{40, 3});
  auto kind = [&](int local) { return plan.HomeOf(0, local).kind; };
  // a, b, f are used in the loop, then c, d, e once each: five ints get rbx, r12-r15, so the
  // last one by weight and order (e) stays in a slot. Both floats get xmm registers.
  EXPECT_EQ(kind(0), Home::Kind::kGpr);
  EXPECT_EQ(kind(1), Home::Kind::kGpr);
  EXPECT_EQ(kind(5), Home::Kind::kGpr);
  EXPECT_EQ(kind(2), Home::Kind::kGpr);
  EXPECT_EQ(kind(3), Home::Kind::kGpr);
  EXPECT_EQ(kind(4), Home::Kind::kSlot);
  EXPECT_EQ(kind(6), Home::Kind::kXmm);
  EXPECT_EQ(kind(7), Home::Kind::kXmm);
  EXPECT_EQ(plan.saved_gprs, (std::vector<uint8_t>{3, 12, 13, 14, 15}));
  EXPECT_EQ(plan.saved_xmms, (std::vector<uint8_t>{8, 9}));

  // Code without frame pointers may keep a sixth int local in rbp (x86 number 5), saved last.
  FramePlan no_fp = PlanFrame(*program, program->main_index, true, InlinePolicy{40, 3},
                              /*rbp_for_locals=*/true);
  EXPECT_EQ(no_fp.HomeOf(0, 4).kind, Home::Kind::kGpr);
  EXPECT_EQ(no_fp.HomeOf(0, 4).reg, 5);
  EXPECT_EQ(no_fp.saved_gprs, (std::vector<uint8_t>{3, 12, 13, 14, 15, 5}));
}

}  // namespace
}  // namespace jitscope::jitvm
