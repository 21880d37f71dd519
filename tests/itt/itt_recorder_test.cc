// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/collector/itt_recorder.h"

#include <bit>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "../trace/trace_test_util.h"

namespace jitscope::collector::itt {
namespace {

uint64_t FakeNow() { return 1; }
uint32_t FakeTid() { return 7; }
constexpr Environment kFakeEnvironment{&FakeNow, &FakeTid};

// The sink that keeps the timeline: a description of every record it is given.
class TimelineSink : public EventSink {
 public:
  Result Write(const trace::Record& record) override {
    std::lock_guard lock(mutex_);
    std::string line = trace::Describe(record);
    lines.push_back(line.substr(line.find("tid=")));
    return Result::kOk;
  }
  bool KeepsTimeline() const override { return true; }
  std::mutex mutex_;
  std::vector<std::string> lines;
};

struct TestCollector {
  TestCollector() {
    auto owned = std::make_unique<TimelineSink>();
    sink = owned.get();
    std::vector<std::unique_ptr<EventSink>> sinks;
    sinks.push_back(std::move(owned));
    collector = Collector::CreateForTesting(std::move(sinks), Log(), kFakeEnvironment);
  }
  TimelineSink* sink = nullptr;
  std::unique_ptr<Collector> collector;
};

constexpr Id kNull{0, 0, 0};

TEST(IttRecorderTest, TheSameNameGivesTheSameHandleAndOneRecord) {
  TestCollector c;
  Names names;
  Recorder recorder(*c.collector, names);
  Domain* domain = recorder.DomainCreate("d");
  ASSERT_NE(domain, nullptr);
  EXPECT_EQ(domain->flags, 1);  // the header's macros skip a domain whose flags are 0
  EXPECT_STREQ(domain->name, "d");
  EXPECT_EQ(recorder.DomainCreate("d"), domain);
  StringHandle* handle = recorder.StringHandleCreate("d");  // a name shared with the domain
  ASSERT_NE(handle, nullptr);
  EXPECT_STREQ(handle->text, "d");
  EXPECT_EQ(recorder.StringHandleCreate("d"), handle);
  EXPECT_NE(recorder.StringHandleCreate("e"), handle);
  recorder.Begin(trace::IttKind::kTask, trace::kCallIttTaskBegin, domain, Id{1, 2, 3}, kNull,
                 handle, 0);
  EXPECT_EQ(c.sink->lines, (std::vector<std::string>{
                               "tid=7 itt_string 1=\"d\"",
                               "tid=7 itt_string 2=\"e\"",
                               "tid=7 itt_begin kind=1 domain=1 name=1 id=1:2 parent=0:0 fn=0",
                           }));
  EXPECT_EQ(names.strings(), 2u);
}

// A domain and a handle the static part made before the collector was loaded are numbered when
// first used, and keep the number (in extra1) from then on.
TEST(IttRecorderTest, TheStaticPartsHandlesAreNumberedOnFirstUse) {
  TestCollector c;
  Names names;
  Recorder recorder(*c.collector, names);
  Domain early_domain{1, "early", nullptr, 0, nullptr, nullptr};
  StringHandle early_task{"task", nullptr, 0, nullptr, nullptr};
  StringHandle unnamed{nullptr, nullptr, 0, nullptr, nullptr};
  recorder.Marker(&early_domain, kNull, &early_task, 3);
  recorder.Marker(&early_domain, kNull, &early_task, 3);
  recorder.Marker(&early_domain, kNull, &unnamed, 3);
  EXPECT_EQ(early_domain.extra1, 1);
  EXPECT_EQ(early_task.extra1, 2);
  EXPECT_EQ(unnamed.extra1, 0);
  // Created later under the same name: the same number.
  EXPECT_EQ(recorder.StringHandleCreate("task")->extra1, 2);
  EXPECT_EQ(c.sink->lines, (std::vector<std::string>{
                               "tid=7 itt_string 1=\"early\"",
                               "tid=7 itt_string 2=\"task\"",
                               "tid=7 itt_marker domain=1 name=2 scope=3 id=0:0",
                               "tid=7 itt_marker domain=1 name=2 scope=3 id=0:0",
                               "tid=7 itt_marker domain=1 name=0 scope=3 id=0:0",
                           }));
}

TEST(IttRecorderTest, PastTheLimitOfNamesCreationsAreRefusedAndCounted) {
  TestCollector c;
  Names names(2);
  Recorder recorder(*c.collector, names);
  Domain* domain = recorder.DomainCreate("a");
  ASSERT_NE(recorder.StringHandleCreate("b"), nullptr);
  EXPECT_EQ(recorder.StringHandleCreate("c"), nullptr);
  EXPECT_EQ(recorder.DomainCreate("c"), nullptr);
  EXPECT_EQ(recorder.CounterCreate("c", nullptr, kMetadataU64), nullptr);
  // Known names still are.
  EXPECT_EQ(recorder.DomainCreate("a"), domain);
  ASSERT_NE(recorder.StringHandleCreate("b"), nullptr);
  StringHandle early{"c", nullptr, 0, nullptr, nullptr};
  recorder.Begin(trace::IttKind::kTask, trace::kCallIttTaskBegin, domain, kNull, kNull, &early, 0);
  EXPECT_EQ(c.collector->rejected(trace::RejectReason::kTooManyStrings), 3u);
  EXPECT_EQ(c.sink->lines.back(), "tid=7 itt_begin kind=1 domain=1 name=0 id=0:0 parent=0:0 fn=0");
}

// A new trace (the collector of a fork()ed child) is given every name and counter first.
TEST(IttRecorderTest, ANewCollectorIsGivenEveryNameAndCounterFirst) {
  Names names;
  TestCollector first;
  {
    Recorder recorder(*first.collector, names);
    recorder.DomainCreate("d");
    recorder.CounterCreate("n", "d", kMetadataDouble);
  }
  TestCollector second;
  Recorder recorder(*second.collector, names);
  Recorder again(*second.collector, names);  // once per collector
  EXPECT_EQ(second.sink->lines, (std::vector<std::string>{
                                    "tid=7 itt_string 1=\"d\"",
                                    "tid=7 itt_string 2=\"n\"",
                                    "tid=7 itt_counter 1 name=2 domain=1 type=8",
                                }));
}

TEST(IttRecorderTest, CountersCountInTheirType) {
  TestCollector c;
  Names names;
  Recorder recorder(*c.collector, names);
  CounterInfo* u32 = recorder.CounterCreate("u32", nullptr, kMetadataU32);
  EXPECT_EQ(recorder.CounterCreate("u32", nullptr, kMetadataU32), u32);
  recorder.CounterAdd(u32, -1);  // wraps at 32 bits
  const double two_and_a_half = 2.5;
  CounterInfo* real = recorder.CounterCreate("double", "d", kMetadataDouble);
  recorder.CounterSet(real, &two_and_a_half);
  recorder.CounterAdd(real, -3);
  // A counter the static part made before the collector was loaded.
  CounterInfo early{"early", nullptr, "d", nullptr, kMetadataS32, 0, 0, nullptr, nullptr};
  const int32_t minus_five = -5;
  recorder.CounterSet(&early, &minus_five);
  recorder.CounterAdd(&early, 2);
  EXPECT_EQ(c.sink->lines,
            (std::vector<std::string>{
                "tid=7 itt_string 1=\"u32\"",
                "tid=7 itt_counter 1 name=1 domain=0 type=3",
                "tid=7 itt_counter_value 1=4294967295",
                "tid=7 itt_string 2=\"double\"",
                "tid=7 itt_string 3=\"d\"",
                "tid=7 itt_counter 2 name=2 domain=3 type=8",
                "tid=7 itt_counter_value 2=" + std::to_string(std::bit_cast<uint64_t>(2.5)),
                "tid=7 itt_counter_value 2=" + std::to_string(std::bit_cast<uint64_t>(-0.5)),
                "tid=7 itt_string 4=\"early\"",
                "tid=7 itt_counter 3 name=4 domain=3 type=4",
                "tid=7 itt_counter_value 3=" + std::to_string(static_cast<uint64_t>(-5)),
                "tid=7 itt_counter_value 3=" + std::to_string(static_cast<uint64_t>(-3)),
            }));
}

TEST(IttRecorderTest, CounterValuesAreEncodedPerType) {
  const uint16_t u16 = 65535;
  const int16_t s16 = -1;
  const float f = 0.25f;
  const uint64_t u64 = ~uint64_t{0};
  EXPECT_EQ(EncodeCounterValue(kMetadataU16, &u16), 65535u);
  EXPECT_EQ(EncodeCounterValue(kMetadataS16, &s16), ~uint64_t{0});
  EXPECT_EQ(EncodeCounterValue(kMetadataFloat, &f), std::bit_cast<uint64_t>(0.25));
  EXPECT_EQ(EncodeCounterValue(kMetadataUnknown, &u64), ~uint64_t{0});
  EXPECT_EQ(AddToCounterValue(kMetadataU16, 65535, 1), 0u);
  EXPECT_EQ(AddToCounterValue(kMetadataS16, 32767, 1), static_cast<uint64_t>(-32768));
  EXPECT_EQ(AddToCounterValue(kMetadataS64, 0, -1), ~uint64_t{0});
  EXPECT_EQ(AddToCounterValue(kMetadataFloat, std::bit_cast<uint64_t>(0.25), 1),
            std::bit_cast<uint64_t>(1.25));
}

// Threads that create the same names and use them at once: each name is numbered and recorded
// once, and every task is recorded.
TEST(IttRecorderTest, ThreadsCreatingTheSameNamesShareTheirNumbers) {
  TestCollector c;
  Names names;
  constexpr int kThreads = 4, kNames = 500;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      Recorder recorder(*c.collector, names);
      Domain* domain = recorder.DomainCreate("shared");
      for (int i = 0; i < kNames; ++i) {
        StringHandle* name = recorder.StringHandleCreate(("name" + std::to_string(i)).c_str());
        recorder.Begin(trace::IttKind::kTask, trace::kCallIttTaskBegin, domain, kNull, kNull, name,
                       0);
        recorder.End(trace::IttKind::kTask, trace::kCallIttTaskEnd, domain, kNull);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  std::set<std::string> strings;
  size_t tasks = 0;
  for (const std::string& line : c.sink->lines) {
    if (line.starts_with("tid=7 itt_string")) {
      EXPECT_TRUE(strings.insert(line).second) << line;
    }
    if (line.starts_with("tid=7 itt_begin")) ++tasks;
  }
  EXPECT_EQ(strings.size(), kNames + 1u);
  EXPECT_EQ(tasks, static_cast<size_t>(kThreads * kNames));
}

}  // namespace
}  // namespace jitscope::collector::itt
