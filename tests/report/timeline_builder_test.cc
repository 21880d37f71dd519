// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// TimelineBuilder: the meaning given to the ITT API's calls and the JIT engine's events as a trace
// records them, one named test per rule of timeline_builder.h.
#include "jitscope/report/timeline_builder.h"

#include <bit>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace jitscope::report {
namespace {

using trace::IttKind;

constexpr uint32_t kPid = 100;

trace::Record At(uint64_t time, uint32_t tid, trace::Event event) {
  return trace::Record{time, tid, std::move(event)};
}
trace::Record Str(uint32_t number, std::string_view text) {
  return At(1, kPid, trace::IttStringEvent{number, text});
}
trace::Record Begin(uint64_t time, uint32_t tid, IttKind kind, uint32_t name,
                    trace::IttId id = {0, 0}, trace::IttId parent = {0, 0}) {
  return At(time, tid, trace::IttBeginEvent{kind, 1, name, id, parent, 0});
}
trace::Record End(uint64_t time, uint32_t tid, IttKind kind, trace::IttId id = {0, 0}) {
  return At(time, tid, trace::IttEndEvent{kind, 1, id});
}

// Every slice of every thread: "tid: name [begin,end) depth D", with " parent=P" and " open" as
// they apply.
std::vector<std::string> Slices(const Timeline& timeline) {
  std::vector<std::string> lines;
  for (const TimelineThread& thread : timeline.threads) {
    for (const TimelineSlice& slice : thread.slices) {
      std::string line =
          fmt::format("{}: {} [{},{}) depth {}", thread.tid, timeline.String(slice.name),
                      slice.begin_ns, slice.end_ns, slice.depth);
      if (slice.parent_name != kNoString) line += " parent=" + timeline.String(slice.parent_name);
      if (!slice.ended) line += " open";
      lines.push_back(line);
    }
  }
  return lines;
}

std::vector<std::string> Instants(const Timeline& timeline) {
  std::vector<std::string> lines;
  for (const TimelineThread& thread : timeline.threads) {
    for (const TimelineInstant& instant : thread.instants) {
      std::string line = fmt::format("{}: {} {} {}", thread.tid, instant.time_ns,
                                     InstantKindName(instant.kind), timeline.String(instant.name));
      if (instant.version != 0) line += fmt::format(" v{}", instant.version);
      lines.push_back(line);
    }
  }
  return lines;
}

Timeline Build(const std::vector<trace::Record>& records,
               const std::vector<session::Task>& tasks = {}, uint64_t start = 0) {
  TimelineBuilder builder(start);
  builder.AddProcess(kPid, records, {});
  return std::move(builder).Finish({}, tasks, {});
}

TEST(TimelineBuilderTest, TasksNestPerThreadAndAnEndClosesTheInnermost) {
  const Timeline timeline = Build({
      Str(1, "d"),
      Str(2, "outer"),
      Str(3, "inner"),
      Begin(10, 100, IttKind::kTask, 2, {7, 0}),
      Begin(20, 101, IttKind::kTask, 3),  // another thread's
      Begin(30, 100, IttKind::kTask, 3, {0, 0}, {7, 0}),
      End(40, 100, IttKind::kTask),
      End(50, 100, IttKind::kTask),
      End(60, 101, IttKind::kTask),
  });
  EXPECT_EQ(Slices(timeline), (std::vector<std::string>{
                                  "100: outer [10,50) depth 0",
                                  "100: inner [30,40) depth 1 parent=outer",
                                  "101: inner [20,60) depth 0",
                              }));
  EXPECT_EQ(timeline.stats, TimelineStats{});
}

TEST(TimelineBuilderTest, AnEndWithNothingOpenEndsNothingAndIsCounted) {
  const Timeline timeline = Build({
      Str(1, "d"),
      Str(2, "t"),
      End(5, 100, IttKind::kTask),
      Begin(10, 100, IttKind::kTask, 2),
      End(20, 100, IttKind::kTask),
      End(25, 100, IttKind::kTask),
      End(30, 100, IttKind::kRegion, {9, 0}),
  });
  EXPECT_EQ(Slices(timeline), (std::vector<std::string>{"100: t [10,20) depth 0"}));
  EXPECT_EQ(timeline.stats.ends_without_begin, 3u);
}

// Overlapped tasks and regions are matched by domain and id, on any thread; an id begun twice
// opens two, and the ends close the latest first.
TEST(TimelineBuilderTest, OverlappedTasksAndRegionsMatchByIdLatestFirst) {
  const Timeline timeline = Build({
      Str(1, "d"),
      Str(2, "a"),
      Str(3, "b"),
      Begin(10, 100, IttKind::kOverlappedTask, 2, {1, 0}),
      Begin(20, 100, IttKind::kOverlappedTask, 3, {2, 0}),
      End(30, 100, IttKind::kOverlappedTask, {1, 0}),  // not nested: a ends first
      Begin(40, 100, IttKind::kRegion, 2, {5, 0}),
      Begin(50, 101, IttKind::kRegion, 3, {5, 0}),  // the same id again
      End(60, 102, IttKind::kRegion, {5, 0}),       // ends b, on a third thread
      End(70, 100, IttKind::kOverlappedTask, {2, 0}),
      End(80, 100, IttKind::kRegion, {5, 0}),
  });
  EXPECT_EQ(Slices(timeline), (std::vector<std::string>{
                                  "100: a [10,30) depth 0",
                                  "100: b [20,70) depth 0",
                                  "100: a [40,80) depth 0",
                                  "101: b [50,60) depth 0",
                              }));
  EXPECT_EQ(timeline.stats.reused_ids, 1u);
  EXPECT_EQ(timeline.stats.ends_without_begin, 0u);
}

// What is open when its thread exits ends then, marked; with no exit, when the thread was last
// seen.
TEST(TimelineBuilderTest, WhatIsNeverEndedEndsWithItsThread) {
  const Timeline timeline = Build(
      {
          Str(1, "d"),
          Str(2, "t"),
          Begin(10, 100, IttKind::kTask, 2),
          Begin(20, 100, IttKind::kTask, 2),
          Begin(30, 101, IttKind::kTask, 2),
          At(45, 101, trace::IttMarkerEvent{1, 2, 1, {0, 0}}),
      },
      {{.exit = true, .pid = kPid, .ppid = kPid, .tid = 100, .ptid = 100, .time_ns = 90}});
  EXPECT_EQ(Slices(timeline), (std::vector<std::string>{
                                  "100: t [10,90) depth 0 open",
                                  "100: t [20,90) depth 1 open",
                                  "101: t [30,45) depth 0 open",
                              }));
  EXPECT_EQ(timeline.stats.unended, 3u);
  ASSERT_EQ(timeline.threads[1].instants.size(), 1u);
  EXPECT_EQ(timeline.threads[1].instants[0].scope, 1u) << "__itt_scope_global";
}

TEST(TimelineBuilderTest, NamesOfTasksWithoutAHandleFunctionsAndUnknownNumbers) {
  const Timeline timeline = Build({
      Str(1, "d"),
      Begin(10, 100, IttKind::kTask, 0),
      End(11, 100, IttKind::kTask),
      At(12, 100, trace::IttBeginEvent{IttKind::kTask, 1, 0, {0, 0}, {0, 0}, 0x4010}),
      End(13, 100, IttKind::kTask),
      Begin(14, 100, IttKind::kTask, 9),  // never given by a string record
      End(15, 100, IttKind::kTask),
  });
  EXPECT_EQ(Slices(timeline), (std::vector<std::string>{
                                  "100: [unnamed] [10,11) depth 0",
                                  "100: [function 0x4010] [12,13) depth 0",
                                  "100: [string 9] [14,15) depth 0",
                              }));
  EXPECT_EQ(timeline.stats.unnamed, 1u);
  EXPECT_EQ(timeline.stats.unknown_names, 1u);
}

// TBB names a group (its algorithm) and begins tasks whose parent is the group's id.
TEST(TimelineBuilderTest, ATaskGroupNamesTheParentOfItsTasks) {
  const Timeline timeline = Build({
      Str(1, "tbb"),
      Str(2, "tbb_parallel_for"),
      Begin(10, 100, IttKind::kTaskGroup, 2, {0x7fff0, 0}),
      Begin(20, 101, IttKind::kTask, 2, {0, 0}, {0x7fff0, 0}),
      End(30, 101, IttKind::kTask),
  });
  EXPECT_EQ(
      Slices(timeline),
      (std::vector<std::string>{"101: tbb_parallel_for [20,30) depth 0 parent=tbb_parallel_for"}));
}

TEST(TimelineBuilderTest, FramesAreNamedByTheirDomain) {
  const Timeline timeline = Build({
      Str(1, "render"),
      Begin(10, 100, IttKind::kFrame, 0, {6, 0}),
      End(26, 100, IttKind::kFrame, {6, 0}),
  });
  EXPECT_EQ(Slices(timeline), (std::vector<std::string>{"100: render [10,26) depth 0"}));
}

TEST(TimelineBuilderTest, CountersTakeTheValuesOfTheirTypes) {
  const Timeline timeline = Build({
      Str(1, "d"), Str(2, "signed"), Str(3, "real"),
      At(2, 100, trace::IttCounterEvent{1, 2, 1, 4}),  // s32
      At(2, 100, trace::IttCounterEvent{2, 3, 0, 8}),  // double
      At(10, 100, trace::IttCounterValueEvent{1, static_cast<uint64_t>(-3)}),
      At(20, 100, trace::IttCounterValueEvent{2, std::bit_cast<uint64_t>(0.25)}),
      At(30, 100, trace::IttCounterValueEvent{7, 1}),  // no such counter
  });
  ASSERT_EQ(timeline.counters.size(), 2u);
  EXPECT_EQ(timeline.String(timeline.counters[0].name), "signed");
  EXPECT_EQ(timeline.String(timeline.counters[0].domain), "d");
  ASSERT_EQ(timeline.counters[0].values.size(), 1u);
  EXPECT_EQ(timeline.counters[0].values[0].value, -3.0);
  EXPECT_EQ(timeline.counters[1].domain, kNoString);
  EXPECT_EQ(timeline.counters[1].values[0].value, 0.25);
  EXPECT_EQ(timeline.stats.unknown_names, 1u);
}

trace::Record Load(uint64_t time, uint32_t tid, uint32_t id, const char* name, uint64_t address) {
  trace::CodeEvent code;
  code.api_event = trace::kEventMethodLoadFinished;
  code.method_id = id;
  code.address = address;
  code.size = 16;
  code.name = name;
  return At(time, tid, code);
}

// A method's first load, a second region under its id (a split function: no new version), a load
// of its name under another id (a tier-up) and its second region, an update, an unload, and a
// load again after it.
TEST(TimelineBuilderTest, JitEventsAreInstantsOnTheReportingThread) {
  trace::CodeEvent update;
  update.api_event = trace::kEventMethodUpdate;
  update.method_id = 2;
  update.address = 0x3000;
  update.size = 16;
  const Timeline timeline = Build({
      Load(10, 100, 1, "f", 0x1000), Load(20, 100, 1, "f", 0x2000), Load(30, 101, 2, "f", 0x3000),
      Load(35, 101, 2, "f", 0x3800),  // the second region of that version
      At(40, 101, update), At(50, 100, trace::UnloadEvent{2}), Load(60, 100, 2, "f", 0x4000),
      Load(70, 100, 3, "JS:~g", 0x5000),
      Load(80, 100, 4, "JS:*g", 0x6000),  // V8's optimized tier of g
  });
  EXPECT_EQ(Instants(timeline), (std::vector<std::string>{
                                    "100: 10 load f v1",
                                    "100: 20 load f v1",
                                    "100: 50 unload f",
                                    "100: 60 new version f v3",
                                    "100: 70 load JS:~g v1",
                                    "100: 80 new version JS:*g v2",
                                    "101: 30 new version f v2",
                                    "101: 35 new version f v2",
                                    "101: 40 update f",
                                }));
}

TEST(TimelineBuilderTest, AJitdumpsLoadsAndMovesAreEventsOfItsThreads) {
  formats::JitdumpRecord load;
  load.kind = formats::JitdumpRecordKind::kCodeLoad;
  load.timestamp = 10;
  load.tid = 7;
  load.code_addr = 0x1000;
  load.code_size = 8;
  load.code_index = 42;
  load.name = "JS:*fib";
  formats::JitdumpRecord move = load;
  move.kind = formats::JitdumpRecordKind::kCodeMove;
  move.timestamp = 20;
  move.code_addr = 0x9000;
  const std::vector<const formats::JitdumpRecord*> records = {&load, &move};
  TimelineBuilder builder(0);
  builder.AddProcess(kPid, {}, records);
  const Timeline timeline = std::move(builder).Finish({}, {}, {});
  EXPECT_EQ(Instants(timeline),
            (std::vector<std::string>{"7: 10 load JS:*fib v1", "7: 20 move JS:*fib"}));
}

// Without the JIT events (the formats that do not draw them), the same records leave no instant
// and no name, but the threads are seen when they were: the same threads, over the same times.
TEST(TimelineBuilderTest, WithoutJitEventsTheThreadsAreSeenAllTheSame) {
  trace::CodeEvent inline_load;
  inline_load.api_event = trace::kEventMethodInlineLoadFinished;
  inline_load.method_id = 9;
  trace::RangeUpdateEvent range;
  range.address = 0x1000;
  range.size = 8;
  formats::JitdumpRecord jitted;
  jitted.kind = formats::JitdumpRecordKind::kCodeLoad;
  jitted.timestamp = 90;
  jitted.tid = 103;
  jitted.name = "JS:*fib";
  const std::vector<const formats::JitdumpRecord*> jitdump = {&jitted};
  const std::vector<trace::Record> records = {
      Load(10, 100, 1, "f", 0x1000),      At(20, 101, range),
      At(30, 100, trace::UnloadEvent{1}), At(40, 102, inline_load),  // no event of its own
      Begin(50, 100, IttKind::kTask, 1),  End(60, 100, IttKind::kTask),
  };
  auto threads = [&](bool jit_events) {
    TimelineBuilder builder(0, jit_events);
    builder.AddProcess(kPid, records, jitdump);
    const Timeline timeline = std::move(builder).Finish({}, {}, {});
    std::vector<std::string> lines;
    for (const TimelineThread& thread : timeline.threads) {
      lines.push_back(fmt::format("{} [{},{}] {} instants", thread.tid, thread.first_ns,
                                  thread.last_ns, thread.instants.size()));
    }
    return lines;
  };
  EXPECT_EQ(threads(true),
            (std::vector<std::string>{"100 [10,60] 2 instants", "101 [20,20] 1 instants",
                                      "103 [90,90] 1 instants"}));
  EXPECT_EQ(threads(false),
            (std::vector<std::string>{"100 [10,60] 0 instants", "101 [20,20] 0 instants",
                                      "103 [90,90] 0 instants"}));
}

// What happened before the recording began is not on its timeline; a slice under way then starts
// at the start, and a counter keeps the value it had.
TEST(TimelineBuilderTest, WhatHappenedBeforeTheStartIsLeftOut) {
  const Timeline timeline = Build(
      {
          Str(1, "d"),
          Str(2, "t"),
          At(2, 100, trace::IttCounterEvent{1, 2, 1, 1}),
          At(3, 100, trace::IttCounterValueEvent{1, 5}),
          At(4, 100, trace::IttCounterValueEvent{1, 6}),
          Load(5, 100, 1, "early", 0x1000),
          Begin(6, 100, IttKind::kTask, 2),
          Begin(7, 100, IttKind::kTask, 2),
          End(8, 100, IttKind::kTask),
          At(150, 100, trace::IttCounterValueEvent{1, 7}),
          End(200, 100, IttKind::kTask),
      },
      {}, 100);
  EXPECT_EQ(timeline.start_ns, 100u);
  EXPECT_EQ(timeline.end_ns, 200u);
  EXPECT_EQ(Slices(timeline), (std::vector<std::string>{"100: t [100,200) depth 0"}));
  EXPECT_TRUE(Instants(timeline).empty());
  ASSERT_EQ(timeline.counters[0].values.size(), 2u);
  EXPECT_EQ(timeline.counters[0].values[0].time_ns, 100u);
  EXPECT_EQ(timeline.counters[0].values[0].value, 6.0);
}

// A thread is named by __itt_thread_set_name, else by its COMM when it was last seen; the
// samples' stacks are renumbered as the profile sorted them.
TEST(TimelineBuilderTest, ThreadsAreNamedAndSamplesRenumbered) {
  TimelineBuilder builder(0);
  builder.AddProcess(kPid,
                     std::vector<trace::Record>{
                         At(10, 101, trace::IttThreadNameEvent{101, "TBB Worker Thread"}),
                     },
                     {});
  session::Sample sample;
  sample.pid = kPid;
  sample.tid = 100;
  sample.time_ns = 20;
  builder.AddSample(sample, 0, 1000, true);
  sample.time_ns = 30;
  builder.AddSample(sample, 1, 1000, true);
  const std::vector<session::Comm> comms = {
      {.pid = kPid, .tid = 100, .time_ns = 5, .exec = true, .name = "app"}};
  const std::vector<uint32_t> new_index = {1, 0};
  const Timeline timeline = std::move(builder).Finish(comms, {}, new_index);
  ASSERT_EQ(timeline.threads.size(), 2u);
  EXPECT_EQ(timeline.threads[0].name, "app");
  EXPECT_EQ(timeline.threads[1].name, "TBB Worker Thread");
  ASSERT_EQ(timeline.threads[0].samples.size(), 2u);
  EXPECT_EQ(timeline.threads[0].samples[0].stack, 1u);
  EXPECT_EQ(timeline.threads[0].samples[1].stack, 0u);
  EXPECT_EQ(timeline.threads[0].samples_on_cpu, 2u);
  EXPECT_EQ(timeline.threads[0].cpu_ns, 2000u);
  EXPECT_EQ(timeline.start_ns, 10u);
  EXPECT_EQ(timeline.end_ns, 30u);
}

// A thread is off the CPU from its switch out to its switch back in, waiting or preempted as the
// switch out says; still out when the recording ends, until then; out for good at its exit, not.
TEST(TimelineBuilderTest, SwitchesMakeTheThreadsPeriodsOffTheCpu) {
  TimelineBuilder builder(100);
  const std::vector<session::Switch> switches = {
      {.pid = kPid, .tid = 100, .time_ns = 50, .out = true},  // before the start
      {.pid = kPid, .tid = 100, .time_ns = 120, .out = false},
      {.pid = kPid, .tid = 100, .time_ns = 200, .out = true},
      {.pid = kPid, .tid = 101, .time_ns = 210, .out = false},  // in since before
      {.pid = kPid, .tid = 100, .time_ns = 260, .out = false},
      {.pid = kPid, .tid = 101, .time_ns = 300, .out = true, .preempted = true},
      {.pid = kPid, .tid = 101, .time_ns = 310, .out = false},
      {.pid = kPid, .tid = 100, .time_ns = 400, .out = true},   // never back
      {.pid = kPid, .tid = 102, .time_ns = 380, .out = true},   // exits
      {.pid = kPid, .tid = 101, .time_ns = 500, .out = false},  // the last record
  };
  builder.AddSwitches(switches);
  const std::vector<session::Task> tasks = {
      {.exit = true, .pid = kPid, .ppid = kPid, .tid = 102, .ptid = 102, .time_ns = 390}};
  const Timeline timeline = std::move(builder).Finish({}, tasks, {});
  std::vector<std::string> periods;
  for (const TimelineThread& thread : timeline.threads) {
    for (const OffCpuPeriod& period : thread.off_cpu) {
      periods.push_back(fmt::format("{}: [{},{}) {}", thread.tid, period.begin_ns, period.end_ns,
                                    OffCpuStateName(period.state)));
    }
  }
  EXPECT_EQ(periods, (std::vector<std::string>{
                         "100: [100,120) waiting",
                         "100: [200,260) waiting",
                         "100: [400,500) waiting",
                         "101: [300,310) preempted",
                     }));
  EXPECT_EQ(timeline.threads[0].waiting_ns, 180u);
  EXPECT_EQ(timeline.threads[0].preempted_ns, 0u);
  EXPECT_EQ(timeline.threads[1].preempted_ns, 10u);
  EXPECT_EQ(timeline.threads[2].waiting_ns, 0u);
}

// Each off-CPU sample (record --off-cpu) says why the period its switch out begins was spent off
// the CPU, whether or not the report keeps it; the kept one names its stack, renumbered as the
// profile sorted them (kNoStack: a stack the profile left out), and with `keep` is a sample of the
// thread weighing the period, not counted as time on a CPU.
TEST(TimelineBuilderTest, OffCpuSamplesGiveTheirPeriodsReasonAndStack) {
  TimelineBuilder builder(100);
  const std::vector<session::Switch> switches = {
      {.pid = kPid, .tid = 100, .time_ns = 200, .out = true},
      {.pid = kPid, .tid = 100, .time_ns = 260, .out = false},
      {.pid = kPid, .tid = 100, .time_ns = 300, .out = true},
      {.pid = kPid, .tid = 100, .time_ns = 310, .out = false},
      {.pid = kPid, .tid = 100, .time_ns = 400, .out = true, .preempted = true},
      {.pid = kPid, .tid = 100, .time_ns = 450, .out = false},
      {.pid = kPid, .tid = 100, .time_ns = 2'000'000, .out = true},
      {.pid = kPid, .tid = 100, .time_ns = 2'000'100, .out = false},
  };
  builder.AddSwitches(switches);
  auto off_cpu = [](uint64_t time, session::OffCpuReason reason) {
    session::Sample sample;
    sample.pid = kPid;
    sample.tid = 100;
    sample.time_ns = time;
    sample.off_cpu = true;
    sample.off_cpu_reason = reason;
    return sample;
  };
  // Kept, with stack 0, which the profile sorted second.
  builder.AddOffCpuReason(off_cpu(199, session::OffCpuReason::kSleep));
  builder.AddOffCpuSample(off_cpu(199, session::OffCpuReason::kSleep), 0, 60, true);
  // Left out by the report (--off-cpu exclude, a filter).
  builder.AddOffCpuReason(off_cpu(299, session::OffCpuReason::kIo));
  // Kept with a stack the profile left out, and not as a sample.
  builder.AddOffCpuReason(off_cpu(399, session::OffCpuReason::kLock));
  builder.AddOffCpuSample(off_cpu(399, session::OffCpuReason::kLock), 1, 50, false);
  // A millisecond before a switch out: not its sample; that period stays "waiting".
  builder.AddOffCpuReason(off_cpu(999'000, session::OffCpuReason::kPoll));
  const std::vector<uint32_t> new_index = {1, kNoStack};
  const Timeline timeline = std::move(builder).Finish({}, {}, new_index);
  ASSERT_EQ(timeline.threads.size(), 1u);
  const TimelineThread& thread = timeline.threads[0];
  std::vector<std::string> periods;
  for (const OffCpuPeriod& period : thread.off_cpu) {
    periods.push_back(
        fmt::format("[{},{}) {} {}", period.begin_ns, period.end_ns, OffCpuWhy(period),
                    period.stack == kNoStack ? "no stack" : fmt::format("stack {}", period.stack)));
  }
  EXPECT_EQ(periods, (std::vector<std::string>{
                         "[200,260) sleeping stack 1",
                         "[300,310) I/O no stack",
                         "[400,450) preempted no stack",
                         "[2000000,2000100) waiting no stack",
                     }));
  ASSERT_EQ(thread.samples.size(), 1u);
  EXPECT_EQ(thread.samples[0].time_ns, 199u);
  EXPECT_EQ(thread.samples[0].stack, 1u);
  EXPECT_EQ(thread.samples[0].weight_ns, 60u);
  EXPECT_TRUE(thread.samples[0].off_cpu);
  EXPECT_EQ(thread.samples_on_cpu, 0u);
  EXPECT_EQ(thread.cpu_ns, 0u);
  EXPECT_EQ(thread.waiting_ns, 170u);
  EXPECT_EQ(thread.preempted_ns, 50u);
}

}  // namespace
}  // namespace jitscope::report
