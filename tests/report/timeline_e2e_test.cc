// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// End-to-end: the timeline of real recordings, through the `jitscope report` command as a user
// runs it. The example JIT's code events as instants of `--format chrome-trace`, the filters,
// the header's times, time off the CPU (record --switch-events); and Debian's oneDNN and TBB,
// unmodified, whose primitive executions and algorithms are ITT tasks.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/folded.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace jitscope {
namespace {

using test_support::FoldedStack;
using test_support::ParseFolded;
using test_support::ProcessResult;
using test_support::RunProgram;
using test_support::TempDir;

ProcessResult Report(const std::string& dir, std::vector<std::string> arguments) {
  std::vector<std::string> argv = {JITSCOPE_CLI, "report", dir};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  return RunProgram(argv);
}

uint64_t Total(const std::vector<FoldedStack>& stacks) {
  uint64_t total = 0;
  for (const FoldedStack& stack : stacks) total += stack.samples;
  return total;
}

// The samples of stacks with a frame of JIT code (folded's "_[j]" mark).
uint64_t InJitCode(const std::vector<FoldedStack>& stacks) {
  uint64_t total = 0;
  for (const FoldedStack& stack : stacks) {
    for (const std::string& frame : stack.frames) {
      if (frame.ends_with("_[j]")) {
        total += stack.samples;
        break;
      }
    }
  }
  return total;
}

nlohmann::json ChromeTrace(const std::string& dir) {
  const ProcessResult run = Report(dir, {"--format", "chrome-trace"});
  EXPECT_TRUE(run.ok()) << run.Describe();
  return nlohmann::json::parse(run.out, nullptr, /*allow_exceptions=*/false);
}

// The trace's events whose "cat" is `category`.
std::vector<nlohmann::json> OfCategory(const nlohmann::json& trace, const std::string& category) {
  std::vector<nlohmann::json> events;
  for (const nlohmann::json& event : trace["traceEvents"]) {
    if (event.value("cat", "") == category) events.push_back(event);
  }
  return events;
}

// The example JIT compiles each function at its first call (baseline) and again when it is hot
// (optimized, under a new method id), unloading the baseline code: a load, a new version and an
// unload on the timeline, each on the thread that reported it, with its module.
TEST(TimelineE2eTest, TheExampleJitsCodeEventsAreInstantsOfTheChromeTrace) {
  TempDir dir;
  const std::string session = dir.path() + "/session";
  const ProcessResult record = RunProgram(
      {JITSCOPE_CLI, "record", "-o", session, "--", JITVM, JITVM_PROGRAMS "/hotspot.jv", "300"});
  ASSERT_TRUE(record.ok()) << record.Describe();

  const nlohmann::json trace = ChromeTrace(session);
  ASSERT_FALSE(trace.is_discarded());
  std::set<std::string> events;
  std::set<uint64_t> tids;
  for (const nlohmann::json& event : OfCategory(trace, "jit")) {
    const nlohmann::json& args = event["args"];
    events.insert(event["name"].get<std::string>() + " " + args.value("module", ""));
    tids.insert(event["tid"].get<uint64_t>());
  }
  EXPECT_TRUE(events.contains("load: series jitvm-baseline"));
  EXPECT_TRUE(events.contains("new version: rotate jitvm-optimized"));
  EXPECT_TRUE(events.contains("unload: rotate jitvm-baseline"));
  EXPECT_EQ(tids.size(), 1u) << "jitvm compiles on its one thread";

  // Every sample is an instant of its thread, and in the spec's sample list.
  const ProcessResult folded = Report(session, {"--format", "folded"});
  ASSERT_TRUE(folded.ok()) << folded.Describe();
  const uint64_t samples = Total(ParseFolded(folded.out));
  ASSERT_GT(samples, 0u);
  EXPECT_EQ(OfCategory(trace, "sample").size(), samples);
  EXPECT_EQ(trace["samples"].size(), samples);

  // The header: how long the recording ran, and the CPU time sampled on its thread.
  const ProcessResult text = Report(session, {"--top", "1"});
  ASSERT_TRUE(text.ok()) << text.Describe();
  EXPECT_NE(text.out.find("\n# recorded for "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("; CPU time sampled: jitvm (tid "), std::string::npos) << text.out;

  // The filters: a thread's name keeps its samples, a thread that never ran keeps none, a time
  // range past the end keeps none; a range that makes no sense is refused.
  const ProcessResult by_comm = Report(session, {"--format", "folded", "--comm", "jitvm"});
  ASSERT_TRUE(by_comm.ok()) << by_comm.Describe();
  EXPECT_EQ(Total(ParseFolded(by_comm.out)), samples);
  const ProcessResult no_thread = Report(session, {"--tid", "1"});
  ASSERT_TRUE(no_thread.ok()) << no_thread.Describe();
  EXPECT_NE(no_thread.out.find(std::to_string(samples) +
                               " samples left out (--pid, --tid, --comm, --time, --task)\n"),
            std::string::npos)
      << no_thread.out;
  EXPECT_NE(no_thread.out.find("# no samples pass the filters\n"), std::string::npos);
  const ProcessResult later = Report(session, {"--format", "folded", "--time", "3600,"});
  ASSERT_TRUE(later.ok()) << later.Describe();
  EXPECT_EQ(Total(ParseFolded(later.out)), 0u);
  // annotate takes the same filters.
  const ProcessResult annotate =
      RunProgram({JITSCOPE_CLI, "annotate", session, "--tid", "1", "--format", "text"});
  ASSERT_TRUE(annotate.ok()) << annotate.Describe();
  EXPECT_NE(annotate.out.find(std::to_string(samples) + " of the " + std::to_string(samples) +
                              " samples left out (--pid, --tid, --comm, --time, --task)"),
            std::string::npos)
      << annotate.out;
  const ProcessResult backwards = Report(session, {"--time", "3,1"});
  EXPECT_NE(backwards.exit_code, 0);
  EXPECT_NE(backwards.err.find("--time 3,1: its start is after its end"), std::string::npos)
      << backwards.err;
}

// record --switch-events: a command that sleeps 0.3 s was off the CPU, waiting, for at least that
// long, on its one thread's track and in the header.
TEST(TimelineE2eTest, ASleepIsTimeOffTheCpuWaiting) {
  TempDir dir;
  const std::string session = dir.path() + "/session";
  const ProcessResult record =
      RunProgram({JITSCOPE_CLI, "record", "--switch-events", "-o", session, "--", "sleep", "0.3"});
  ASSERT_TRUE(record.ok()) << record.Describe();
  const nlohmann::json trace = ChromeTrace(session);
  ASSERT_FALSE(trace.is_discarded());
  std::map<std::string, double> off_us;
  for (const nlohmann::json& slice : OfCategory(trace, "off-cpu")) {
    EXPECT_EQ(slice["ph"], "X");
    off_us[slice["name"].get<std::string>()] += slice["dur"].get<double>();
  }
  EXPECT_GE(off_us["[off-cpu: waiting]"], 300'000.0);
  EXPECT_LT(off_us["[off-cpu: waiting]"] + off_us["[off-cpu: preempted]"],
            trace["otherData"]["recording_end_monotonic_ns"].get<double>() / 1e3 -
                trace["otherData"]["recording_start_monotonic_ns"].get<double>() / 1e3);
  const ProcessResult text = Report(session, {"--top", "1"});
  ASSERT_TRUE(text.ok()) << text.Describe();
  EXPECT_NE(text.out.find("\n# off the CPU: sleep (tid "), std::string::npos) << text.out;
  // Without the option, no switch is recorded.
  const std::string plain = dir.path() + "/plain";
  ASSERT_TRUE(RunProgram({JITSCOPE_CLI, "record", "-o", plain, "--", "sleep", "0.05"}).ok());
  EXPECT_TRUE(OfCategory(ChromeTrace(plain), "off-cpu").empty());
}

#ifdef JITSCOPE_ONEDNN_WORKLOAD
// oneDNN (Debian's libdnnl2) marks every primitive execution as an ITT task named by its kind, on
// every thread that works on it (its default DNNL_ITT_TASK_LEVEL, 2). Its kernels are JIT code:
// a sample in one is taken during a primitive's execution, and falls inside its task. One OpenMP
// thread: on a busy machine, workers spin in libgomp's barriers between tasks more than they run
// kernels, and what is measured is the kernels' samples.
TEST(TimelineE2eTest, OneDnnsSamplesInItsKernelsFallInsideTheirPrimitivesTasks) {
  TempDir dir;
  const std::string session = dir.path() + "/session";
  const ProcessResult record = RunProgram(
      {JITSCOPE_CLI, "record", "-o", session, "--", JITSCOPE_ONEDNN_WORKLOAD, "hot", "0.5"},
      {{"OMP_NUM_THREADS", "1"}}, {.unset = {"DNNL_ITT_TASK_LEVEL", "ONEDNN_ITT_TASK_LEVEL"}});
  ASSERT_TRUE(record.ok()) << record.Describe();

  const ProcessResult all = Report(session, {"--format", "folded"});
  ASSERT_TRUE(all.ok()) << all.Describe();
  const uint64_t in_kernels = InJitCode(ParseFolded(all.out));
  ASSERT_GT(in_kernels, 100u) << all.out;
  const ProcessResult in_tasks =
      Report(session, {"--format", "folded", "--task", "convolution", "--task", "matmul"});
  ASSERT_TRUE(in_tasks.ok()) << in_tasks.Describe();
  const uint64_t in_kernels_in_tasks = InJitCode(ParseFolded(in_tasks.out));
  EXPECT_LE(in_kernels_in_tasks, in_kernels);
  EXPECT_GE(in_kernels_in_tasks * 100, in_kernels * 99)
      << in_kernels_in_tasks << " of " << in_kernels << " samples in oneDNN's kernels";
  // A name no task had keeps nothing.
  const ProcessResult no_task = Report(session, {"--format", "folded", "--task", "pooling"});
  ASSERT_TRUE(no_task.ok()) << no_task.Describe();
  EXPECT_EQ(Total(ParseFolded(no_task.out)), 0u);

  // The chrome trace: the tasks as slices in oneDNN's domain, its kernels' loads as instants.
  const nlohmann::json trace = ChromeTrace(session);
  ASSERT_FALSE(trace.is_discarded());
  std::map<std::string, size_t> tasks;
  for (const nlohmann::json& slice : OfCategory(trace, "dnnl::primitive::execute")) {
    EXPECT_EQ(slice["ph"], "X");
    EXPECT_EQ(slice["args"]["kind"], "task");
    ++tasks[slice["name"].get<std::string>()];
  }
  EXPECT_EQ(tasks.size(), 2u);
  EXPECT_GT(tasks["convolution"], 0u);
  EXPECT_GT(tasks["matmul"], 0u);
  const std::vector<nlohmann::json> loads = OfCategory(trace, "jit");
  ASSERT_FALSE(loads.empty());
  EXPECT_EQ(loads.front()["args"]["event"], "load");
}
#endif

#ifdef JITSCOPE_TBB_WORKLOAD
// TBB (Debian's libtbb12) names its algorithms' tasks in its domain "tbb" and its workers "TBB
// Worker Thread" through the ITT API: slices on the tracks of the threads that ran them, and the
// tracks named as TBB named them.
TEST(TimelineE2eTest, TbbsAlgorithmsAreSlicesOnItsNamedWorkers) {
  TempDir dir;
  const std::string session = dir.path() + "/session";
  const ProcessResult record =
      RunProgram({JITSCOPE_CLI, "record", "-o", session, "--", JITSCOPE_TBB_WORKLOAD});
  ASSERT_TRUE(record.ok()) << record.Describe();
  const nlohmann::json trace = ChromeTrace(session);
  ASSERT_FALSE(trace.is_discarded());
  std::set<std::string> names;
  for (const nlohmann::json& slice : OfCategory(trace, "tbb")) {
    EXPECT_EQ(slice["ph"], "X");
    names.insert(slice["name"].get<std::string>());
  }
  EXPECT_EQ(names,
            (std::set<std::string>{"tbb_parallel_for", "tbb_parallel_reduce", "tbb_custom"}));
  std::map<std::string, size_t> threads;
  for (const nlohmann::json& event : trace["traceEvents"]) {
    if (event["ph"] == "M" && event["name"] == "thread_name") {
      ++threads[event["args"]["name"].get<std::string>()];
    }
  }
  EXPECT_EQ(threads["tbb_workload"], 1u) << "the main thread, by its command name";
  EXPECT_GT(threads["TBB Worker Thread"], 0u);
}
#endif

}  // namespace
}  // namespace jitscope
