// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// End to end: `jitscope record --call-graph dwarf` of the example JIT running without frame
// pointers (`jitvm --no-frame-pointers`), then `jitscope report`. The program, one_caller.jv,
// gives every function one caller, so each sample's true call stack follows from its leaf:
// main > outer > middle (twice inlined) > leaf, in the baseline tier and then the optimizing
// one (leaf split into a hot and a cold region).
//
// JIT code has no call-frame information, so today each walk that reaches JIT code stops there
// with "no rule": the outermost frame of every stack through JIT code is a JIT frame.
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../support/subprocess.h"

namespace jitscope::report {
namespace {

using test_support::RunProgram;
using test_support::TempDir;

struct FoldedStack {
  std::vector<std::string> frames;  // outermost first
  uint64_t samples = 0;
};

std::vector<FoldedStack> ParseFolded(const std::string& folded) {
  std::vector<FoldedStack> stacks;
  std::istringstream lines(folded);
  for (std::string line; std::getline(lines, line);) {
    const size_t space = line.rfind(' ');
    if (space == std::string::npos) continue;
    FoldedStack stack;
    stack.samples = std::stoull(line.substr(space + 1));
    std::istringstream frames(line.substr(0, space));
    for (std::string frame; std::getline(frames, frame, ';');) stack.frames.push_back(frame);
    stacks.push_back(std::move(stack));
  }
  return stacks;
}

bool IsJitFrame(const std::string& frame) { return frame.ends_with("_[j]"); }

// Records one_caller.jv under --call-graph dwarf; returns the session directory.
std::string RecordOneCaller(const TempDir& tmp, const std::vector<std::string>& jitvm_options) {
  const std::string dir = tmp.path() + "/session";
  std::vector<std::string> argv = {JITSCOPE_CLI, "record", "--call-graph", "dwarf",
                                   "-o",         dir,      "--",           JITVM};
  argv.insert(argv.end(), jitvm_options.begin(), jitvm_options.end());
  argv.push_back(ONE_CALLER_JV);
  argv.push_back("20000");
  auto result = RunProgram(argv);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return dir;
}

TEST(JitUnwindE2eTest, WalksStopAtTheFirstJitFrameWithoutFramePointers) {
  TempDir tmp;
  const std::string dir = RecordOneCaller(tmp, {"--no-frame-pointers"});
  auto text = RunProgram({JITSCOPE_CLI, "report", dir});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find(" no rule"), std::string::npos) << text.out;

  auto folded = RunProgram({JITSCOPE_CLI, "report", dir, "--format", "folded"});
  ASSERT_EQ(folded.exit_code, 0) << folded.err;
  uint64_t in_leaf = 0, through_jit = 0, stopped_at_jit = 0;
  for (const FoldedStack& stack : ParseFolded(folded.out)) {
    bool has_jit = false;
    for (const std::string& frame : stack.frames) {
      has_jit |= IsJitFrame(frame);
      if (frame.starts_with("leaf [") && IsJitFrame(frame)) in_leaf += stack.samples;
    }
    if (!has_jit) continue;
    through_jit += stack.samples;
    if (IsJitFrame(stack.frames.front())) stopped_at_jit += stack.samples;
  }
  ASSERT_GT(in_leaf, 50u) << folded.out;
  EXPECT_EQ(stopped_at_jit, through_jit) << folded.out;
}

}  // namespace
}  // namespace jitscope::report
