// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Recorded sessions of real engines, checked in (tests/report/recorded/, README there), reported
// again: the samples file and perf.data readers, the JIT readers and the unwinding of JIT code
// see real data in every build, the sanitized ones included, without the engines. Each session
// was recorded with `--call-graph dwarf`, so its samples carry registers and stack copies.
//
// What is checked depends on the session's own files only: the JIT code's names, from its trace
// or jitdump, and the chains of JIT frames the walks find from a JIT leaf, with the rules derived
// from the recorded code bytes. The native frames below them come from the session's compact
// archive (`jitscope archive --compact`), not from this machine's files, which need not be the
// ones recorded (a newer libc, another build of jitvm): SelfContainedSessionTest checks that
// every file a session needs is inside it. The programs give every JIT function one caller, so
// each chain is the only right one.
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/record/touched_files.h"
#include "jitscope/session/elf_build_id.h"
#include "jitscope/session/samples_file.h"
#include "jitscope/session/session_info.h"

#include "support/folded.h"
#include "support/process.h"
#include "support/redefined_versions.h"

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
                        {"", 6},
                        {"main;outer;middle [baseline]", 1},
                        {"main;outer;middle [baseline];leaf", 5},
                        {"main;outer;middle [optimized];leaf", 72},
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
  EXPECT_EQ(chains, (std::map<std::string, uint64_t>{{"", 7}, {"jit_brgemm_kernel_t", 45}}));
}

// OpenJDK 17 under -Xint running CallChain (main → a → b → c, every frame interpreted), its JVM
// table kept for CallChain's methods and HotSpot's perf map for its `Interpreter` line
// (keep_jvm_session.py): the interpreter's frames are taken by their layout, each named from the
// table by the Method* and bytecode pointer it holds. Above main, HotSpot's call_stub has no
// rule (the agent's trace, which held its bytes, is not kept).
TEST(RecordedSessionsTest, JavaInterpreterFramesAreWalkedAndNamedFromTheJvmTable) {
  const auto chains = SamplesByJitChain(Report({kRecorded + "/java-xint"}));
  EXPECT_EQ(chains, (std::map<std::string, uint64_t>{
                        {"", 3},
                        {"CallChain.main([Ljava/lang/String:)V;CallChain.a(JI)J;CallChain.b(JI)J;"
                         "CallChain.c(JI)J",
                         62},
                    }));
}

// OpenJDK 17 under -Xint running Redefining, which redefines its class Redefined five times, from
// version 1 (hot calls before) to version 2 (hot calls after) and back; its JVM table kept for
// Redefining's and Redefined's methods and the ENDs of their Method*s (keep_jvm_session.py).
// Each version's methods are new Method*s, from the third on in the memory of the version
// before last's, often another method's (version 1's hot is version 3's constructor): every
// frame is named from the entry of the version that held its Method* at the sample's time, at
// that version's lines (support/redefined_versions.h).
TEST(RecordedSessionsTest, AJavaClassRedefinedIsNamedFromTheVersionThatRanEachFrame) {
  const std::string dir = kRecorded + "/java-redefined";
  // One sample is deep in the JDK's own methods, whose entries were not kept: 37 interpreter
  // frames, none named.
  std::string unnamed = "Interpreter";
  for (int i = 1; i < 37; ++i) unnamed += ";Interpreter";
  const auto chains = SamplesByJitChain(Report({dir}));
  EXPECT_EQ(chains, (std::map<std::string, uint64_t>{
                        {"", 3},
                        {unnamed, 1},
                        {"Redefining.main([Ljava/lang/String:)V;Redefined.hot(JI)J;"
                         "Redefined.before(JI)J",
                         44},
                        {"Redefining.main([Ljava/lang/String:)V;Redefined.hot(JI)J;"
                         "Redefined.after(JI)J",
                         26},
                    }));
  // By the lines, version 1's hot calling before in 44 samples, version 2's calling after in 26.
  const auto speedscope = RunProgram({JITSCOPE_CLI, "report", dir, "--format", "speedscope"});
  ASSERT_TRUE(speedscope.ok()) << speedscope.Describe();
  const auto share = test_support::CheckRedefinedStacks(speedscope.out);
  EXPECT_EQ(share.wrong, std::vector<std::string>{});
  EXPECT_EQ(share.work, 70u);
  EXPECT_EQ(share.named, 70u);
  EXPECT_EQ(share.version_samples[0], 44u);
  EXPECT_EQ(share.version_samples[1], 26u);
}

// Node 20 with only a perf map (`node --perf-basic-prof three_levels.js`): its code named from the
// perf map kept in the session; TurboFan's code (*outer, holding middle and leaf inlined, and
// *leaf) unwound by rules derived from the code record read from the running process
// (captured-PID.jsr), V8's embedded builtins, which node's file has no CFI for, by rules derived
// from the bytes its compact copy kept. A perf map names no interpreted function: those frames
// are V8's InterpreterEntryTrampoline (node's own loader's, then the script's). With
// --mark-guesses a walk the frame-pointer chain carried on would break its chain of JIT frames.
TEST(RecordedSessionsTest, NodeWithOnlyAPerfMapUnwindsByTheCodeReadWhileRecording) {
  const std::string dir = kRecorded + "/node-perfmap";
  const auto text = RunProgram({JITSCOPE_CLI, "report", dir});
  ASSERT_TRUE(text.ok()) << text.Describe();
  EXPECT_NE(text.out.find("# stacks unwound from DWARF call-frame information, walks ending in: 47 "
                          "end of stack, 1 stack copy too short\n"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("\n# 41 walks rest on code read from the running process"),
            std::string::npos)
      << text.out;
  // The chain from JSEntry through `trampolines` interpreted frames to `leaf`.
  const auto chain = [](int trampolines, const std::string& leaf) {
    std::string frames = "Builtin:JSEntry;Builtin:JSEntryTrampoline;";
    for (int i = 0; i < trampolines; ++i) frames += "Builtin:InterpreterEntryTrampoline;";
    return frames + leaf;
  };
  const std::string script = "/tmp/jitscope-recorded/three_levels.js";
  const auto chains = SamplesByJitChain(Report({dir, "--mark-guesses"}));
  EXPECT_EQ(chains, (std::map<std::string, uint64_t>{
                        {"", 6},
                        {chain(7, "JS:*outer " + script + ":7:15"), 26},
                        {chain(9, "JS:*leaf " + script + ":5:14"), 15},
                        {chain(8, "BytecodeHandler:GetNamedProperty"), 1},
                    }));
}

// Every file a recorded session's samples need is inside it, so it reports the same on any
// machine: each ELF file they touched (record::TouchedFiles: the files their walks and names
// read) has its archived copy (`jitscope archive --compact`), of the build the recording saw, and
// the report reads them and warns of no file (none replaced, none missing, no JIT file kept
// elsewhere): its one warning, if any, is that walks ran out of the stack copies.
class SelfContainedSessionTest : public ::testing::TestWithParam<const char*> {};

TEST_P(SelfContainedSessionTest, EveryFileItsSamplesNeedIsInside) {
  const std::string dir = kRecorded + "/" + GetParam();
  auto data = session::ReadSamplesFile(dir + "/" + session::kSamplesFileName);
  ASSERT_TRUE(data.ok()) << data.status().message();
  std::set<uint32_t> pids;
  data->ForEachSample([&](const session::Sample& sample) { pids.insert(sample.pid); });
  std::map<std::pair<uint32_t, std::string>, std::string> recorded;
  for (const session::Mapping& mapping : data->mappings) {
    recorded.emplace(std::pair{mapping.pid, mapping.filename}, mapping.build_id);
  }
  size_t files = 0;
  for (const auto& [pid, paths] : record::TouchedFiles(*data, pids)) {
    for (const std::string& path : paths) {
      const std::string copy = dir + "/" + session::KeptFileName(path);
      ASSERT_TRUE(std::filesystem::is_regular_file(copy)) << path << " is not in the session";
      const std::string& build_id = recorded[{pid, path}];
      EXPECT_FALSE(build_id.empty()) << path;
      EXPECT_EQ(session::BuildIdOfFile(copy), build_id) << path;
      ++files;
    }
  }
  EXPECT_GT(files, 0u);
  const auto report = RunProgram({JITSCOPE_CLI, "report", dir});
  ASSERT_TRUE(report.ok()) << report.Describe();
  EXPECT_NE(report.out.find(" native files read from the session's archive (" + dir + "/files)"),
            std::string::npos)
      << report.out;
  for (size_t at = report.out.find("# warning: "); at != std::string::npos;
       at = report.out.find("# warning: ", at + 1)) {
    const std::string line = report.out.substr(at, report.out.find('\n', at) - at);
    EXPECT_NE(line.find(" ran out of the "), std::string::npos) << line;
  }
  EXPECT_EQ(report.err, "");
}

INSTANTIATE_TEST_SUITE_P(RecordedSessions, SelfContainedSessionTest,
                         ::testing::Values("jitvm-nofp", "lli", "onednn", "java-xint",
                                           "java-redefined", "node-perfmap"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::erase(name, '-');
                           return name;
                         });

}  // namespace
}  // namespace jitscope::report
