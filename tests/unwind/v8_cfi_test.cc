// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Ground truth from an engine's own unwind information: with
// --perf-prof-unwinding-info, V8 writes to its jitdump the .eh_frame it generated for the code
// TurboFan compiled, which the walk uses where it has a row (jitdump_reader.h,
// CfiModule::FromEhFrame). The rules derived from the same code's bytes (rule_agreement.h) must
// equal V8's tables at every instruction where they claim a rule, for v8_shapes.js's functions:
// recursion, loops, allocation, a try/catch, calls with more and fewer arguments than the callee
// takes, a switch.
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/formats/jitdump_reader.h"
#include "support/files.h"
#include "support/process.h"
#include "support/temp_dir.h"
#include "unwind/rule_agreement.h"

namespace jitscope::unwind {
namespace {

using test_support::ReadFile;
using test_support::RunProgram;
using test_support::TempDir;

// The functions v8_shapes.js has TurboFan compile.
const char* const kShapes[] = {"fib",           "sumArray",      "makePoints",
                               "guarded",       "callsWithMany", "callsWithFewer",
                               "callsWithMore", "classify",      "joined"};

// The shape a V8 code name is of: Node 20 names optimized code "JS:*fib <script>:3:13", Node 18
// "LazyCompile:*fib <script>:3"; "" for any other code.
std::string ShapeOf(std::string_view name) {
  for (const char* shape : kShapes) {
    if (name.find(std::string("*") + shape + " ") != std::string_view::npos) return shape;
  }
  return "";
}

TEST(V8CfiTest, RulesDerivedFromTurboFansCodeEqualV8sOwnUnwindTables) {
  TempDir tmp;
  auto ran = RunProgram({NODE_PROGRAM, "--perf-prof", "--perf-prof-unwinding-info",
                         "--allow-natives-syntax", V8_SHAPES_JS},
                        {}, {.cwd = tmp.path()});
  ASSERT_TRUE(ran.ok()) << ran.Describe();
  std::string jitdump_path;
  for (const auto& entry : std::filesystem::directory_iterator(tmp.path())) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("jit-") && name.ends_with(".dump")) jitdump_path = entry.path().string();
  }
  ASSERT_FALSE(jitdump_path.empty()) << "node wrote no jitdump in " << tmp.path();
  const std::string bytes = ReadFile(jitdump_path);
  auto jitdump = formats::ParseJitdump(
      std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), jitdump_path);
  ASSERT_TRUE(jitdump.ok()) << jitdump.status().message();
  EXPECT_TRUE(jitdump->error.ok()) << jitdump->error.message();
  auto decoder = disasm::Decoder::Create(disasm::Mode::kX86_64);
  ASSERT_TRUE(decoder.has_value());

  testing::RuleAgreement all;
  std::vector<std::string> compared;
  for (const formats::JitdumpRecord& record : jitdump->records) {
    if (record.kind != formats::JitdumpRecordKind::kCodeLoad) continue;
    const std::string shape = ShapeOf(record.name);
    if (shape.empty()) continue;
    ASSERT_FALSE(record.eh_frame.empty()) << record.name << ": V8 wrote no unwind tables for it";
    ASSERT_FALSE(record.code.empty()) << record.name;
    auto module = CfiModule::FromEhFrame(record.eh_frame, record.EhFrameAddress());
    ASSERT_TRUE(module.ok()) << record.name << ": " << module.status().message();
    // The tables describe the code from its first byte.
    EXPECT_NE((*module)->Find(record.code_addr), nullptr) << record.name;
    const testing::RuleAgreement one = testing::CompareWithCfi(
        *decoder, record.code, record.code_addr, **module, record.code_addr);
    EXPECT_GT(one.compared, 0u) << record.name << ": " << one.Describe();
    all.Add(one);
    compared.push_back(shape);
  }
  std::sort(compared.begin(), compared.end());
  std::vector<std::string> expected(std::begin(kShapes), std::end(kShapes));
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(compared, expected) << "each shape's optimized code, once";
  EXPECT_EQ(all.other_base, 0u) << all.Describe();
  EXPECT_EQ(all.cfa_differs, 0u) << all.Describe();
  EXPECT_EQ(all.return_address_differs, 0u) << all.Describe();
  EXPECT_EQ(all.saved_differs, 0u) << all.Describe();
  EXPECT_EQ(all.saved_only_derived, 0u) << all.Describe();
  // Every instruction the analysis claims is compared, but the padding after the code's last
  // call (to the deoptimizer, which never returns), which V8's tables end before.
  EXPECT_EQ(all.compared + all.padding_not_compared, all.claimed) << all.Describe();
  EXPECT_LE(all.padding_not_compared, std::size(kShapes)) << all.Describe();
  std::cout << "V8's tables against the derived rules: " << all.Describe() << "\n";
}

}  // namespace
}  // namespace jitscope::unwind
