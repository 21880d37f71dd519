// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/report/sample_filter.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace jitscope::report {
namespace {

TEST(SampleFilterTest, TimeRangesAreSecondsEitherEndOpen) {
  EXPECT_EQ(*ParseTimeRange("1.5,3"), (TimeRange{1.5, 3.0}));
  EXPECT_EQ(*ParseTimeRange("2,"), (TimeRange{2.0, std::nullopt}));
  EXPECT_EQ(*ParseTimeRange(",0.25"), (TimeRange{std::nullopt, 0.25}));
  EXPECT_EQ(*ParseTimeRange(","), (TimeRange{}));
  for (const char* bad : {"", "3", "1,2,3", "a,2", "-1,2", "1,2s", "inf,", "nan,1"}) {
    EXPECT_EQ(ParseTimeRange(bad).status().message(),
              std::string("--time takes START,END in seconds from the recording's start (either "
                          "may be left out: 2.5, or ,10), not '") +
                  bad + "'")
        << bad;
  }
  EXPECT_EQ(ParseTimeRange("3,1").status().message(), "--time 3,1: its start is after its end");
}

session::Sample SampleAt(uint32_t pid, uint32_t tid, uint64_t time) {
  session::Sample sample;
  sample.pid = pid;
  sample.tid = tid;
  sample.time_ns = time;
  return sample;
}

class SampleFilterFixture : public ::testing::Test {
 protected:
  SampleFilterFixture() : names_(comms_, tasks_) {
    // Thread 11 is inside "convolution" over [100, 200) and inside a "matmul" never ended from
    // 500; thread 12 inside a frame named "convolution", which no task filter takes.
    timeline_.strings = {"", "convolution", "matmul", "d"};
    TimelineThread t11;
    t11.pid = 10;
    t11.tid = 11;
    t11.slices = {{.begin_ns = 100, .end_ns = 200, .name = 1, .domain = 3},
                  {.begin_ns = 150, .end_ns = 180, .name = 1, .domain = 3, .depth = 1},
                  {.begin_ns = 500, .end_ns = 500, .name = 2, .domain = 3, .ended = false}};
    TimelineThread t12;
    t12.pid = 10;
    t12.tid = 12;
    t12.slices = {
        {.begin_ns = 100, .end_ns = 200, .name = 1, .domain = 3, .kind = trace::IttKind::kFrame}};
    timeline_.threads = {t11, t12};
  }
  bool Wanted(const SampleFilterOptions& options, const session::Sample& sample,
              uint64_t start = 0) {
    return SampleFilter(options, timeline_, start, names_).Wanted(sample);
  }

  std::vector<session::Comm> comms_ = {
      {.pid = 10, .tid = 10, .time_ns = 0, .exec = true, .name = "node"},
      {.pid = 10, .tid = 11, .time_ns = 0, .exec = false, .name = "V8 Worker"}};
  std::vector<session::Task> tasks_;
  ProcessNames names_;
  Timeline timeline_;
};

TEST_F(SampleFilterFixture, ATaskFilterKeepsTheSamplesInsideATaskOfThatName) {
  SampleFilterOptions options;
  options.tasks = {"convolution"};
  EXPECT_FALSE(Wanted(options, SampleAt(10, 11, 99)));
  EXPECT_TRUE(Wanted(options, SampleAt(10, 11, 100)));
  EXPECT_TRUE(Wanted(options, SampleAt(10, 11, 199)));
  EXPECT_FALSE(Wanted(options, SampleAt(10, 11, 200)));
  EXPECT_FALSE(Wanted(options, SampleAt(10, 12, 150))) << "a frame is not a task";
  EXPECT_FALSE(Wanted(options, SampleAt(10, 13, 150))) << "another thread's task";
  options.tasks = {"matmul"};
  EXPECT_TRUE(Wanted(options, SampleAt(10, 11, 100000))) << "never ended: to the end";
  options.tasks = {"matmul", "convolution"};
  EXPECT_TRUE(Wanted(options, SampleAt(10, 11, 150)));
}

TEST_F(SampleFilterFixture, TimeIsCountedFromTheRecordingsStart) {
  SampleFilterOptions options;
  options.time = TimeRange{1.0, 2.5};
  const uint64_t start = 5'000'000'000;
  EXPECT_FALSE(Wanted(options, SampleAt(10, 10, start + 999'999'999), start));
  EXPECT_TRUE(Wanted(options, SampleAt(10, 10, start + 1'000'000'000), start));
  EXPECT_TRUE(Wanted(options, SampleAt(10, 10, start + 2'499'999'999), start));
  EXPECT_FALSE(Wanted(options, SampleAt(10, 10, start + 2'500'000'000), start));
  options.time = TimeRange{std::nullopt, 1e30};  // far past any time
  EXPECT_TRUE(Wanted(options, SampleAt(10, 10, UINT64_MAX - 1), start));
}

// --comm matches every thread's name, and a process's: 'V8 Worker' picks the workers, 'node'
// every thread of node.
TEST_F(SampleFilterFixture, ACommFilterMatchesEveryThreadsNameAndItsProcesss) {
  SampleFilterOptions options;
  options.comms = {"V8 Worker"};
  EXPECT_TRUE(Wanted(options, SampleAt(10, 11, 5)));
  EXPECT_FALSE(Wanted(options, SampleAt(10, 10, 5)));
  options.comms = {"node"};
  EXPECT_TRUE(Wanted(options, SampleAt(10, 11, 5)));
  EXPECT_TRUE(Wanted(options, SampleAt(10, 10, 5)));
  options.comms = {"python"};
  EXPECT_FALSE(Wanted(options, SampleAt(10, 11, 5)));
}

TEST_F(SampleFilterFixture, EveryFilterGivenMustKeepTheSample) {
  SampleFilterOptions options;
  EXPECT_TRUE(Wanted(options, SampleAt(10, 11, 5)));
  options.tids = {11, 12};
  options.pids = {10};
  EXPECT_TRUE(Wanted(options, SampleAt(10, 11, 5)));
  EXPECT_FALSE(Wanted(options, SampleAt(10, 10, 5)));
  options.pids = {20};
  EXPECT_FALSE(Wanted(options, SampleAt(10, 11, 5)));
}

}  // namespace
}  // namespace jitscope::report
