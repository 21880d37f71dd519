// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/record/event_config.h"

#include <time.h>

#include <gtest/gtest.h>

namespace jitscope::record {
namespace {

TEST(EventConfigTest, SamplesCpuClockWithMonotonicTimestampsAndCallChains) {
  const perf_event_attr attr = MakeSamplingAttr({.frequency_hz = 997, .include_kernel = true});
  EXPECT_EQ(attr.size, sizeof(perf_event_attr));
  EXPECT_EQ(attr.type, static_cast<uint32_t>(PERF_TYPE_SOFTWARE));
  EXPECT_EQ(attr.config, static_cast<uint64_t>(PERF_COUNT_SW_CPU_CLOCK));
  EXPECT_EQ(attr.freq, 1u);
  EXPECT_EQ(attr.sample_freq, 997u);
  EXPECT_EQ(attr.sample_type, static_cast<uint64_t>(PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                                                    PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN));
  EXPECT_EQ(attr.use_clockid, 1u);
  EXPECT_EQ(attr.clockid, CLOCK_MONOTONIC);
  EXPECT_EQ(attr.exclude_kernel, 0u);
  EXPECT_EQ(attr.exclude_callchain_kernel, 0u);
}

TEST(EventConfigTest, FollowsThreadsChildrenAndMappingsFromExecOn) {
  const perf_event_attr attr = MakeSamplingAttr({});
  EXPECT_EQ(attr.sample_freq, 1000u);
  EXPECT_EQ(attr.inherit, 1u);
  EXPECT_EQ(attr.disabled, 1u);
  EXPECT_EQ(attr.enable_on_exec, 1u);
  EXPECT_EQ(attr.mmap, 1u);
  EXPECT_EQ(attr.mmap2, 1u);
  EXPECT_EQ(attr.comm, 1u);
  EXPECT_EQ(attr.comm_exec, 1u);
  EXPECT_EQ(attr.task, 1u);
  EXPECT_EQ(attr.sample_id_all, 1u);
}

TEST(EventConfigTest, UserOnlyWhenKernelFramesAreNotAllowed) {
  const perf_event_attr attr = MakeSamplingAttr({.frequency_hz = 100, .include_kernel = false});
  EXPECT_EQ(attr.exclude_kernel, 1u);
  EXPECT_EQ(attr.exclude_callchain_kernel, 1u);
}

}  // namespace
}  // namespace jitscope::record
