// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// End to end: `jitscope record --call-graph dwarf` of a native program without frame pointers
// (no_frame_pointers.c), then `jitscope report`: the unwound stacks reach the thread's entry
// through every caller, where the kernel's frame-pointer chain of the same program does not.
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "support/folded.h"
#include "support/i386_kernel.h"
#include "support/process.h"
#include "support/report_header.h"
#include "support/temp_dir.h"

namespace jitscope::report {
namespace {

using test_support::FoldedStack;
using test_support::ParseFolded;
using test_support::RunProgram;
using test_support::ShareWalkedThrough;
using test_support::TempDir;
using test_support::WalkShare;

// Of the folded samples whose leaf is `inner`: how many, and how many have all of inner's callers
// up to main (and, if `from_entry`, the thread's entry above it).
WalkShare CompleteStacks(const std::string& folded, bool from_entry) {
  return ShareWalkedThrough(ParseFolded(folded), "inner", {"main", "outer", "middle", "inner"},
                            from_entry);
}

std::string Record(const TempDir& tmp, const std::string& call_graph,
                   const std::string& program = NO_FRAME_POINTERS) {
  const std::string dir = tmp.path() + "/" + call_graph;
  auto result = RunProgram(
      {JITSCOPE_CLI, "record", "--call-graph", call_graph, "-o", dir, "--", program, "0.4"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return dir;
}

// At least 95% of the session's samples in `inner` have every caller up to the thread's entry.
void ExpectCompleteFromTheEntry(const std::string& dir) {
  auto folded = RunProgram({JITSCOPE_CLI, "report", dir, "--format", "folded"});
  ASSERT_EQ(folded.exit_code, 0) << folded.err;
  const WalkShare share = CompleteStacks(folded.out, /*from_entry=*/true);
  ASSERT_GT(share.total, 100u) << folded.out;
  EXPECT_GE(share.complete * 100, share.total * 95)
      << share.complete << " of " << share.total << "\n"
      << folded.out;
}

TEST(DwarfUnwindE2eTest, StacksWithoutFramePointersReachTheThreadsEntry) {
  TempDir tmp;
  const std::string dir = Record(tmp, "dwarf");
  ExpectCompleteFromTheEntry(dir);

  auto text = RunProgram({JITSCOPE_CLI, "report", dir});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("# stacks unwound from DWARF call-frame information, walks ending in: "),
            std::string::npos)
      << text.out;
  EXPECT_EQ(text.out.find("ran out of the"), std::string::npos) << "no advice when copies suffice";
}

// With 8 bytes of stack copy no walk gets out of inner by the copy alone. The program with frame
// pointers: each of its functions keeps a frame record, which its CFI says (CFA = rbp + 16), and
// the kernel's frame-pointer chain read the words past the copy that those rules read, so the walks
// go on by rules up to __libc_start_call_main, glibc's, which keeps none (where they end, still
// "stack copy too short"). The same program without frame pointers: no rule proves a record, and
// the walks stay in inner.
TEST(DwarfUnwindE2eTest, WalksPastTheCopyGoOnThroughFrameRecordsByTheKernelsChain) {
  TempDir tmp;
  std::map<std::string, uint64_t> steps;  // record's count of the last recording's steps
  auto walked = [&](const std::string& program) {
    const std::string dir = tmp.path() + "/" + program.substr(program.rfind('/') + 1);
    auto result = RunProgram(
        {JITSCOPE_CLI, "record", "--call-graph", "dwarf,8", "-o", dir, "--", program, "0.4"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    steps = test_support::CountsAfter(result.err, "steps by rule: ");
    auto folded = RunProgram({JITSCOPE_CLI, "report", dir, "--format", "folded"});
    EXPECT_EQ(folded.exit_code, 0) << folded.err;
    WalkShare share;
    for (const FoldedStack& stack : ParseFolded(folded.out)) {
      if (stack.leaf() != "inner") continue;
      share.total += stack.samples;
      const std::vector<std::string> whole = {"__libc_start_call_main", "main", "outer", "middle",
                                              "inner"};
      if (stack.frames == whole) share.complete += stack.samples;
    }
    return std::make_pair(share, folded.out);
  };
  const auto [with_records, with_out] = walked(WITH_FRAME_POINTERS);
  ASSERT_GT(with_records.total, 100u) << with_out;
  EXPECT_GE(with_records.complete * 100, with_records.total * 95)
      << with_records.complete << " of " << with_records.total << "\n"
      << with_out;
  // main, outer, middle (and inner where the sample was in its body): four steps a walk.
  EXPECT_GE(steps["frame records past the copy"], with_records.complete * 3) << with_out;
  const auto [without, without_out] = walked(NO_FRAME_POINTERS);
  ASSERT_GT(without.total, 100u) << without_out;
  EXPECT_EQ(without.complete, 0u) << without_out;
}

// Copies too small for the stacks: the header counts the walks they cut short, and says how to
// record more of each stack.
TEST(DwarfUnwindE2eTest, WalksCutShortByTheStackCopyComeWithAdvice) {
  TempDir tmp;
  const std::string dir = Record(tmp, "dwarf,64");
  auto text = RunProgram({JITSCOPE_CLI, "report", dir});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  // "# stacks unwound ..., walks ending in: 3 end of stack, 391 stack copy too short"
  const std::string ends = "walks ending in: ";
  const size_t at = text.out.find(ends);
  ASSERT_NE(at, std::string::npos) << text.out;
  const std::string line = text.out.substr(at, text.out.find('\n', at) - at);
  const size_t reason = line.find(" stack copy too short");
  ASSERT_NE(reason, std::string::npos) << line;
  const size_t count_start = line.find_last_of(" ", reason - 1) + 1;
  const std::string short_walks = line.substr(count_start, reason - count_start);
  const std::string advice = "# warning: " + short_walks + " of ";
  const size_t warning = text.out.find(advice);
  ASSERT_NE(warning, std::string::npos) << text.out;
  const std::string rest = text.out.substr(warning, text.out.find('\n', warning) - warning);
  EXPECT_NE(rest.find(" ran out of the 64-byte stack copies before the thread's entry: "
                      "'jitscope record --call-graph dwarf,65528' copies more of each stack (the "
                      "samples it cannot unwind while it records keep the stack in use, up to "
                      "that size, on disk until it ends)"),
            std::string::npos)
      << rest;
}

#if defined(JITSCOPE_LIB32_DIR) || defined(JITSCOPE_LIB32_UNAVAILABLE)
// An i386 process: its samples carry the 32-bit register set (the sample's abi says so), which
// the unwinder walks with i386 DWARF numbering and 4-byte stack words.
TEST(DwarfUnwindE2eTest, I386ProcessesAreUnwoundWithTheirOwnRegisterSet) {
#ifdef JITSCOPE_LIB32_UNAVAILABLE
  FAIL() << "this machine cannot build for i386: " << JITSCOPE_LIB32_UNAVAILABLE;
#else
  TempDir tmp;
  const std::string program = tmp.path() + "/no_frame_pointers32";
  auto build =
      RunProgram({JITSCOPE_PLAIN_CC, "-m32", "-O2", "-fomit-frame-pointer",
                  "-fasynchronous-unwind-tables", NO_FRAME_POINTERS_SOURCE, "-o", program});
  ASSERT_EQ(build.exit_code, 0) << build.err;
  if (!test_support::KernelRunsI386Programs()) GTEST_SKIP() << test_support::kNoI386Kernel;
  const std::string dir = Record(tmp, "dwarf", program);
  ExpectCompleteFromTheEntry(dir);
#endif
}
#endif

// Native code without CFI: inner has none, its callers have theirs. The rules of inner's code are
// derived from the file's bytes, found by its symbol or, in the stripped program, as the gap
// between the code the file's .eh_frame describes; each step out of it is checked to return after
// a call in middle, and record counts it apart. Every walk from inner reaches the thread's entry,
// where none did by CFI alone.
TEST(DwarfUnwindE2eTest, NativeCodeWithoutCfiIsUnwoundByRulesFromTheFilesBytes) {
  for (const char* program : {NATIVE_WITHOUT_CFI, NATIVE_WITHOUT_CFI_STRIPPED}) {
    SCOPED_TRACE(program);
    TempDir tmp;
    const std::string dir = tmp.path() + "/session";
    auto result = RunProgram(
        {JITSCOPE_CLI, "record", "--call-graph", "dwarf", "-o", dir, "--", program, "0.4"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const std::map<std::string, uint64_t> steps =
        test_support::CountsAfter(result.err, "steps by rule: ");
    const auto native = steps.find("derived from native code without CFI");
    EXPECT_GT(native == steps.end() ? 0 : native->second, 100u) << result.err;
    auto folded = RunProgram({JITSCOPE_CLI, "report", dir, "--format", "folded"});
    ASSERT_EQ(folded.exit_code, 0) << folded.err;
    // The stripped program names its own functions by file offset ("FILE+0xOFFSET"): there the
    // samples counted are those in any of its functions, nearly all of them in inner, which spins.
    const std::string file = program;
    const std::string base = file.substr(file.rfind('/') + 1);
    auto ours = [&](const std::string& frame, const char* name) {
      return frame == name || frame.starts_with(base + "+0x");
    };
    WalkShare share;
    for (const FoldedStack& stack : ParseFolded(folded.out)) {
      std::vector<std::string> frames = stack.frames;
      while (!frames.empty() && frames.back().ends_with("_[k]")) frames.pop_back();
      const size_t n = frames.size();
      if (n == 0 || !ours(frames.back(), "inner")) continue;
      share.total += stack.samples;
      if (n == 5 && test_support::IsThreadEntryFrame(frames[0]) && ours(frames[1], "main") &&
          ours(frames[2], "outer") && ours(frames[3], "middle")) {
        share.complete += stack.samples;
      }
    }
    ASSERT_GT(share.total, 100u) << folded.out;
    EXPECT_GE(share.complete * 100, share.total * 95)
        << share.complete << " of " << share.total << "\n"
        << folded.out;
  }
}

// The control: the same program's frame-pointer chains lose inner's callers.
TEST(DwarfUnwindE2eTest, FramePointerChainsOfTheSameProgramDoNot) {
  TempDir tmp;
  const std::string dir = Record(tmp, "fp");
  auto folded = RunProgram({JITSCOPE_CLI, "report", dir, "--format", "folded"});
  ASSERT_EQ(folded.exit_code, 0) << folded.err;
  const WalkShare share = CompleteStacks(folded.out, /*from_entry=*/false);
  ASSERT_GT(share.total, 100u) << folded.out;
  EXPECT_LT(share.complete * 100, share.total * 50) << folded.out;
  auto text = RunProgram({JITSCOPE_CLI, "report", dir});
  EXPECT_EQ(text.out.find("walks ending in"), std::string::npos) << "no unwinding in fp sessions";
}

// A stripped program has no symbols, but its code is still named: by file offset, which
// addr2line resolves in the unstripped original to the function that ran.
TEST(DwarfUnwindE2eTest, CodeOfAStrippedFileIsNamedByItsFileOffset) {
  TempDir tmp;
  const std::string stripped = tmp.path() + "/nfp_stripped";
  auto strip = RunProgram({"/usr/bin/strip", "-o", stripped, NO_FRAME_POINTERS});
  ASSERT_EQ(strip.exit_code, 0) << strip.err;
  auto folded =
      RunProgram({JITSCOPE_CLI, "report", Record(tmp, "dwarf", stripped), "--format", "folded"});
  ASSERT_EQ(folded.exit_code, 0) << folded.err;
  // The leaf frame with the most samples.
  std::map<std::string, uint64_t> leaves;
  for (const FoldedStack& stack : ParseFolded(folded.out)) {
    EXPECT_EQ(stack.Joined().find("[unknown]"), std::string::npos) << stack.Joined();
    leaves[stack.leaf()] += stack.samples;
  }
  const auto hottest = std::max_element(leaves.begin(), leaves.end(),
                                        [](auto& a, auto& b) { return a.second < b.second; });
  ASSERT_NE(hottest, leaves.end());
  ASSERT_TRUE(hottest->first.starts_with("nfp_stripped+0x")) << folded.out;
  const std::string offset = hottest->first.substr(std::string("nfp_stripped+").size());
  auto line = RunProgram({"/usr/bin/addr2line", "-f", "-e", NO_FRAME_POINTERS, offset});
  ASSERT_EQ(line.exit_code, 0) << line.err;
  EXPECT_TRUE(line.out.starts_with("inner\n")) << line.out;
}

}  // namespace
}  // namespace jitscope::report
