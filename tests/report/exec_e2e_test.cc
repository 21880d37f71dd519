// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// End-to-end: a JIT that re-execs itself (exec_jit.c). An exec ends a process's JIT history:
// the new program's method ids start over and name its own code, and nothing the old program
// reported names code after the exec, whether `jitscope resolve` reads the traces or `jitscope
// report` a recording of the whole run.
#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "jitscope/report/profile_builder.h"
#include "support/process.h"
#include "support/temp_dir.h"
#include "support/traces.h"

namespace jitscope::report {
namespace {

using test_support::RunProgram;

// One program image's line: its function, where its code was, and when it ran.
struct Generation {
  std::string name;
  uint64_t address = 0;
  uint64_t start = 0, end = 0;
};

std::vector<Generation> ParseGenerations(const std::string& out) {
  std::vector<Generation> generations;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    Generation g;
    std::istringstream words(line);
    std::string address;
    words >> g.name >> address >> g.start >> g.end;
    g.address = std::stoull(address, nullptr, 16);
    generations.push_back(g);
  }
  return generations;
}

// Four program images, each reporting its gen_N as method 1000, resolved at the middle of each
// one's run: gen_N's code is gen_N while it runs, and nothing (or the later program's own code,
// should it have been placed at the same address) once the process exec'd.
TEST(ExecE2eTest, ResolveNamesEachProgramImagesCodeAndNothingOfTheOldAfterTheExec) {
  test_support::TempDir dir;
  const auto run = RunProgram(
      {EXEC_JIT, "0", "3", "20"},
      {{"INTEL_JIT_PROFILER64", JITSCOPE_COLLECTOR}, {"JITSCOPE_OUTPUT_DIR", dir.path()}});
  ASSERT_TRUE(run.ok()) << run.Describe();
  const std::vector<Generation> generations = ParseGenerations(run.out);
  ASSERT_EQ(generations.size(), 4u) << run.out;
  ASSERT_EQ(test_support::TracesIn(dir.path()).size(), 4u) << run.err;
  std::vector<std::string> argv = {JITSCOPE_CLI, "resolve", dir.path(), "--"};
  std::string expected;
  for (const Generation& code : generations) {
    for (const Generation& when : generations) {
      const uint64_t time = when.start + (when.end - when.start) / 2;
      argv.push_back(fmt::format("{:#x}@{}", code.address, time));
      const std::string name = when.address == code.address ? when.name : "??";
      expected += fmt::format("{:#x}@{}: {}\n", code.address, time,
                              name == "??" ? name : name + " [id 1000]");
    }
  }
  const auto resolved = RunProgram(argv);
  ASSERT_TRUE(resolved.ok()) << resolved.Describe();
  EXPECT_EQ(resolved.out, expected);
}

// `jitscope record` of two program images: each one's samples are named by its own function,
// and unwound through its own code (before, gen_1's code was taken for a second region of
// gen_0, and its walks had no rule).
TEST(ExecE2eTest, ReportNamesEachProgramImagesSamples) {
  test_support::TempDir dir;
  const std::string session = dir.path() + "/session";
  const auto record =
      RunProgram({JITSCOPE_CLI, "record", "-o", session, "--", EXEC_JIT, "0", "1", "300"});
  ASSERT_TRUE(record.ok()) << record.Describe();
  ASSERT_EQ(ParseGenerations(record.out).size(), 2u) << record.out;
  base::StatusOr<Profile> profile = BuildProfile(session, BuildOptions{});
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  std::map<std::string, uint64_t> jit_leaves;
  for (const Stack& stack : profile->stacks) {
    const Location& leaf = profile->locations[stack.frames.front()];
    if (leaf.kind == FrameKind::kJit) jit_leaves[leaf.function] += stack.samples;
  }
  ASSERT_EQ(jit_leaves.size(), 2u) << profile->total_samples << " samples";
  // 300 ms of CPU time each, at 1,000 samples a second.
  EXPECT_GE(jit_leaves["gen_0"], 150u);
  EXPECT_GE(jit_leaves["gen_1"], 150u);
  uint64_t no_rule = 0;
  for (const auto& [reason, count] : profile->unwind_stops) {
    if (reason == "no rule") no_rule += count;
  }
  EXPECT_LT(no_rule * 10, jit_leaves["gen_1"]);
}

}  // namespace
}  // namespace jitscope::report
