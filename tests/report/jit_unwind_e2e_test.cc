// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// End to end: `jitscope record --call-graph dwarf` of the example JIT running without frame
// pointers (`jitvm --no-frame-pointers`), then `jitscope report`. The program, one_caller.jv,
// gives every function one caller, so each sample's true call stack follows from its leaf:
// main > outer > middle (twice inlined) > leaf, in the baseline tier and then the optimizing
// one (leaf split into a hot and a cold region).
//
// JIT code has no call-frame information; report derives unwind rules from the code bytes the
// trace holds (unwind/derived_rules.h). So the walks reach the thread's entry through every JIT
// frame, with and without frame pointers, and name exactly the one possible chain of callers;
// from a perf.data `perf record --call-graph dwarf` wrote as well.
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "support/files.h"
#include "support/folded.h"
#include "support/process.h"
#include "support/report_header.h"
#include "support/temp_dir.h"
#include "support/v8_names.h"

namespace jitscope::report {
namespace {

using test_support::FoldedStack;
using test_support::ParseFolded;
using test_support::RemovePerfMapsKeptIn;
using test_support::RunProgram;
using test_support::TempDir;

bool IsJitFrame(const std::string& frame) { return frame.ends_with("_[j]"); }

// one_caller.jv's main runs 2000 rounds, again until jitvm has used 0.4 s of CPU time: some 400
// samples however fast the machine.
const std::vector<std::string> kOneCallerRun = {"--repeat-for=0.4", ONE_CALLER_JV, "2000"};

// Records one_caller.jv under --call-graph dwarf; returns the session directory.
std::string RecordOneCaller(const TempDir& tmp, const std::vector<std::string>& jitvm_options) {
  const std::string dir = tmp.path() + "/session";
  std::vector<std::string> argv = {JITSCOPE_CLI, "record", "--call-graph", "dwarf",
                                   "-o",         dir,      "--",           JITVM};
  argv.insert(argv.end(), jitvm_options.begin(), jitvm_options.end());
  argv.insert(argv.end(), kOneCallerRun.begin(), kOneCallerRun.end());
  auto result = RunProgram(argv);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return dir;
}

// A JIT frame of `function` ("leaf_[j]", or "leaf [optimized]_[j]" where both tiers ran).
bool IsJitFrameOf(const std::string& frame, const std::string& function) {
  return IsJitFrame(frame) && (frame == function + "_[j]" || frame.starts_with(function + " ["));
}

// The one true stack of a sample in leaf: the thread's entry, jitvm's C++ down to Vm::Run, then
// main > outer > middle > leaf in JIT code (and kernel frames below, if the sample was taken in
// the kernel).
bool IsExactLeafStack(std::vector<std::string> frames) {
  while (!frames.empty() && frames.back().ends_with("_[k]")) frames.pop_back();
  const size_t n = frames.size();
  if (n < 6 || frames.front() != "__libc_start_call_main") return false;
  if (!frames[n - 5].starts_with("jitscope::jitvm::Vm::Run(")) return false;
  const char* const jit[] = {"main", "outer", "middle", "leaf"};
  for (size_t i = 0; i < 4; ++i) {
    if (!IsJitFrameOf(frames[n - 4 + i], jit[i])) return false;
  }
  for (size_t i = 0; i + 4 < n; ++i) {
    if (IsJitFrame(frames[i])) return false;
  }
  return true;
}

// The same under Debian's perf: `perf record -k 1 --call-graph dwarf` (8 KiB stack copies) with
// the collector writing its trace beside perf.data; returns the perf.data. -N: no copies in
// ~/.debug, the build-id cache the perf runs of other tests read at the same time.
std::string PerfRecordOneCaller(const TempDir& tmp, const std::vector<std::string>& jitvm_options) {
  std::string command =
      "cd " + tmp.path() + " && " + PERF_PROGRAM +
      " record -q -N -k 1 --call-graph dwarf -e cpu-clock -F 999 -o perf.data -- " + JITVM;
  for (const std::string& option : jitvm_options) command += " " + option;
  for (const std::string& word : kOneCallerRun) command += " " + word;
  auto result =
      RunProgram({"/bin/sh", "-c", command}, {{"INTEL_JIT_PROFILER64", JITSCOPE_COLLECTOR}});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return tmp.path() + "/perf.data";
}

// Every sample in leaf of recording `dir` of one_caller.jv has the one true stack, but for 5%.
void ExpectExactLeafStacks(const std::string& dir) {
  auto text = RunProgram({JITSCOPE_CLI, "report", dir});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find(" end of stack"), std::string::npos) << text.out;
  // Call-consistency never refuses a step through code whose bytes are what ran.
  EXPECT_EQ(text.out.find("return address after no call"), std::string::npos) << text.out;

  auto folded = RunProgram({JITSCOPE_CLI, "report", dir, "--format", "folded"});
  ASSERT_EQ(folded.exit_code, 0) << folded.err;
  uint64_t in_leaf = 0, exact = 0;
  for (const FoldedStack& stack : ParseFolded(folded.out)) {
    bool leaf = false;
    for (const std::string& frame : stack.frames) leaf |= IsJitFrameOf(frame, "leaf");
    if (!leaf) continue;
    in_leaf += stack.samples;
    if (IsExactLeafStack(stack.frames)) exact += stack.samples;
  }
  ASSERT_GT(in_leaf, 50u) << folded.out;
  EXPECT_GE(exact * 100, in_leaf * 95) << exact << " of " << in_leaf << "\n" << folded.out;
}

void ExpectExactStacksThroughJitCode(const std::vector<std::string>& jitvm_options,
                                     bool perf = false) {
  TempDir tmp;
  ExpectExactLeafStacks(perf ? PerfRecordOneCaller(tmp, jitvm_options)
                             : RecordOneCaller(tmp, jitvm_options));
}

TEST(JitUnwindE2eTest, ExactStacksThroughJitCodeWithoutFramePointers) {
  ExpectExactStacksThroughJitCode({"--no-frame-pointers"});
}

TEST(JitUnwindE2eTest, ExactStacksThroughJitCodeWithFramePointers) {
  ExpectExactStacksThroughJitCode({});
}

// Whether process `pid` runs (it exists, and has not exited unreaped).
bool Runs(pid_t pid) {
  const std::string stat = test_support::ReadFile("/proc/" + std::to_string(pid) + "/stat");
  const size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] != 'Z';
}

uint64_t SizeOf(const std::string& path) {
  std::error_code error;
  const uintmax_t size = std::filesystem::file_size(path, error);
  return error ? 0 : size;
}

// `jitscope record` of `jitvm --no-frame-pointers` with `run` (options, one_caller.jv and its
// rounds), started, unwinding in batches of 256 KiB.
std::unique_ptr<test_support::Process> StartRecordingOneCaller(
    const std::string& dir, const std::vector<std::string>& run) {
  std::vector<std::string> argv = {JITSCOPE_CLI,         "record", "-o", dir, "--", JITVM,
                                   "--no-frame-pointers"};
  argv.insert(argv.end(), run.begin(), run.end());
  return std::make_unique<test_support::Process>(
      argv, std::map<std::string, std::string>{{"JITSCOPE_UNWIND_BATCH", "262144"}});
}

struct Unwound {
  uint64_t samples = 0;          // in all
  uint64_t while_recording = 0;  // of them
};

// Of what `jitscope record` said (`err`), that it unwound most of its samples while it recorded,
// and what waited for the end had no rule then; returns how many it unwound.
Unwound ExpectUnwoundWhileRecording(const std::string& err) {
  const std::string said = "jitscope record: unwound ";
  const size_t at = err.find(said);
  EXPECT_NE(at, std::string::npos) << err;
  if (at == std::string::npos) return {};
  const uint64_t samples = std::stoull(err.substr(at + said.size()));
  const size_t while_recording = err.find(" of them while recording");
  EXPECT_NE(while_recording, std::string::npos) << err;
  if (while_recording == std::string::npos) return {samples, 0};
  const size_t number = err.rfind(", ", while_recording);
  const uint64_t unwound = std::stoull(err.substr(number + 2));
  EXPECT_GT(samples, 300u) << err;
  // What waits for the end is what had no rule then: the collector's trace is written as the
  // code is loaded (the sanitized build's jitvm runs code without CFI, the sanitizer's own). A
  // batch may read the trace while a record is half written: a few more.
  const std::map<std::string, uint64_t> ends = test_support::CountsAfter(err, " s (");
  const uint64_t no_rule = ends.count("no rule") ? ends.at("no rule") : 0;
  EXPECT_LE(samples - unwound, no_rule + samples / 100) << err;
  EXPECT_GE(unwound * 100, samples * 80) << err;
  return {samples, unwound};
}

// record unwinds a command's samples while it records, batch by batch
// (walk/recording_unwinder.h): the samples file never holds more than the few stack copies no
// rule unwound yet, where it held every sample's stack copy until the end; and the stacks are the
// ones the unwinding at the end finds.
TEST(JitUnwindE2eTest, RecordUnwindsWhileItRecordsAndTheStackCopiesNeverPileUp) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/session";
  const auto record = StartRecordingOneCaller(dir, {"--repeat-for=0.8", ONE_CALLER_JV, "2000"});
  uint64_t largest = 0;
  while (Runs(record->pid())) {
    largest = std::max(largest, SizeOf(dir + "/samples.jss"));
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  auto recorded = record->Wait();
  ASSERT_EQ(recorded.exit_code, 0) << recorded.Describe();
  const Unwound unwound = ExpectUnwoundWhileRecording(recorded.err);
  // Raw, every sample would take kilobytes (the stack in use, up to the 32 KiB copy); unwound,
  // well under one. Only those that wait keep their copies.
  const uint64_t waited = unwound.samples - unwound.while_recording;
  EXPECT_LT(largest, waited * 32768 + unwound.samples * 512)
      << largest << " bytes for " << unwound.samples << " samples, " << waited << " waiting";
  ExpectExactLeafStacks(dir);
}

// record -p unwinds the samples of a process that was running before it while it records, as it
// does a command's: the collector's trace is where session.json says, the process's
// JITSCOPE_OUTPUT_DIR.
TEST(JitUnwindE2eTest, AttachedRecordUnwindsWhileItRecords) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/session";
  test_support::Process jitvm(
      {JITVM, "--no-frame-pointers", ONE_CALLER_JV, "1000000000"},
      {{"INTEL_JIT_PROFILER64", JITSCOPE_COLLECTOR}, {"JITSCOPE_OUTPUT_DIR", tmp.path()}});
  ASSERT_GT(jitvm.pid(), 0);
  for (int i = 0; i < 3000 && test_support::ProcessCpuTicks(jitvm.pid()) < 20; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  auto recorded = RunProgram({JITSCOPE_CLI, "record", "-p", std::to_string(jitvm.pid()), "-o", dir,
                              "--", CPU_TIME, "wait", "0.8", std::to_string(jitvm.pid())},
                             {{"JITSCOPE_UNWIND_BATCH", "262144"}});
  ::kill(jitvm.pid(), SIGKILL);
  jitvm.Wait();
  ASSERT_EQ(recorded.exit_code, 0) << recorded.Describe();
  ExpectUnwoundWhileRecording(recorded.err);
  ExpectExactLeafStacks(dir);
}

// A recorder killed while it unwinds leaves the samples it unwound and those it did not in one
// file, which report reads as it is: the samples of the batches written, each with its stack.
TEST(JitUnwindE2eTest, ARecorderKilledWhileItUnwindsLeavesASessionReportReads) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/session";
  const auto record = StartRecordingOneCaller(dir, {ONE_CALLER_JV, "100000000"});
  const pid_t command = test_support::WaitForChild(record->pid(), "jitvm", 1);
  ASSERT_NE(command, 0);
  for (int i = 0; i < 3000 && SizeOf(dir + "/samples.jss") < 64 * 1024; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(record->pid(), SIGKILL);
  ::kill(command, SIGKILL);
  record->Wait();
  ASSERT_GE(SizeOf(dir + "/samples.jss"), 64u * 1024);
  ExpectExactLeafStacks(dir);
}

// The walks' ends from the text header ("walks ending in: 2864 end of stack, 4 no rule"): the
// count of each reason.
std::map<std::string, uint64_t> WalkEnds(const std::string& text) {
  return test_support::CountsAfter(text, "walks ending in: ");
}

// The hot-spot program exercises all the example JIT does: tier-up inside running code, inlined
// callees three deep, split functions, replaced code unloaded and its memory reused. Without frame
// pointers, 95% of its walks still reach the thread's entry, and none is refused as inconsistent.
// JIT code reported by name only (a perf map: no code bytes, so no derived rule) stops every
// walk at its first JIT frame. Where the kernel's frame-pointer chain holds the address the walk
// stopped at, its frames beyond follow, after a [frame-pointer chain] frame that marks them as
// guesses; jitvm keeps frame pointers, so here they are the true callers.
TEST(JitUnwindE2eTest, AFramePointerChainCarriesOnWalksThatStopInCodeWithoutBytes) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/session";
  std::vector<std::string> argv = {JITSCOPE_CLI, "record",  "--call-graph", "dwarf",
                                   "--formats",  "perfmap", "-o",           dir,
                                   "--",         JITVM};
  argv.insert(argv.end(), kOneCallerRun.begin(), kOneCallerRun.end());
  auto recorded = RunProgram(argv, {{"JITSCOPE_PERF_MAP_DIR", tmp.path()}});
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  auto text = RunProgram({JITSCOPE_CLI, "report", dir, "--jit", tmp.path(), "--mark-guesses"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find(" walks that stopped carried on by the frame-pointer chain: the frames "
                          "outside [frame-pointer chain] are guesses\n"),
            std::string::npos)
      << text.out;
  auto folded = RunProgram(
      {JITSCOPE_CLI, "report", dir, "--jit", tmp.path(), "--format", "folded", "--mark-guesses"});
  ASSERT_EQ(folded.exit_code, 0) << folded.err;
  uint64_t in_leaf = 0;
  uint64_t carried = 0;
  for (const FoldedStack& stack : ParseFolded(folded.out)) {
    std::vector<std::string> frames = stack.frames;
    while (!frames.empty() && frames.back().ends_with("_[k]")) frames.pop_back();
    if (frames.empty() || !frames.back().ends_with("!leaf_[j]")) continue;
    in_leaf += stack.samples;
    const size_t n = frames.size();
    // middle's frame is the one the chain starts with. A perf map keeps no times: where the
    // optimised leaf's code took part of the baseline middle's old space, the rest of that space
    // still names middle.
    if (n >= 6 && frames[n - 2] == "[frame-pointer chain]" &&
        frames[n - 3].ends_with("!middle_[j]") && frames[n - 4].ends_with("!outer_[j]") &&
        frames[n - 5].ends_with("!main_[j]") &&
        frames[n - 6].starts_with("jitscope::jitvm::Vm::Run(")) {
      carried += stack.samples;
    }
  }
  ASSERT_GT(in_leaf, 50u) << folded.out;
  EXPECT_GT(carried * 100, in_leaf * 95) << carried << " of " << in_leaf << "\n" << folded.out;
}

// The samples of `recording` (a session or a perf.data) whose stack (kernel frames left out) ends
// in `leaf`, and of those the ones `exact` accepts (given the frames, outermost first); with the
// folded report.
struct LeafStacks {
  uint64_t in_leaf = 0;
  uint64_t exact = 0;
  std::string folded;
};
// More than `min_samples` samples in the leaf, at least 95% of them with the one true stack.
void ExpectMostLeafStacksExact(const LeafStacks& stacks, uint64_t min_samples) {
  ASSERT_GT(stacks.in_leaf, min_samples) << stacks.folded;
  EXPECT_GE(stacks.exact * 100, stacks.in_leaf * 95)
      << stacks.exact << " of " << stacks.in_leaf << "\n"
      << stacks.folded;
}

LeafStacks CountLeafStacks(const std::string& recording, const std::string& leaf,
                           const std::function<bool(const std::vector<std::string>&)>& exact,
                           const std::vector<std::string>& report_options = {}) {
  LeafStacks counts;
  std::vector<std::string> argv = {JITSCOPE_CLI, "report", recording, "--format", "folded"};
  argv.insert(argv.end(), report_options.begin(), report_options.end());
  auto folded = RunProgram(argv);
  EXPECT_EQ(folded.exit_code, 0) << folded.err;
  counts.folded = folded.out;
  for (const FoldedStack& stack : ParseFolded(folded.out)) {
    std::vector<std::string> frames = stack.frames;
    while (!frames.empty() && frames.back().ends_with("_[k]")) frames.pop_back();
    if (frames.empty() || frames.back() != leaf) continue;
    counts.in_leaf += stack.samples;
    if (exact(frames)) counts.exact += stack.samples;
  }
  return counts;
}

// report's header of session `dir`: more than `min_walks` walks, at least `percent` of them
// reaching the thread's entry, none refused by call-consistency unless `refusals_allowed` (code
// read from a running process after a sample may have changed since: a step into it is refused).
void ExpectWalksReachTheEntry(const std::string& dir, uint64_t min_walks, uint64_t percent,
                              bool refusals_allowed = false) {
  auto text = RunProgram({JITSCOPE_CLI, "report", dir});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  const std::map<std::string, uint64_t> ends = WalkEnds(text.out);
  uint64_t walks = 0;
  for (const auto& [reason, count] : ends) walks += count;
  ASSERT_GT(walks, min_walks) << text.out;
  const uint64_t complete = ends.count("end of stack") ? ends.at("end of stack") : 0;
  EXPECT_GE(complete * 100, walks * percent) << text.out;
  if (!refusals_allowed) {
    EXPECT_EQ(ends.count("return address after no call"), 0u) << text.out;
  }
}

TEST(JitUnwindE2eTest, HotspotWalksReachTheThreadsEntryWithoutFramePointers) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/session";
#ifdef JITSCOPE_SANITIZED_BUILD
  // The VM itself is instrumented here: AddressSanitizer's frames are larger (the default stack
  // copy falls short more often) and its runtime has hand-written code without CFI, which no
  // walk can pass. Neither is JIT code; the exact walks through it are checked above all the same.
  const char* call_graph = "dwarf,32768";
  const uint64_t percent = 90;
  // LeakSanitizer's check at exit scans memory from a clone of hand-written code without CFI:
  // a tenth of this short run's samples, whose walks stop there. It is not the VM's work.
  const std::map<std::string, std::string> env = {{"ASAN_OPTIONS", "detect_leaks=0"}};
#else
  const char* call_graph = "dwarf";
  const uint64_t percent = 95;
  const std::map<std::string, std::string> env;
#endif
  auto result =
      RunProgram({JITSCOPE_CLI, "record", "--call-graph", call_graph, "-o", dir, "--", JITVM,
                  "--no-frame-pointers", "--repeat-for=0.5", JITVM_PROGRAMS "/hotspot.jv", "100"},
                 env);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  ExpectWalksReachTheEntry(dir, 100, percent);
}

// lli_chain.c compiled for lli-14, in `tmp`.
std::string CompileLliChain(const TempDir& tmp) {
  const std::string ll = tmp.path() + "/lli_chain.ll";
  auto compile = RunProgram(
      {CLANG_14, "-O2", "-fomit-frame-pointer", "-S", "-emit-llvm", LLI_CHAIN_C, "-o", ll});
  EXPECT_EQ(compile.exit_code, 0) << compile.err;
  return ll;
}

// `jitscope record [extra] -- lli-14 -jit-kind=mcjit lli_chain.ll` with LLVM's jitdump in
// `jitdump_dir` (/dev/null: none, as LLVM cannot create its directory there); returns record's
// output.
test_support::ProcessResult RecordLliChain(const TempDir& tmp, const std::string& dir,
                                           const std::vector<std::string>& extra,
                                           const std::string& jitdump_dir) {
  const std::string ll = CompileLliChain(tmp);
  std::vector<std::string> argv = {JITSCOPE_CLI, "record", "--call-graph", "dwarf", "-o", dir};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.insert(argv.end(), {"--", LLI_14, "-jit-kind=mcjit", ll});
  auto record = RunProgram(argv, {{"JITDUMPDIR", jitdump_dir}});
  EXPECT_EQ(record.exit_code, 0) << record.Describe();
  return record;
}

// Every sample in leaf must have the one true stack: main > middle > leaf under the thread's
// entry.
void ExpectExactLliLeafStacks(const std::string& dir) {
  const LeafStacks stacks = CountLeafStacks(dir, "leaf_[j]", [](const auto& frames) {
    const size_t n = frames.size();
    return n >= 4 && frames.front() == "__libc_start_call_main" && frames[n - 3] == "main_[j]" &&
           frames[n - 2] == "middle_[j]";
  });
  ExpectMostLeafStacksExact(stacks, 50);
}

// Another engine: LLVM's MCJIT (lli-14) writes a jitdump with each function's code (and keeps its
// .eh_frame to itself). The rules derived from the jitdump's bytes carry every sample in leaf
// through middle and main to the thread's entry.
TEST(JitUnwindE2eTest, LliJitCodeIsUnwoundFromTheJitdumpsBytes) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/session";
  RecordLliChain(tmp, dir, {}, tmp.path());
  ExpectExactLliLeafStacks(dir);
}

// lli-14 hands the .eh_frame of the code MCJIT loads to libgcc (__register_frame); record
// --registered-frames keeps it. The walks through LLVM's code then take LLVM's own tables, which
// describe all of it (no step needs a rule derived from JIT code: the few derived from native
// code without CFI are crtstuff's, at exit), and still find each sample's one stack.
TEST(JitUnwindE2eTest, LlisRegisteredTablesTakeTheStepsThroughItsCode) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/session";
  auto record = RecordLliChain(tmp, dir, {"--registered-frames"}, tmp.path());
  const std::map<std::string, uint64_t> steps =
      test_support::CountsAfter(record.err, "steps by rule: ");
  EXPECT_GT(steps.count("engine tables") ? steps.at("engine tables") : 0, 100u) << record.err;
  EXPECT_EQ(steps.count("derived"), 0u) << record.err;
  ExpectExactLliLeafStacks(dir);
}

// The samples of a recording (a session or a perf.data) of lli_chain.c whose leaf is in JIT code
// no file names ("[anonymous]"), and those whose walk went from there through the other two JIT
// frames (main and middle) and lli's native frames to the thread's entry.
LeafStacks CountAnonymousLeaves(const std::string& recording) {
  return CountLeafStacks(recording, "[anonymous]", [](const auto& frames) {
    const size_t n = frames.size();
    return n >= 5 && frames.front() == "__libc_start_call_main" &&
           frames[n - 4].starts_with("llvm::MCJIT::runFunction(") &&
           frames[n - 3] == "[anonymous]" && frames[n - 2] == "[anonymous]";
  });
}

// Where no JIT file describes the code (LLVM cannot write its jitdump), the walks through it have
// no rule, unless the tables the engine registered were kept: then they reach the thread's entry
// through lli's native frames, with the three JIT frames (main, middle, leaf) unnamed.
TEST(JitUnwindE2eTest, LliCodeNoFileDescribesIsUnwoundByTheTablesItRegistered) {
  TempDir tmp;
  const std::string without = tmp.path() + "/without";
  RecordLliChain(tmp, without, {}, "/dev/null");
  const LeafStacks plain = CountAnonymousLeaves(without);
  ASSERT_GT(plain.in_leaf, 50u) << plain.folded;
  EXPECT_EQ(plain.exact, 0u) << plain.folded;

  const std::string with = tmp.path() + "/with";
  RecordLliChain(tmp, with, {"--registered-frames"}, "/dev/null");
  const LeafStacks registered = CountAnonymousLeaves(with);
  ExpectMostLeafStacksExact(registered, 50);
}

// The same under `perf record --call-graph dwarf` with libjitscope-frames.so preloaded by hand:
// it writes its file into the working directory, beside perf.data, where report finds it.
TEST(JitUnwindE2eTest, LliUnderPerfRecordIsUnwoundByTheTablesThePreloadKept) {
  TempDir tmp;
  const std::string ll = CompileLliChain(tmp);
  const std::string command =
      "cd " + tmp.path() + " && " + PERF_PROGRAM +
      " record -q -N -k 1 --call-graph dwarf -e cpu-clock -o perf.data -- " + LLI_14 +
      " -jit-kind=mcjit " + ll;
  auto perf = RunProgram({"/bin/sh", "-c", command},
                         {{"JITDUMPDIR", "/dev/null"}, {"LD_PRELOAD", JITSCOPE_FRAMES}},
                         {.unset = {"JITSCOPE_OUTPUT_DIR"}});
  ASSERT_EQ(perf.exit_code, 0) << perf.Describe();
  const LeafStacks counts = CountAnonymousLeaves(tmp.path() + "/perf.data");
  ExpectMostLeafStacksExact(counts, 50);
}

// jit_leaf_harness.c: native C without frame pointers calls a JIT leaf without one. Every
// function has one caller, so every sample in the leaf must have exactly the one true stack.
TEST(JitUnwindE2eTest, NativeCodeWithoutFramePointersCallingAJitLeafIsUnwoundExactly) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/session";
  auto record = RunProgram(
      {JITSCOPE_CLI, "record", "--call-graph", "dwarf", "-o", dir, "--", JIT_LEAF_HARNESS, "1"});
  ASSERT_EQ(record.exit_code, 0) << record.Describe();
  const LeafStacks stacks = CountLeafStacks(dir, "jit_leaf_[j]", [](const auto& frames) {
    const size_t n = frames.size();
    return n >= 5 && frames.front() == "__libc_start_call_main" && frames[n - 4] == "main" &&
           frames[n - 3] == "harness_outer" && frames[n - 2] == "harness_middle" &&
           std::count(frames.begin(), frames.end(), "main") == 1;
  });
  ASSERT_GT(stacks.in_leaf, 200u) << stacks.folded;
  EXPECT_EQ(stacks.exact, stacks.in_leaf) << stacks.folded;
}

// The names of a stack's frames in three_levels.js, outermost first: "" for the script's top
// level, then its functions ("JS:^outer /path/three_levels.js:6:15_[j]" is "outer").
std::vector<std::string> ScriptFrames(const std::vector<std::string>& frames,
                                      const std::string& script) {
  std::vector<std::string> names;
  for (std::string_view frame : frames) {
    if (frame.ends_with("_[j]")) frame.remove_suffix(4);
    const std::optional<test_support::V8CodeName> name = test_support::ParseV8CodeName(frame);
    if (!name || !name->script.ends_with("/" + script)) continue;
    names.push_back(name->function);
  }
  return names;
}

// Of the samples of session `dir` in three_levels.js's code: how many (`in_leaf`), and how many
// have the one true stack (`exact`): the script's frames are the top level (if `top_level`: a
// perf map names no interpreted code), then outer, middle and leaf in that order (an optimised
// frame may hold its callees inlined), under the thread's entry, every step a rule (no [unknown]
// frame, no guess of the frame-pointer chain).
LeafStacks CountExactScriptStacks(const std::string& dir, bool top_level = true) {
  LeafStacks counts;
  auto folded = RunProgram({JITSCOPE_CLI, "report", dir, "--format", "folded", "--mark-guesses"});
  EXPECT_EQ(folded.exit_code, 0) << folded.err;
  counts.folded = folded.out;
  const std::string script = "three_levels.js";
  const std::vector<std::string> order = {"", "outer", "middle", "leaf"};
  for (const FoldedStack& stack : ParseFolded(folded.out)) {
    const std::vector<std::string> names = ScriptFrames(stack.frames, script);
    if (names.empty()) continue;
    counts.in_leaf += stack.samples;
    bool right =
        stack.frames.front() == "__libc_start_call_main" && (!top_level || names.front().empty());
    size_t next = 0;
    for (const std::string& name : names) {
      const auto at =
          std::find(order.begin() + static_cast<std::ptrdiff_t>(next), order.end(), name);
      right = right && at != order.end();
      if (at != order.end()) next = static_cast<size_t>(at - order.begin()) + 1;
    }
    for (const std::string& frame : stack.frames) {
      right = right && frame != "[unknown]" && frame != "[frame-pointer chain]";
    }
    if (right) counts.exact += stack.samples;
  }
  return counts;
}

// `jitscope record --call-graph dwarf -o DIR -- node NODE_ARGS...`, run in `tmp` (where V8 writes
// its jitdumps).
test_support::ProcessResult RecordNode(const TempDir& tmp, const std::string& dir,
                                       const std::vector<std::string>& node_args) {
  std::vector<std::string> argv = {JITSCOPE_CLI, "record", "--call-graph", "dwarf",
                                   "-o",         dir,      "--",           NODE_PROGRAM};
  argv.insert(argv.end(), node_args.begin(), node_args.end());
  return RunProgram(argv, {}, {.cwd = tmp.path()});
}

// Node's V8 (`node --perf-prof`) with its baseline compiler from the start: the script's top level
// and its cold functions run as Sparkplug code, whose frame a call to the builtin
// BaselineOutOfLinePrologue builds (its bytes from node's own file, mapped where V8 runs its
// builtins), and whose calls leave the arguments for the callee to pop. Every function has one
// caller, so each sample's script frames must be in their one order under the thread's entry.
TEST(JitUnwindE2eTest, NodeBaselineCodeIsUnwoundThroughItsOutOfLinePrologue) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/session";
  auto record = RecordNode(tmp, dir, {"--perf-prof", "--always-sparkplug", THREE_LEVELS_JS, "1.2"});
  ASSERT_EQ(record.exit_code, 0) << record.Describe();
  ExpectWalksReachTheEntry(dir, 500, 95);
  const LeafStacks stacks = CountExactScriptStacks(dir);
  ExpectMostLeafStacksExact(stacks, 500);
}

// Node with only a perf map (`--perf-basic-prof`: names, no code bytes). record reads the code
// its samples land in from the running process, so the walks through V8's code, which keeps no
// CFI, take rules derived from the bytes read, and find each sample's one stack. Without the
// reads (--no-read-code) the walks stop at the first JIT frame.
TEST(JitUnwindE2eTest, NodeWithOnlyAPerfMapIsUnwoundByTheCodeRecordReads) {
  TempDir tmp;
  auto record = [&](const std::string& dir, const std::vector<std::string>& extra) {
    std::vector<std::string> argv = {JITSCOPE_CLI, "record", "--call-graph", "dwarf", "-o", dir};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.insert(argv.end(), {"--", NODE_PROGRAM, "--perf-basic-prof", THREE_LEVELS_JS, "1.2"});
    auto recorded = RunProgram(argv, {}, {.cwd = tmp.path()});
    EXPECT_EQ(recorded.exit_code, 0) << recorded.Describe();
    RemovePerfMapsKeptIn(dir);
    return recorded;
  };
  const std::string dir = tmp.path() + "/session";
  const auto read = record(dir, {});
  EXPECT_NE(read.err.find("jitscope record: read "), std::string::npos) << read.err;
  const std::map<std::string, uint64_t> steps =
      test_support::CountsAfter(read.err, "steps by rule: ");
  const auto captured = steps.find("derived from code read while recording");
  EXPECT_GT(captured == steps.end() ? 0 : captured->second, 500u) << read.err;
  ExpectWalksReachTheEntry(dir, 500, 95, /*refusals_allowed=*/true);
  auto text = RunProgram({JITSCOPE_CLI, "report", dir});
  EXPECT_NE(text.out.find(" walks rest on code read from the running process"), std::string::npos)
      << text.out;
  const LeafStacks stacks = CountExactScriptStacks(dir, /*top_level=*/false);
  ExpectMostLeafStacksExact(stacks, 500);

  const std::string unread = tmp.path() + "/unread";
  const auto not_read = record(unread, {"--no-read-code"});
  EXPECT_EQ(not_read.err.find("jitscope record: read "), std::string::npos) << not_read.err;
  const LeafStacks stopped = CountExactScriptStacks(unread, /*top_level=*/false);
  ASSERT_GT(stopped.in_leaf, 500u) << stopped.folded;
  EXPECT_LT(stopped.exact * 2, stopped.in_leaf) << stopped.folded;
}

// An async function's code after its first await runs from its resume points, which V8's
// baseline code reaches only through the generator's own table and leaves through a builtin that
// tears the frame down (await_levels.js, with only a perf map). The analysis takes the resume
// points as the table's cases, since they leave the way the function's first run does, with the
// same frame: each sample in leaf is walked through `work` to the thread's entry, every step by a
// rule. Before, the walks stopped at the return address into `work`.
TEST(JitUnwindE2eTest, NodeAsyncFunctionsResumePointsAreWalkedByRule) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/session";
  auto record =
      RecordNode(tmp, dir, {"--perf-basic-prof", "--always-sparkplug", AWAIT_LEVELS_JS, "1.0"});
  RemovePerfMapsKeptIn(dir);
  ASSERT_EQ(record.exit_code, 0) << record.Describe();
  auto folded = RunProgram({JITSCOPE_CLI, "report", dir, "--format", "folded", "--mark-guesses"});
  ASSERT_EQ(folded.exit_code, 0) << folded.err;
  const std::string work = std::string("JS:^work ") + AWAIT_LEVELS_JS + ":12:20_[j]";
  uint64_t in_leaf = 0, complete = 0;
  for (const FoldedStack& stack : ParseFolded(folded.out)) {
    const std::string& leaf = stack.leaf();
    if (!leaf.starts_with("JS:") || leaf.find(" " AWAIT_LEVELS_JS ":6:") == std::string::npos) {
      continue;
    }
    in_leaf += stack.samples;
    const auto& frames = stack.frames;
    const bool by_rule = std::none_of(frames.begin(), frames.end(), [](const std::string& frame) {
      return frame == "[frame-pointer chain]" || frame == "[unknown]";
    });
    if (by_rule && test_support::IsThreadEntryFrame(frames.front()) && frames.size() >= 2 &&
        frames[frames.size() - 2] == work) {
      complete += stack.samples;
    }
  }
  ASSERT_GT(in_leaf, 300u) << folded.out;
  EXPECT_GE(complete * 100, in_leaf * 95) << complete << " of " << in_leaf << "\n" << folded.out;
}

// Mono (`mono --jitmap`: a perf map, no code bytes; its JIT code keeps no frame pointers and
// pads call sites with lea rbp, [rbp + 0]) running three_levels.cs, compiled here with mcs. record
// reads the code from the running process, and each sample in Leaf has the one true stack, every
// step a rule: from the thread's entry through mono_main and mono_jit_exec into Mono's
// runtime-invoke wrapper, then Main, Outer, Middle and Leaf.
TEST(JitUnwindE2eTest, MonoWithOnlyAPerfMapIsUnwoundByTheCodeRecordReads) {
  TempDir tmp;
  const std::string program = tmp.path() + "/three_levels.exe";
  auto compiled = RunProgram({MCS_PROGRAM, "-out:" + program, THREE_LEVELS_CS});
  ASSERT_EQ(compiled.exit_code, 0) << compiled.Describe();
  const std::string dir = tmp.path() + "/session";
  auto record = RunProgram({JITSCOPE_CLI, "record", "--call-graph", "dwarf", "-o", dir, "--",
                            MONO_PROGRAM, "--jitmap", program, "1.0"},
                           {}, {.cwd = tmp.path()});
  RemovePerfMapsKeptIn(dir);
  ASSERT_EQ(record.exit_code, 0) << record.Describe();
  const std::map<std::string, uint64_t> steps =
      test_support::CountsAfter(record.err, "steps by rule: ");
  const auto captured = steps.find("derived from code read while recording");
  EXPECT_GT(captured == steps.end() ? 0 : captured->second, 2000u) << record.err;
  ExpectWalksReachTheEntry(dir, 500, 95, /*refusals_allowed=*/true);

  const std::vector<std::string> managed = {
      "(wrapper runtime-invoke) <Module>:runtime_invoke_int_object "
      "(object,intptr,intptr,intptr)_[j]",
      "ThreeLevels:Main (string[])_[j]", "ThreeLevels:Outer (long)_[j]",
      "ThreeLevels:Middle (long)_[j]", "ThreeLevels:Leaf (long)_[j]"};
  // Below the wrapper: Mono's native frames (its own functions by offset: mono-sgen is stripped).
  const auto exact = [&](const std::vector<std::string>& frames) {
    if (frames.size() < managed.size() + 3 || frames.front() != "__libc_start_call_main") {
      return false;
    }
    const auto wrapper = frames.end() - static_cast<std::ptrdiff_t>(managed.size());
    if (!std::equal(managed.begin(), managed.end(), wrapper)) return false;
    const auto main = std::find(frames.begin(), wrapper, "mono_main");
    if (std::find(main, wrapper, "mono_jit_exec") == wrapper) return false;
    return std::none_of(frames.begin(), wrapper, [](const std::string& frame) {
      return frame == "[unknown]" || frame == "[frame-pointer chain]" || frame.ends_with("_[j]");
    });
  };
  const LeafStacks stacks = CountLeafStacks(dir, managed.back(), exact, {"--mark-guesses"});
  ExpectMostLeafStacksExact(stacks, 500);
}

// Node's --perf-prof writes V8's own unwind tables for the code TurboFan compiles (it implies
// --perf-prof-unwinding-info on x64): the walks take steps by them, the rest of V8's code by
// derived rules and node's own by CFI, and reach the thread's entry.
TEST(JitUnwindE2eTest, NodesOwnTablesForTurboFansCodeTakeStepsOfTheWalks) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/session";
  auto record = RecordNode(tmp, dir, {"--perf-prof", THREE_LEVELS_JS, "1.2"});
  ASSERT_EQ(record.exit_code, 0) << record.Describe();
  const std::map<std::string, uint64_t> steps =
      test_support::CountsAfter(record.err, "steps by rule: ");
  EXPECT_GT(steps.count("engine tables") ? steps.at("engine tables") : 0, 0u) << record.err;
  EXPECT_GT(steps.count("derived") ? steps.at("derived") : 0, 0u) << record.err;
  EXPECT_GT(steps.count("CFI") ? steps.at("CFI") : 0, 0u) << record.err;
  // A step the call-consistency check refuses ends a walk instead of guessing it: one walk of
  // 1,208 ended so in a fresh clone's CI run, whose cause is not known. A wrong rule would end
  // many: at most one walk in 200 may.
  ExpectWalksReachTheEntry(dir, 500, 95, /*refusals_allowed=*/true);
  auto text = RunProgram({JITSCOPE_CLI, "report", dir});
  const std::map<std::string, uint64_t> ends = WalkEnds(text.out);
  uint64_t walks = 0;
  for (const auto& [reason, count] : ends) walks += count;
  const auto refused = ends.find("return address after no call");
  EXPECT_LE((refused == ends.end() ? 0 : refused->second) * 200, walks) << text.out;
}

// perf's own --call-graph dwarf recording, reported from perf.data, is unwound by the same code.
TEST(JitUnwindE2eTest, PerfDataExactStacksThroughJitCodeWithoutFramePointers) {
  ExpectExactStacksThroughJitCode({"--no-frame-pointers"}, /*perf=*/true);
}

}  // namespace
}  // namespace jitscope::report
