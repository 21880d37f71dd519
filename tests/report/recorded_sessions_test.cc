// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Recorded sessions of real engines, checked in (tests/report/recorded/, README there), reported
// again: the samples file and perf.data readers, the JIT readers and the unwinding of JIT code
// see real data in every build, the sanitized ones included, without the engines. Each session
// was recorded with `--call-graph dwarf`, so its samples carry registers and stack copies.
//
// What is checked depends on the session's own files only: the JIT code's names, from its trace
// or jitdump, and the chains of JIT frames the walks find from a JIT leaf, with the rules derived
// from the recorded code bytes. The native frames below them come from this machine's files,
// which need not be the ones recorded (a newer libc, another build of jitvm), so they are not.
// The programs give every JIT function one caller, so each chain is the only right one.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/folded.h"
#include "support/process.h"

namespace jitscope::report {
namespace {

using test_support::FoldedStack;
using test_support::ParseFolded;
using test_support::RunProgram;

const std::string kRecorded = RECORDED_SESSIONS;

// The samples of `folded` by the innermost run of JIT frames of their stacks ("main;leaf", the
// annotations left out); samples whose leaf is not JIT code count under "".
std::map<std::string, uint64_t> SamplesByJitChain(const std::vector<FoldedStack>& stacks) {
  std::map<std::string, uint64_t> chains;
  for (const FoldedStack& stack : stacks) {
    std::string chain;
    for (auto frame = stack.frames.rbegin(); frame != stack.frames.rend(); ++frame) {
      if (!frame->ends_with("_[j]")) break;
      const std::string name = frame->substr(0, frame->size() - 4);
      chain = chain.empty() ? name : name + ";" + chain;
    }
    chains[chain] += stack.samples;
  }
  return chains;
}

// `jitscope report INPUT --format folded` and more arguments; the stacks it printed.
std::vector<FoldedStack> Report(const std::vector<std::string>& arguments) {
  std::vector<std::string> argv = {JITSCOPE_CLI, "report"};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  argv.insert(argv.end(), {"--format", "folded"});
  auto result = RunProgram(argv);
  EXPECT_TRUE(result.ok()) << result.Describe();
  return ParseFolded(result.out);
}

// jitvm --no-frame-pointers one_caller.jv: leaf is called by middle only, middle by outer, outer
// by main, in both tiers; the optimizing tier's code has no frame pointer and its leaf a cold
// region. From the collector's trace, which holds the code bytes.
TEST(RecordedSessionsTest, JitvmWithoutFramePointersUnwindsThroughEveryJitFrame) {
  const auto chains = SamplesByJitChain(Report({kRecorded + "/jitvm-nofp"}));
  EXPECT_EQ(chains, (std::map<std::string, uint64_t>{
                        {"", 2},
                        {"main;outer;middle [baseline];leaf", 3},
                        {"main;outer;middle [optimized];leaf", 42},
                    }));
}

// The same program under Debian's perf (`perf record -k 1 --call-graph dwarf`), its JIT code in
// the collector's jitdump beside it: the perf.data reader and the same unwinding.
TEST(RecordedSessionsTest, PerfDataOfJitvmWithoutFramePointersUnwindsAlike) {
  const std::string dir = kRecorded + "/perf-jitvm-nofp";
  const auto chains = SamplesByJitChain(Report({dir + "/perf.data", "--jit", dir}));
  EXPECT_EQ(chains, (std::map<std::string, uint64_t>{
                        {"", 1},
                        {"jitvm-baseline!main;jitvm-baseline!outer;jitvm-baseline!middle;"
                         "jitvm-baseline!leaf",
                         3},
                        {"jitvm-baseline!main;jitvm-baseline!outer;jitvm-optimized!middle;"
                         "jitvm-optimized!leaf",
                         44},
                    }));
}

// lli-14 -jit-kind=mcjit of lli_chain.c: LLVM's code, without frame pointers or recorded unwind
// tables, main > middle > leaf; its jitdump (LLVM's perf listener) copied into the session.
TEST(RecordedSessionsTest, LlvmJitCodeUnwindsFromItsJitdumpsBytes) {
  const auto chains = SamplesByJitChain(Report({kRecorded + "/lli"}));
  EXPECT_EQ(chains, (std::map<std::string, uint64_t>{{"", 5}, {"main;middle;leaf", 40}}));
}

// Debian's oneDNN through its bundled Intel stub and the collector: the brgemm kernel, named
// from the trace, takes the samples.
TEST(RecordedSessionsTest, OnednnKernelIsNamedFromTheTrace) {
  const auto chains = SamplesByJitChain(Report({kRecorded + "/onednn"}));
  EXPECT_EQ(chains, (std::map<std::string, uint64_t>{{"", 2}, {"jit_brgemm_kernel_t", 49}}));
}

}  // namespace
}  // namespace jitscope::report
