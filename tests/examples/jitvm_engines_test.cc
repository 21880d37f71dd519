// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The JIT tiers against the reference interpreter: every sample program under
// examples/jitvm/programs and a set of semantic edge cases must give the same output, result
// and runtime errors in all four modes (interp, baseline, optimized, tiered), with and without
// frame pointers in the machine code. Where the answer is known independently (Fibonacci
// numbers, prime counts, IEEE results), it is checked too.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "checker.h"
#include "jitscope/base/status.h"
#include "output.h"
#include "vm.h"

namespace jitscope::jitvm {
namespace {

struct Outcome {
  std::string output;
  std::string result;  // main's result, or the error message
  VmStats stats;
  bool operator==(const Outcome& other) const {
    return output == other.output && result == other.result;
  }
};

std::ostream& operator<<(std::ostream& os, const Outcome& o) {
  return os << "output:\n" << o.output << "result: " << o.result;
}

Outcome RunIn(const Program& program, ExecutionMode mode, std::vector<int64_t> args,
              uint32_t hot_threshold = 2, bool frame_pointers = true) {
  Output output;
  VmOptions options;
  options.mode = mode;
  options.hot_threshold = hot_threshold;
  options.frame_pointers = frame_pointers;
  options.code_heap_bytes = 64 << 20;
  auto vm = Vm::Create(program, options, output);
  EXPECT_TRUE(vm.ok()) << vm.status().message();
  if (!vm.ok()) return {};
  auto result = (*vm)->Run(args);
  Outcome outcome;
  outcome.output = output.captured();
  outcome.result =
      result.ok() ? std::to_string(static_cast<int64_t>(*result)) : result.status().message();
  outcome.stats = (*vm)->stats();
  return outcome;
}

constexpr ExecutionMode kJitModes[] = {ExecutionMode::kBaseline, ExecutionMode::kOptimized,
                                       ExecutionMode::kTiered};

// Runs `program` in every mode and expects all of them to agree with the interpreter.
Outcome ExpectSameInAllModes(const Program& program, std::vector<int64_t> args) {
  const Outcome reference = RunIn(program, ExecutionMode::kInterpret, args);
  for (bool frame_pointers : {true, false}) {
    for (ExecutionMode mode : kJitModes) {
      EXPECT_EQ(RunIn(program, mode, args, 2, frame_pointers), reference)
          << "mode " << static_cast<int>(mode) << ", frame pointers " << frame_pointers;
    }
    // Tier-up on the very first call, while it is running.
    EXPECT_EQ(RunIn(program, ExecutionMode::kTiered, args, 1, frame_pointers), reference)
        << "tiered, threshold 1, frame pointers " << frame_pointers;
  }
  return reference;
}

Program Load(const std::string& name) {
  auto program = LoadProgram(std::string(JITVM_PROGRAMS_DIR) + "/" + name);
  EXPECT_TRUE(program.ok()) << program.status().message();
  return program.ok() ? std::move(*program) : Program{};
}

Program FromSource(const char* source) {
  auto program = Compile(source, "test.jv");
  EXPECT_TRUE(program.ok()) << program.status().message();
  return program.ok() ? std::move(*program) : Program{};
}

TEST(Engines, Fib) {
  const Outcome o = ExpectSameInAllModes(Load("fib.jv"), {20});
  EXPECT_EQ(o.output, "0\n5\n55\n610\n6765\n");
  EXPECT_EQ(o.result, "0");
}

TEST(Engines, Primes) {
  const Outcome o = ExpectSameInAllModes(Load("primes.jv"), {10000});
  EXPECT_EQ(o.output, "1229\n9973\n");  // pi(10^4) and the largest prime below it
}

TEST(Engines, Mandelbrot) {
  const Outcome o = ExpectSameInAllModes(Load("mandelbrot.jv"), {40});
  EXPECT_FALSE(o.output.empty());
}

TEST(Engines, Hotspot) {
  const Program program = Load("hotspot.jv");
  ExpectSameInAllModes(program, {4});
  // With a low threshold every phase of the program is exercised.
  for (bool frame_pointers : {true, false}) {
    const Outcome tiered = RunIn(program, ExecutionMode::kTiered, {8}, 5, frame_pointers);
    EXPECT_EQ(tiered.stats.optimized_compiles, 4u) << "series, checksum, mix and rotate";
    // checksum inlines mix and, inside it, rotate twice; mix inlines rotate twice.
    EXPECT_EQ(tiered.stats.inlined_calls, 5u);
    EXPECT_EQ(tiered.stats.split_functions, tiered.stats.optimized_compiles);
    EXPECT_EQ(tiered.stats.unloads, 4u) << "every replaced baseline function is freed";
  }
}

// Six int locals busy in a loop: without frame pointers the optimizing tier keeps the sixth in
// rbp, which must survive calls into other JIT code and into C++ (print).
TEST(Engines, ALocalInRbpSurvivesCalls) {
  const Outcome o = ExpectSameInAllModes(FromSource(R"(fn step(x: int) -> int {
  print(x);
  return x + 1;
}
fn main(n: int) -> int {
  var a = 1; var b = 2; var c = 3; var d = 4; var e = 5; var f = 6;
  var i = 0;
  while i < n {
    a = a + b; b = b + c; c = c + d; d = d + e; e = e + f; f = step(f) + i;
    i = i + 1;
  }
  return a + b + c + d + e + f;
}
)"),
                                         {3});
  EXPECT_EQ(o.output, "6\n7\n9\n");
  EXPECT_EQ(o.result, "161");
}

TEST(Engines, IntegerEdgeCases) {
  const Outcome o = ExpectSameInAllModes(FromSource(R"(
fn div(a: int, b: int) -> int { return a / b; }
fn rem(a: int, b: int) -> int { return a % b; }
fn main() -> int {
  var min = -9223372036854775807 - 1;
  print(div(min, -1));
  print(rem(min, -1));
  print(min / -1);
  print(div(7, -2));
  print(rem(7, -2));
  print(rem(-7, 2));
  print(-7 / 2);
  print(9223372036854775807 + 1);
  print(min * -1);
  print(3 * 4 - 10 / 3 % 2);
  print(!0 + !5 * 10);
  return div(100, 7);
}
)"),
                                         {});
  EXPECT_EQ(o.output,
            "-9223372036854775808\n0\n-9223372036854775808\n-3\n1\n-1\n-3\n"
            "-9223372036854775808\n-9223372036854775808\n11\n1\n");
  EXPECT_EQ(o.result, "14");
}

TEST(Engines, FloatEdgeCases) {
  const Outcome o = ExpectSameInAllModes(FromSource(R"(
fn lt(a: float, b: float) -> int { return a < b; }
fn le(a: float, b: float) -> int { return a <= b; }
fn gt(a: float, b: float) -> int { return a > b; }
fn ge(a: float, b: float) -> int { return a >= b; }
fn eq(a: float, b: float) -> int { return a == b; }
fn ne(a: float, b: float) -> int { return a != b; }
fn branches(a: float, b: float) -> int {
  var bits = 0;
  if a < b { bits = bits + 1; }
  if a <= b { bits = bits + 2; }
  if a > b { bits = bits + 4; }
  if a >= b { bits = bits + 8; }
  if a == b { bits = bits + 16; }
  if a != b { bits = bits + 32; }
  if !(a < b) { bits = bits + 64; }
  return bits;
}
fn all(a: float, b: float) -> int {
  return lt(a, b) + 2 * le(a, b) + 4 * gt(a, b) + 8 * ge(a, b) + 16 * eq(a, b) + 32 * ne(a, b);
}
fn main() -> int {
  var nan = 0.0 / 0.0;
  print(all(1.0, 2.0));
  print(all(2.0, 2.0));
  print(all(nan, 2.0));
  print(all(nan, nan));
  print(branches(1.0, 2.0));
  print(branches(2.0, 2.0));
  print(branches(nan, 1.0));
  print(0.0 / 0.0 == 0.0 / 0.0);
  print(0.0 / 0.0 != 0.0 / 0.0);
  print(int(nan));
  print(int(1e300));
  print(int(-2.9));
  print(int(9.2e18));
  print(1.0 / 0.0);
  print(-1.0 / 0.0);
  print(-0.0);
  print(2.0);
  print(0.1 + 0.2);
  print(1e100);
  print(sqrt(2.0));
  print(sqrt(-1.0));
  print(float(9007199254740993));
  print(-(0.5 - 1.0));
  return 0;
}
)"),
                                         {});
  EXPECT_EQ(o.output,
            "35\n26\n32\n32\n35\n90\n96\n0\n1\n-9223372036854775808\n-9223372036854775808\n-2\n"
            "9200000000000000000\ninf\n-inf\n-0.0\n2.0\n0.30000000000000004\n1e+100\n"
            "1.4142135623730951\nnan\n9007199254740992.0\n0.5\n");
}

TEST(Engines, ShortCircuitSkipsTheRightOperand) {
  const Outcome o = ExpectSameInAllModes(FromSource(R"(
fn say(x: int) -> int { print(x); return x; }
fn main() -> int {
  var a = 0 && say(1);
  var b = 1 || say(2);
  var c = say(0) && say(3);
  var d = say(4) || say(5);
  var e = say(6) && say(0) || say(7);
  if say(0) || !say(8) && say(9) { print(100); }
  while say(0) && say(10) { print(200); }
  return a + 10 * b + 100 * c + 1000 * d + 10000 * e;
}
)"),
                                         {});
  EXPECT_EQ(o.output, "0\n4\n6\n0\n7\n0\n8\n0\n");
  EXPECT_EQ(o.result, "11010");
}

TEST(Engines, ManyLocalsArgumentsAndNestedCalls) {
  // More locals than registers, six arguments of both types, calls inside arguments.
  const Outcome o = ExpectSameInAllModes(FromSource(R"(
fn six(a: int, b: float, c: int, d: float, e: int, f: float) -> float {
  return float(a - c + e) * b + d * f;
}
fn pick(a: int, b: int, c: int, d: int, e: int, f: int) -> int {
  return a * 100000 + b * 10000 + c * 1000 + d * 100 + e * 10 + f;
}
fn main(n: int) -> int {
  var v1 = 1; var v2 = 2; var v3 = 3; var v4 = 4; var v5 = 5; var v6 = 6; var v7 = 7;
  var f1 = 0.5; var f2 = 1.5; var f3 = 2.5; var f4 = 3.5; var f5 = 4.5; var f6 = 5.5;
  var f7 = 6.5; var f8 = 7.5; var f9 = 8.5; var f10 = 9.5;
  var i = 0;
  var acc = 0.0;
  while i < n {
    acc = acc + six(v1 + i, f1, pick(v1, v2, v3, v4, v5, v6) % 7, f2 * f3, v7, f4 + f5 + f6);
    acc = acc + f7 - f8 + f9 - f10;
    v1 = v2; v2 = v3; v3 = v4; v4 = v5; v5 = v6; v6 = v7; v7 = v1 + i;
    i = i + 1;
  }
  print(acc);
  return pick(v1 % 10, v2 % 10, v3 % 10, v4 % 10, v5 % 10, v6 % 10);
}
)"),
                                         {25});
  EXPECT_EQ(o.output, "1807.625\n");
  EXPECT_EQ(o.result, "838383");
}

TEST(Engines, DivisionByZeroStopsTheRunAtItsLine) {
  const Outcome o = ExpectSameInAllModes(FromSource(R"(fn ratio(a: int, b: int) -> int {
  return a / b;
}
fn main(n: int) -> int {
  var i = 3;
  while i >= 0 - n {
    print(ratio(12, i));
    i = i - 1;
  }
  return 0;
}
)"),
                                         {1});
  EXPECT_EQ(o.output, "4\n6\n12\n");
  EXPECT_EQ(o.result, "test.jv:2: runtime error: division by zero");
}

TEST(Engines, StackOverflowIsARuntimeError) {
  const Outcome o = ExpectSameInAllModes(FromSource(R"(fn down(n: int) -> int {
  return down(n + 1) + 1;
}
fn main() -> int {
  print(1);
  return down(0);
}
)"),
                                         {});
  EXPECT_EQ(o.output, "1\n");
  EXPECT_EQ(o.result, "test.jv:1: runtime error: stack overflow (recursion too deep)");
}

TEST(Engines, ReplacedCodeIsFreedOnlyOnceNoFrameReturnsIntoIt) {
  // rec is optimized at its 10th call, nine baseline frames deep; at the bottom of the
  // recursion `later` (too big to inline) is compiled for the first time while those frames
  // still wait to return into the replaced baseline code. Freeing it then (its memory would be
  // filled with int3 or reused for `later`) would crash or corrupt the result.
  const Program program = FromSource(R"(fn later(x: int) -> int {
  var a = x; var b = a + 1; var c = b * 2; var d = c - a; var e = d * d + c * b - a;
  var f = e % 97 + d % 13 - c % 7; var g = f * f - e + d - c + b - a;
  return g - g + x * 2;
}
fn rec(n: int) -> int {
  if n == 0 { return later(1); }
  return rec(n - 1) + 1;
}
fn main(n: int) -> int { return rec(n); }
)");
  // Without frame pointers the VM finds the return addresses by scanning the JIT frames.
  for (bool frame_pointers : {true, false}) {
    const Outcome o = RunIn(program, ExecutionMode::kTiered, {50}, 10, frame_pointers);
    EXPECT_EQ(o.result, "52");
    EXPECT_EQ(o.stats.optimized_compiles, 1u);
    EXPECT_EQ(o.stats.unloads, 1u) << "freed at the end of the run, when no frame was left";
  }
}

TEST(Engines, AVmRunsAgainAndKeepsItsCode) {
  const Program program = Load("fib.jv");
  Output output;
  VmOptions options;
  options.hot_threshold = 3;
  auto vm = Vm::Create(program, options, output);
  ASSERT_TRUE(vm.ok()) << vm.status().message();
  ASSERT_TRUE((*vm)->Run(std::vector<int64_t>{10}).ok());
  const VmStats first = (*vm)->stats();
  ASSERT_TRUE((*vm)->Run(std::vector<int64_t>{10}).ok());
  EXPECT_EQ(output.captured(), "0\n5\n55\n0\n5\n55\n");
  EXPECT_EQ((*vm)->stats().baseline_compiles, first.baseline_compiles) << "nothing recompiled";
  auto wrong = (*vm)->Run(std::vector<int64_t>{});
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().message(), "main takes 1 arguments, not 0");
}

}  // namespace
}  // namespace jitscope::jitvm
