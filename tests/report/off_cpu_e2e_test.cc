// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// End-to-end: off-CPU time (record --off-cpu), through the `jitscope` commands as a user runs
// them, on off_cpu_jit.c: a program that spends 40% of its time computing and 60% asleep, both
// called from JIT code. Its compute is measured in CPU time and its sleeps in wall time, so the
// shares hold on a fast machine, a slow one and a busy one alike.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/files.h"
#include "support/folded.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace jitscope {
namespace {

using test_support::FoldedStack;
using test_support::ParseFolded;
using test_support::ProcessResult;
using test_support::RunProgram;
using test_support::ShareWalkedThrough;
using test_support::TempDir;
using test_support::WalkShare;

constexpr char kSleeping[] = "[off-cpu: sleeping]";

bool OffCpu(const FoldedStack& stack) { return stack.leaf().starts_with("[off-cpu: "); }

std::vector<FoldedStack> Folded(const std::string& session, const std::string& choice) {
  const ProcessResult report =
      RunProgram({JITSCOPE_CLI, "report", session, "--format", "folded", "--off-cpu", choice});
  EXPECT_TRUE(report.ok()) << report.Describe();
  return ParseFolded(report.out);
}

// The samples on a CPU of stacks with the frames of `path` one after the other.
uint64_t OnCpuThrough(const std::vector<FoldedStack>& stacks,
                      const std::vector<std::string>& path) {
  uint64_t samples = 0;
  for (const FoldedStack& stack : stacks) {
    if (!OffCpu(stack) && std::search(stack.frames.begin(), stack.frames.end(), path.begin(),
                                      path.end()) != stack.frames.end()) {
      samples += stack.samples;
    }
  }
  return samples;
}

class OffCpuE2eTest : public ::testing::Test {
 protected:
  // 4 rounds of 50 ms of CPU time and a 75 ms sleep: 40% computing, 60% waiting.
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    session_ = dir_->path() + "/session";
    record_ = new ProcessResult(RunProgram(
        {JITSCOPE_CLI, "record", "--off-cpu", "-o", session_, "--", OFF_CPU_JIT, "50", "75", "4"}));
  }
  static void TearDownTestSuite() {
    delete record_;
    delete dir_;
  }
  static TempDir* dir_;
  static std::string session_;
  static ProcessResult* record_;
};
TempDir* OffCpuE2eTest::dir_ = nullptr;
std::string OffCpuE2eTest::session_;
ProcessResult* OffCpuE2eTest::record_ = nullptr;

// Every sleep is a stack complete from the thread's entry through the JIT function to WaitHere,
// under an [off-cpu: sleeping] leaf (the system call it waited in: clock_nanosleep), weighing the
// time asleep: beside the compute's samples on a CPU, the share of its time the program measured
// it waited (60% on an idle machine), ±3%.
TEST_F(OffCpuE2eTest, TheWaitsStacksAreCompleteThroughJitCodeAndWeighTheirTime) {
  ASSERT_TRUE(record_->ok()) << record_->Describe();
  const std::vector<FoldedStack> stacks = Folded(session_, "include");
  const WalkShare waits =
      ShareWalkedThrough(stacks, kSleeping, {"main", "jit_wait_[j]", "WaitHere"}, true);
  uint64_t waiting_in_wait_here = 0;
  for (const FoldedStack& stack : stacks) {
    if (stack.leaf() != kSleeping) continue;
    for (const std::string& frame : stack.frames) {
      if (frame == "WaitHere") waiting_in_wait_here += stack.samples;
    }
  }
  EXPECT_EQ(waits.complete, waiting_in_wait_here) << "a wait's stack is cut short";
  const uint64_t computing = OnCpuThrough(stacks, {"Compute"});
  EXPECT_EQ(OnCpuThrough(stacks, {"main", "jit_compute_[j]", "Compute"}), computing);
  ASSERT_GT(computing + waits.complete, 0u);
  // The shares the program measured: 60% waiting where it had a CPU whenever it woke, more on a
  // busy machine, where a thread that woke waits for one.
  double computed = 0, waited = 0;
  const size_t line = record_->out.rfind("computed ");
  ASSERT_NE(line, std::string::npos) << record_->out;
  ASSERT_EQ(
      std::sscanf(record_->out.c_str() + line, "computed %lf s, waited %lf s", &computed, &waited),
      2)
      << record_->out;
  const double waiting_share =
      static_cast<double>(waits.complete) / static_cast<double>(computing + waits.complete);
  EXPECT_NEAR(waiting_share, waited / (computed + waited), 0.03)
      << waits.complete << " samples waiting, " << computing
      << " computing; the program: " << record_->out;
  // 4 sleeps of 75 ms, at 1 ms a sample: at least 300.
  EXPECT_GE(waits.complete, 300u);
}

// --off-cpu only keeps the off-CPU stacks alone, with the same weights; exclude the samples on a
// CPU alone, as a recording without --off-cpu has them; and the header says which.
TEST_F(OffCpuE2eTest, ReportTakesEitherAlone) {
  ASSERT_TRUE(record_->ok()) << record_->Describe();
  const std::vector<FoldedStack> all = Folded(session_, "include");
  uint64_t off_cpu = 0, on_cpu = 0;
  for (const FoldedStack& stack : all) (OffCpu(stack) ? off_cpu : on_cpu) += stack.samples;
  ASSERT_GT(off_cpu, 0u);
  ASSERT_GT(on_cpu, 0u);
  uint64_t only = 0;
  for (const FoldedStack& stack : Folded(session_, "only")) {
    EXPECT_TRUE(OffCpu(stack)) << stack.Joined();
    only += stack.samples;
  }
  EXPECT_EQ(only, off_cpu);
  uint64_t excluded = 0;
  for (const FoldedStack& stack : Folded(session_, "exclude")) {
    EXPECT_FALSE(OffCpu(stack)) << stack.Joined();
    excluded += stack.samples;
  }
  EXPECT_EQ(excluded, on_cpu);

  const ProcessResult text =
      RunProgram({JITSCOPE_CLI, "report", session_, "--off-cpu", "exclude", "--top", "1"});
  ASSERT_TRUE(text.ok()) << text.Describe();
  EXPECT_NE(text.out.find("\n# off-CPU samples (record --off-cpu): "), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find(" switches out of a CPU, left out (--off-cpu exclude)\n"),
            std::string::npos)
      << text.out;
  const ProcessResult bad = RunProgram({JITSCOPE_CLI, "report", session_, "--off-cpu", "some"});
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.err.find("--off-cpu"), std::string::npos) << bad.err;
}

nlohmann::json ReportJson(const std::string& session, const std::string& format,
                          const std::string& choice) {
  const ProcessResult report =
      RunProgram({JITSCOPE_CLI, "report", session, "--format", format, "--off-cpu", choice});
  EXPECT_TRUE(report.ok()) << report.Describe();
  return nlohmann::json::parse(report.out);
}

// One speedscope sample of the program's main thread: its leaf, whether it passes through
// WaitHere or Compute, and its weight.
struct TimedStack {
  std::string leaf;
  bool waits = false;
  bool computes = false;
  bool in_main = false;  // a frame of main(): not the exit handlers after it
  uint64_t weight_ns = 0;
};

// The samples of the program's thread `tid` (speedscope names a profile "COMM tid TID (pid PID)"),
// in time order. Only the one thread: a sanitized build's leak check at exit runs one of its own.
std::vector<TimedStack> ThreadSamples(const nlohmann::json& speedscope, uint64_t tid) {
  const nlohmann::json& frames = speedscope["shared"]["frames"];
  std::vector<TimedStack> samples;
  for (const nlohmann::json& profile : speedscope["profiles"]) {
    if (!profile["name"].get<std::string>().starts_with("off_cpu_jit tid " + std::to_string(tid) +
                                                        " ")) {
      continue;
    }
    for (size_t i = 0; i < profile["samples"].size(); ++i) {
      TimedStack sample;
      for (const nlohmann::json& frame : profile["samples"][i]) {
        const std::string name = frames[frame.get<size_t>()]["name"];
        sample.waits |= name == "WaitHere";
        sample.computes |= name == "Compute";
        sample.in_main |= name == "main";
        sample.leaf = name;  // root first: the last is the leaf
      }
      sample.weight_ns = profile["weights"][i];
      samples.push_back(sample);
    }
  }
  return samples;
}

// The formats that show each sample at its time (speedscope's per-thread profiles, chrome-trace's
// samples) have the off-CPU samples among the others, each weighing the time its thread was off
// the CPU: the program's 4 sleeps are 4 samples through WaitHere of at least 75 ms each, between
// its computations, and its off-CPU time is what the other formats count (folded to its rounding
// of each stack to whole samples). --off-cpu only and exclude keep either alone.
TEST_F(OffCpuE2eTest, TheTimeOrderedFormatsHaveTheOffCpuSamplesAtTheirTimes) {
  ASSERT_TRUE(record_->ok()) << record_->Describe();
  const nlohmann::json trace = ReportJson(session_, "chrome-trace", "include");
  const uint64_t period = trace["otherData"]["sample_period_ns"];
  ASSERT_GT(period, 0u);
  // The main thread: the one whose sleeps through WaitHere are chrome-trace's slices (each naming
  // the stack of its off-CPU sample).
  std::vector<uint64_t> slices;
  uint64_t main_tid = 0;
  for (const nlohmann::json& event : trace["traceEvents"]) {
    if (event["ph"] != "X" || event["name"] != kSleeping) continue;
    if (!event.contains("args") || event["args"]["stack"].get<std::string>().find(
                                       "WaitHere <- jit_wait") == std::string::npos) {
      continue;
    }
    main_tid = event["tid"];
    slices.push_back(static_cast<uint64_t>(event["dur"].get<double>() * 1000 + 0.5));
  }
  ASSERT_NE(main_tid, 0u) << "no sleep through WaitHere in the chrome trace";
  const std::vector<TimedStack> all =
      ThreadSamples(ReportJson(session_, "speedscope", "include"), main_tid);
  std::vector<uint64_t> sleeps;
  bool computed_since = true;
  uint64_t off_cpu_ns = 0;
  uint64_t off_cpu_in_main_ns = 0;
  for (const TimedStack& sample : all) {
    if (sample.leaf.starts_with("[off-cpu: ")) {
      off_cpu_ns += sample.weight_ns;
      if (sample.in_main) off_cpu_in_main_ns += sample.weight_ns;
    } else {
      EXPECT_EQ(sample.weight_ns, period) << sample.leaf;
    }
    if (sample.leaf == kSleeping && sample.waits) {
      EXPECT_TRUE(computed_since) << "two sleeps without a computation between them";
      sleeps.push_back(sample.weight_ns);
      computed_since = false;
    }
    computed_since |= sample.computes && !sample.leaf.starts_with("[off-cpu: ");
  }
  ASSERT_EQ(sleeps.size(), 4u);
  for (const uint64_t sleep : sleeps) {
    EXPECT_GE(sleep, 74'000'000u);
    EXPECT_LT(sleep, 2'000'000'000u);
  }
  uint64_t folded_off_cpu = 0, folded_stacks = 0;
  for (const FoldedStack& stack : Folded(session_, "only")) {
    if (std::find(stack.frames.begin(), stack.frames.end(), "main") == stack.frames.end()) continue;
    folded_off_cpu += stack.samples;
    ++folded_stacks;
  }
  EXPECT_NEAR(static_cast<double>(off_cpu_in_main_ns) / static_cast<double>(period),
              static_cast<double>(folded_off_cpu), static_cast<double>(folded_stacks) / 2 + 1)
      << off_cpu_in_main_ns << " ns off the CPU in main in speedscope, " << folded_off_cpu
      << " samples folded";

  uint64_t only_ns = 0;
  for (const TimedStack& sample :
       ThreadSamples(ReportJson(session_, "speedscope", "only"), main_tid)) {
    EXPECT_TRUE(sample.leaf.starts_with("[off-cpu: ")) << sample.leaf;
    only_ns += sample.weight_ns;
  }
  EXPECT_EQ(only_ns, off_cpu_ns);
  const std::vector<TimedStack> excluded =
      ThreadSamples(ReportJson(session_, "speedscope", "exclude"), main_tid);
  EXPECT_EQ(excluded.size(), all.size() - static_cast<size_t>(std::count_if(
                                              all.begin(), all.end(), [](const TimedStack& s) {
                                                return s.leaf.starts_with("[off-cpu: ");
                                              })));
  for (const TimedStack& sample : excluded) {
    EXPECT_FALSE(sample.leaf.starts_with("[off-cpu: ")) << sample.leaf;
    EXPECT_EQ(sample.weight_ns, period);
  }

  // chrome-trace: each sleep an "[off-cpu: sleeping]" slice of its thread naming the stack of its
  // off-CPU sample (above), and that sample among the spec's samples, weighing the slice's
  // duration.
  EXPECT_EQ(slices, sleeps);
  std::vector<uint64_t> off_cpu_samples;
  for (const nlohmann::json& sample : trace["samples"]) {
    if (sample["tid"] != main_tid || sample["name"] != "off-cpu") continue;
    const std::string leaf = trace["stackFrames"][sample["sf"].get<std::string>()]["name"];
    if (leaf == kSleeping) off_cpu_samples.push_back(sample["weight"]);
  }
  EXPECT_GE(off_cpu_samples.size(), 4u);
  uint64_t chrome_off_cpu_ns = 0;
  for (const nlohmann::json& sample : trace["samples"]) {
    if (sample["name"] == "off-cpu" && sample["tid"] == main_tid) {
      chrome_off_cpu_ns += sample["weight"].get<uint64_t>();
    }
  }
  EXPECT_EQ(chrome_off_cpu_ns, off_cpu_ns);
  const nlohmann::json excluded_trace = ReportJson(session_, "chrome-trace", "exclude");
  size_t sleeping_slices = 0;
  for (const nlohmann::json& event : excluded_trace["traceEvents"]) {
    if (event["ph"] != "X" || event["name"] != kSleeping || event["tid"] != main_tid) continue;
    ++sleeping_slices;
    EXPECT_FALSE(event.contains("args")) << event.dump();
  }
  EXPECT_GE(sleeping_slices, 4u) << "the periods off the CPU are the timeline's whatever is kept";
  for (const nlohmann::json& sample : excluded_trace["samples"]) {
    EXPECT_EQ(sample["name"], "cpu-clock");
  }
}

// annotate shows the instructions that ran: an off-CPU sample ran none, and is not among the
// session's samples it counts.
TEST_F(OffCpuE2eTest, AnnotateCountsTheSamplesOnACpuAlone) {
  ASSERT_TRUE(record_->ok()) << record_->Describe();
  uint64_t on_cpu = 0;
  for (const FoldedStack& stack : Folded(session_, "exclude")) on_cpu += stack.samples;
  const ProcessResult annotate = RunProgram({JITSCOPE_CLI, "annotate", session_, "Compute"});
  ASSERT_TRUE(annotate.ok()) << annotate.Describe();
  EXPECT_NE(annotate.out.find("\n# " + std::to_string(on_cpu) + " samples in the session;"),
            std::string::npos)
      << annotate.out;
}

// The off-CPU samples of `session`'s process named off_cpu_jit whose stack passes through the
// last frame of `path` and ends in `leaf` (`total`), and how many of them have the frames of
// `path` and are complete from the thread's entry (`complete`).
WalkShare WaitsThrough(const std::string& session, const std::string& leaf,
                       const std::vector<std::string>& path) {
  const ProcessResult report =
      RunProgram({JITSCOPE_CLI, "report", session, "--format", "folded", "--comm", "off_cpu_jit"});
  EXPECT_TRUE(report.ok()) << report.Describe();
  const std::vector<FoldedStack> stacks = ParseFolded(report.out);
  WalkShare share = ShareWalkedThrough(stacks, leaf, path, true);
  share.total = 0;
  for (const FoldedStack& stack : stacks) {
    if (stack.leaf() == leaf &&
        std::find(stack.frames.begin(), stack.frames.end(), path.back()) != stack.frames.end()) {
      share.total += stack.samples;
    }
  }
  return share;
}

// A wait for a lock or a condition (a futex) is told from a sleep: 3 waits of 30 ms on a
// condition variable, under [off-cpu: lock].
TEST(OffCpuReasonE2eTest, AWaitOnAConditionVariableIsALock) {
  TempDir dir;
  const std::string session = dir.path() + "/session";
  const ProcessResult record = RunProgram({JITSCOPE_CLI, "record", "--off-cpu", "-o", session, "--",
                                           OFF_CPU_JIT, "10", "30", "3", "lock"});
  ASSERT_TRUE(record.ok()) << record.Describe();
  const WalkShare waits =
      WaitsThrough(session, "[off-cpu: lock]", {"main", "jit_wait_[j]", "WaitHere"});
  EXPECT_EQ(waits.complete, waits.total);
  EXPECT_GE(waits.total, 90u) << "3 waits of 30 ms, at 1 ms a sample";
  EXPECT_EQ(WaitsThrough(session, kSleeping, {"WaitHere"}).total, 0u);
}

// record -p: a process that runs already, its JIT code unreported (no collector), is sampled off
// the CPU too: 5 rounds or more of 30 ms asleep in WaitHere.
TEST(OffCpuAttachTest, ARunningProcessesWaitsAreSampled) {
  TempDir dir;
  const std::string session = dir.path() + "/session";
  test_support::Process program({OFF_CPU_JIT, "20", "30", "100000"});
  ASSERT_GT(program.pid(), 0);
  const std::string pid = std::to_string(program.pid());
  const ProcessResult record = RunProgram({JITSCOPE_CLI, "record", "--off-cpu", "-p", pid, "-o",
                                           session, "--", CPU_TIME, "wait", "0.1", pid});
  ASSERT_TRUE(record.ok()) << record.Describe();
  const WalkShare waits = WaitsThrough(session, kSleeping, {"WaitHere"});
  EXPECT_GE(waits.total, 100u) << "5 waits of 30 ms, at 1 ms a sample, less the one cut short";
}

// record -a: every process's switches; the command's waits are complete through its JIT code.
TEST(OffCpuSystemWideTest, TheCommandsWaitsAreCompleteThroughJitCode) {
#ifdef JITSCOPE_SANITIZED_BUILD
  // Every switch of every thread of the machine is a sample with a stack copy: a sanitized
  // recorder drains them several times slower, the kernel drops records, the command's mappings
  // among them, and its stacks end in [unknown]. The plain build runs this test.
  GTEST_SKIP() << "record -a --off-cpu outruns a sanitized recorder";
#endif
  TempDir dir;
  const std::string session = dir.path() + "/session";
  const ProcessResult record = RunProgram({JITSCOPE_CLI, "record", "--off-cpu", "-a", "-o", session,
                                           "--", OFF_CPU_JIT, "20", "30", "5"});
  ASSERT_TRUE(record.ok()) << record.Describe();
  const WalkShare waits = WaitsThrough(session, kSleeping, {"main", "jit_wait_[j]", "WaitHere"});
  EXPECT_EQ(waits.complete, waits.total);
  // 150 when the kernel kept every record; on a busy machine every switch of every thread
  // outruns the ring at times, and the kernel drops records (PERF_RECORD_LOST), waits among them
  // (123 seen at load 6).
  EXPECT_GE(waits.total, 100u) << "5 waits of 30 ms, at 1 ms a sample";
}

// record --off-cpu run by an unprivileged user (nobody, with no capability, through setpriv) on
// this machine's kernel.perf_event_paranoid as it is (read, never changed): at 2 or more the
// kernel refuses the scheduler's samples, and record says so, what it needs and how to get it,
// leaving the earlier session in the directory where it was, as it was; at 1 or less it records.
TEST(OffCpuPermissionE2eTest, AnUnprivilegedUserIsToldWhatItNeeds) {
  ASSERT_EQ(::geteuid(), 0u) << "this test must run as root: it runs record as nobody";
  const std::string level_text = test_support::ReadFile("/proc/sys/kernel/perf_event_paranoid");
  int level = 0;
  ASSERT_EQ(std::sscanf(level_text.c_str(), "%d", &level), 1) << level_text;
  TempDir dir;
  ASSERT_EQ(::chmod(dir.path().c_str(), 0777), 0);
  const std::string session = dir.path() + "/session";
  ASSERT_EQ(::mkdir(session.c_str(), 0777), 0);
  ASSERT_TRUE(test_support::WriteFile(session + "/earlier", "an earlier session"));
  const ProcessResult record = RunProgram(
      {SETPRIV_PROGRAM, "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all",
       JITSCOPE_CLI, "record", "--off-cpu", "-o", session, "--", OFF_CPU_JIT, "5", "5", "1"},
      {}, {.cwd = dir.path()});
  if (level <= 1) {
    EXPECT_TRUE(record.ok()) << "kernel.perf_event_paranoid = " << level << ": "
                             << record.Describe();
    EXPECT_NE(record.err.find("jitscope record: wrote " + session), std::string::npos)
        << record.err;
    return;
  }
  EXPECT_EQ(record.exit_code, 1) << record.Describe();
  EXPECT_EQ(record.out, "");
  EXPECT_EQ(record.err,
            "jitscope record: error: record --off-cpu is not permitted: perf_event_open was "
            "refused (kernel.perf_event_paranoid = " +
                std::to_string(level) +
                "; jitscope has neither CAP_PERFMON nor CAP_SYS_ADMIN). Its samples are the "
                "kernel's, taken in the scheduler as it switches a thread out, so it needs "
                "perf_event_paranoid <= 1, or CAP_PERFMON. Fix: 'sudo sysctl "
                "kernel.perf_event_paranoid=1', or run jitscope with CAP_PERFMON ('sudo setcap "
                "cap_perfmon+ep $(command -v jitscope)'). Without it, record --switch-events says "
                "when each thread was off the CPU, without its stack. In a container, the "
                "runtime's seccomp profile must also allow perf_event_open.\n");
  EXPECT_EQ(test_support::ListDirectory(dir.path()), (std::set<std::string>{"session"}));
  EXPECT_EQ(test_support::ListDirectory(session), (std::set<std::string>{"earlier"}));
  EXPECT_EQ(test_support::ReadFile(session + "/earlier"), "an earlier session");
}

}  // namespace
}  // namespace jitscope
