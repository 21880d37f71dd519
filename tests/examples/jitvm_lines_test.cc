// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Line tables checked instruction by instruction. The VM runs in this process under the real
// collector; the test then reads the trace with `jitscope dump --json`, finds specific
// instructions in the live machine code at the addresses the trace reports, and checks the
// line the trace's end-offset table (Intel's guide, "LineNumberInfo Structure") gives each of them
// — for the baseline code, the optimized code with an inlined callee (the callee's own table and
// the call's line in the parent's), and the cold region of the split function.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "checker.h"
#include "output.h"
#include "support/temp_dir.h"
#include "support/traces.h"
#include "trace_helpers.h"
#include "vm.h"

namespace jitscope::jitvm {
namespace {

using nlohmann::json;
using test_support::TempDir;

constexpr const char* kProgram = R"(fn area(w: float, h: float) -> float {
  return w * h;
}
fn f(a: int, b: int) -> int {
  var q = a / b;
  var r = sqrt(float(q));
  var s = area(r, 2.0);
  return int(s) % b;
}
fn main(n: int) -> int {
  var i = 0;
  var t = 0;
  while i < n {
    t = t + f(i + 100, 5);
    i = i + 1;
  }
  return t;
}
)";

// Instructions the code generator emits for the operations above (codegen.cc).
const std::vector<uint8_t> kCqoIdivRcx = {0x48, 0x99, 0x48, 0xf7, 0xf9};  // a / b, int(s) % b
const std::vector<uint8_t> kCvtsi2sd = {0xf2, 0x48, 0x0f, 0x2a, 0xc0};    // float(q)
const std::vector<uint8_t> kSqrtsd = {0xf2, 0x0f, 0x51, 0xc0};            // sqrt(...)
const std::vector<uint8_t> kCvttsd2si = {0xf2, 0x48, 0x0f, 0x2c, 0xc0};   // int(s)
const std::vector<uint8_t> kMulsd = {0xf2, 0x0f, 0x59, 0xc1};             // w * h
const std::vector<uint8_t> kCallThroughTable = {0x41, 0xff, 0x13};        // call [r11]
const std::vector<uint8_t> kCallGate = {0x41, 0xff, 0xd3};                // call r11

struct Region {
  uint64_t address = 0;
  uint64_t size = 0;
  json lines;
};

// Offsets of every occurrence of `pattern` in the live code of `region`.
std::vector<uint64_t> Find(const Region& region, const std::vector<uint8_t>& pattern) {
  std::vector<uint64_t> offsets;
  const auto* code = reinterpret_cast<const uint8_t*>(region.address);
  for (uint64_t i = 0; i + pattern.size() <= region.size; ++i) {
    if (std::memcmp(code + i, pattern.data(), pattern.size()) == 0) offsets.push_back(i);
  }
  return offsets;
}

std::vector<uint32_t> LinesOf(const Region& region, const std::vector<uint8_t>& pattern) {
  std::vector<uint32_t> lines;
  for (uint64_t offset : Find(region, pattern)) lines.push_back(LineAt(region.lines, offset));
  return lines;
}

using Lines = std::vector<uint32_t>;

TEST(JitvmLines, SpecificInstructionsMapToTheirSourceLines) {
  TempDir dir;
  // The stub loads the collector at the first API call, which the Vm below makes.
  setenv("INTEL_JIT_PROFILER64", JITSCOPE_COLLECTOR, 1);
  setenv("JITSCOPE_OUTPUT_DIR", dir.path().c_str(), 1);

  auto program = Compile(kProgram, "lines.jv");
  ASSERT_TRUE(program.ok()) << program.status().message();
  program->path = "/virtual/lines.jv";
  // Two VMs whose code stays loaded after their run: one baseline-only, one optimizing every
  // function at its first call. A budget of 10 inlines area (4 nodes) into f, but not f
  // (17 nodes) into main, so f is compiled as a method of its own.
  Output output;
  std::vector<std::unique_ptr<Vm>> vms;
  for (ExecutionMode mode : {ExecutionMode::kBaseline, ExecutionMode::kOptimized}) {
    VmOptions options;
    options.mode = mode;
    options.inlining = InlinePolicy{10, 3};
    auto vm = Vm::Create(*program, options, output);
    ASSERT_TRUE(vm.ok()) << vm.status().message();
    ASSERT_TRUE((*vm)->profiled()) << "the collector did not load";
    auto result = (*vm)->Run(std::vector<int64_t>{10});
    ASSERT_TRUE(result.ok()) << result.status().message();
    // f(100..104, 5) = int(sqrt(20) * 2) % 5 = 3 and f(105..109, 5) = int(sqrt(21) * 2) % 5 = 4.
    EXPECT_EQ(*result, 35u);
    vms.push_back(std::move(*vm));
  }

  const base::StatusOr<std::string> trace = test_support::FindTrace(dir.path());
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  std::string error;
  const std::vector<json> records = DumpJson(JITSCOPE_BINARY, *trace, error);
  ASSERT_EQ(error, "");

  std::map<std::string, std::vector<Region>> methods;  // "module/name" -> regions
  std::map<uint32_t, std::string> method_key;
  std::map<std::string, std::vector<std::pair<Region, uint32_t>>>
      inlines;  // name -> (region, parent)
  for (const json& r : records) {
    if (r["type"] != "code" || r["module"] == "jitvm-stubs") continue;
    Region region{r["address"], r["size"], r["lines"]};
    EXPECT_EQ(r["source_file"], "/virtual/lines.jv");
    if (r["event"] == "METHOD_LOAD_FINISHED_V2") {
      const std::string key = r["module"].get<std::string>() + "/" + r["name"].get<std::string>();
      methods[key].push_back(region);
      method_key[r["method_id"]] = key;
    } else if (r["event"] == "METHOD_INLINE_LOAD_FINISHED") {
      inlines[r["name"]].push_back({region, r["parent_method_id"]});
    }
  }

  // Baseline f: one region; the slow paths at its end carry the lines they serve.
  ASSERT_EQ(methods["jitvm-baseline/f"].size(), 1u);
  const Region& baseline = methods["jitvm-baseline/f"][0];
  EXPECT_EQ(LinesOf(baseline, kCqoIdivRcx), (Lines{5, 8}));
  EXPECT_EQ(LinesOf(baseline, kCvtsi2sd), (Lines{6}));
  EXPECT_EQ(LinesOf(baseline, kSqrtsd), (Lines{6}));
  EXPECT_EQ(LinesOf(baseline, kCvttsd2si), (Lines{8}));
  EXPECT_EQ(LinesOf(baseline, kCallThroughTable), (Lines{7})) << "the call of area";
  // Runtime calls: stack overflow (the fn line), then division by zero twice. (A baseline-only
  // VM has no tier-up stub.)
  EXPECT_EQ(LinesOf(baseline, kCallGate), (Lines{4, 5, 8}));
  EXPECT_EQ(LineAt(baseline.lines, 0), 4u) << "the prologue belongs to the fn line";

  ASSERT_EQ(methods["jitvm-baseline/area"].size(), 1u);
  EXPECT_EQ(LinesOf(methods["jitvm-baseline/area"][0], kMulsd), (Lines{2}));

  // Optimized f: a hot region with area inlined, and a cold region with the slow paths.
  EXPECT_EQ(methods.count("jitvm-optimized/area"), 0u) << "area only ever ran inlined";
  ASSERT_EQ(methods["jitvm-optimized/f"].size(), 2u);
  const Region& hot = methods["jitvm-optimized/f"][0];
  const Region& cold = methods["jitvm-optimized/f"][1];
  EXPECT_EQ(LinesOf(hot, kCqoIdivRcx), (Lines{5, 8}));
  EXPECT_EQ(LinesOf(hot, kCvtsi2sd), (Lines{6}));
  EXPECT_EQ(LinesOf(hot, kSqrtsd), (Lines{6}));
  EXPECT_EQ(LinesOf(hot, kCvttsd2si), (Lines{8}));
  EXPECT_EQ(Find(hot, kCallThroughTable).size(), 0u) << "area is inlined, not called";
  EXPECT_EQ(Find(hot, kCallGate).size(), 0u) << "no slow path left in the hot region";
  EXPECT_EQ(LinesOf(cold, kCallGate), (Lines{4, 5, 8}));
  EXPECT_EQ(Find(cold, kCqoIdivRcx).size(), 0u);

  // The inlined area: w * h is line 2 in the inline's own table and line 7 (the call) in f's.
  ASSERT_EQ(inlines["area"].size(), 1u);
  const auto& [area, parent] = inlines["area"][0];
  EXPECT_EQ(method_key[parent], "jitvm-optimized/f");
  const std::vector<uint64_t> multiply = Find(hot, kMulsd);
  ASSERT_EQ(multiply.size(), 1u);
  const uint64_t at = hot.address + multiply[0];
  ASSERT_GE(at, area.address);
  ASSERT_LT(at, area.address + area.size);
  EXPECT_EQ(LineAt(area.lines, at - area.address), 2u);
  EXPECT_EQ(LineAt(hot.lines, multiply[0]), 7u);
}

}  // namespace
}  // namespace jitscope::jitvm
