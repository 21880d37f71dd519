// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// `report --format chrome-trace` of a profile with a timeline of every kind of event (off-CPU
// periods of each reason, with the stack of the off-CPU sample the report kept): the whole file,
// byte for byte, and that it is JSON.
#include "jitscope/report/chrome_trace_writer.h"

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sample_profile.h"

namespace jitscope::report {
namespace {

Profile ProfileWithTimeline() {
  Profile profile = SampleProfile();
  profile.processes = {{5, "app", 10}};
  Timeline& timeline = profile.timeline;
  timeline.start_ns = 1'000'000;
  timeline.end_ns = 11'000'000;
  timeline.strings = {"", "d", "conv", "f", "queue", "a\"b\x01"};
  TimelineThread thread;
  thread.pid = 5;
  thread.tid = 5;
  thread.name = "app";
  thread.slices = {
      {.begin_ns = 1'500'000, .end_ns = 2'000'500, .name = 2, .domain = 1},
      {.begin_ns = 3'000'000,
       .end_ns = 4'000'000,
       .name = 2,
       .domain = 1,
       .kind = trace::IttKind::kRegion,
       .id = {9, 0},
       .ended = false},
  };
  thread.instants = {
      {.time_ns = 1'200'000,
       .kind = InstantKind::kJitLoad,
       .name = 3,
       .address = 0x1000,
       .size = 16,
       .method_id = 7,
       .version = 1},
      {.time_ns = 1'300'000, .kind = InstantKind::kMarker, .name = 5, .domain = 1, .scope = 1},
  };
  // An off-CPU sample (record --off-cpu) taken 10 us before its switch out: it weighs its period.
  thread.samples = {{.time_ns = 1'600'000, .stack = 0, .weight_ns = 1'000'000},
                    {.time_ns = 6'999'990, .stack = 1, .weight_ns = 2'000'000, .off_cpu = true}};
  thread.off_cpu = {
      {.begin_ns = 5'000'000, .end_ns = 6'000'000, .state = OffCpuState::kPreempted},
      {.begin_ns = 7'000'000,
       .end_ns = 9'000'000,
       .reason = session::OffCpuReason::kSleep,
       .stack = 1},
      {.begin_ns = 9'500'000, .end_ns = 9'600'000, .reason = session::OffCpuReason::kIo}};
  TimelineThread worker;
  worker.pid = 5;
  worker.tid = 6;
  timeline.threads = {thread, worker};
  timeline.counters = {{.pid = 5, .name = 4, .domain = 1, .values = {{2'000'000, 3.5}}}};
  return profile;
}

TEST(ChromeTraceTest, EveryKindOfEventAndTheSamplesStacks) {
  const base::StatusOr<std::string> json = RenderChromeTrace(ProfileWithTimeline());
  ASSERT_TRUE(json.ok());
  EXPECT_EQ(*json,
            R"({"displayTimeUnit":"ns","traceEvents":[
{"ph":"M","pid":5,"tid":5,"name":"process_name","args":{"name":"app"}},
{"ph":"M","pid":5,"tid":5,"name":"thread_name","args":{"name":"app"}},
{"ph":"M","pid":5,"tid":6,"name":"thread_name","args":{"name":"tid 6"}},
{"ph":"X","ts":500.000,"dur":500.500,"pid":5,"tid":5,"name":"conv","cat":"d","args":{"kind":"task","domain":"d"}},
{"ph":"b","ts":2000.000,"pid":5,"tid":5,"name":"conv","cat":"d","id":"region:0x9:0x0","args":{"kind":"region","domain":"d","id":"0x9:0x0","ended":false}},
{"ph":"e","ts":3000.000,"pid":5,"tid":5,"name":"conv","cat":"d","id":"region:0x9:0x0"},
{"ph":"X","ts":4000.000,"dur":1000.000,"pid":5,"tid":5,"name":"[off-cpu: preempted]","cat":"off-cpu"},
{"ph":"X","ts":6000.000,"dur":2000.000,"pid":5,"tid":5,"name":"[off-cpu: sleeping]","cat":"off-cpu","args":{"stack":"hot <- main"}},
{"ph":"X","ts":8500.000,"dur":100.000,"pid":5,"tid":5,"name":"[off-cpu: I/O]","cat":"off-cpu"},
{"ph":"i","ts":200.000,"pid":5,"tid":5,"s":"t","name":"load: f","cat":"jit","args":{"event":"load","address":"0x1000","size":16,"method_id":7,"version":1}},
{"ph":"i","ts":300.000,"pid":5,"tid":5,"s":"g","name":"a\"b?","cat":"d"},
{"ph":"i","ts":600.000,"pid":5,"tid":5,"s":"t","name":"work","cat":"sample","args":{"stack":"work <- hot <- main"}},
{"ph":"C","ts":1000.000,"pid":5,"name":"d/queue","args":{"value":3.5}}
],
"otherData":{"command":"jitvm hot.jv","recording_start_monotonic_ns":1000000,"recording_end_monotonic_ns":11000000,"sample_period_ns":1000000},
"stackFrames":{
"1":{"name":"main","category":"/usr/bin/app"},
"2":{"name":"hot","category":"jitvm-opt","parent":"1"},
"3":{"name":"work","category":"jitvm-opt","parent":"2"},
"4":{"name":"hot","category":"jitvm-base","parent":"1"}},
"samples":[
{"ts":600.000,"pid":5,"tid":5,"name":"cpu-clock","sf":"3","weight":1000000},
{"ts":5999.990,"pid":5,"tid":5,"name":"off-cpu","sf":"4","weight":2000000}]
}
)");
  // And it is JSON, as Perfetto's UI and chrome://tracing read it.
  const nlohmann::json parsed = nlohmann::json::parse(*json);
  EXPECT_EQ(parsed["traceEvents"].size(), 13u);
  EXPECT_EQ(parsed["traceEvents"][3]["dur"], 500.5);
}

// A recording without a timeline (a perf.data of another tool's, nothing but samples) is still a
// file the viewers open: no events, no stacks.
TEST(ChromeTraceTest, AnEmptyTimelineIsAnEmptyTrace) {
  Profile profile;
  const base::StatusOr<std::string> json = RenderChromeTrace(profile);
  ASSERT_TRUE(json.ok());
  const nlohmann::json parsed = nlohmann::json::parse(*json);
  EXPECT_TRUE(parsed["traceEvents"].empty());
  EXPECT_TRUE(parsed["samples"].empty());
}

}  // namespace
}  // namespace jitscope::report
