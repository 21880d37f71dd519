// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/record/event_config.h"

#include <time.h>

#include <gtest/gtest.h>

namespace jitscope::record {
namespace {

TEST(EventConfigTest, SamplesCpuClockWithMonotonicTimestampsAndCallChains) {
  const perf_event_attr attr =
      MakeSamplingAttr({.frequency_hz = 997, .include_kernel = true, .call_graph = {}});
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

TEST(EventConfigTest, SwitchEventsAskForContextSwitchRecords) {
  EXPECT_EQ(MakeSamplingAttr({}).context_switch, 0u);
  SamplerOptions options;
  options.switch_events = true;
  EXPECT_EQ(MakeSamplingAttr(options).context_switch, 1u);
}

// record --off-cpu: one context-switches sample per switch out, with the sampling event's layout,
// inherited and enabled at the exec as it is; the switch records come with the sampling event.
TEST(EventConfigTest, OffCpuSamplesEverySwitchOutWithTheUserStack) {
  const SamplerOptions options{.frequency_hz = 1000,
                               .include_kernel = false,
                               .call_graph = {CallGraph::kDwarf, 16384},
                               .build_ids = true,
                               .switch_events = false,
                               .off_cpu = true};
  EXPECT_EQ(MakeSamplingAttr(options).context_switch, 1u);
  const perf_event_attr attr = MakeOffCpuAttr(options);
  EXPECT_EQ(attr.type, static_cast<uint32_t>(PERF_TYPE_SOFTWARE));
  EXPECT_EQ(attr.config, static_cast<uint64_t>(PERF_COUNT_SW_CONTEXT_SWITCHES));
  EXPECT_EQ(attr.freq, 0u);
  EXPECT_EQ(attr.sample_period, 1u);
  EXPECT_EQ(attr.sample_type, MakeSamplingAttr(options).sample_type);
  EXPECT_EQ(attr.sample_regs_user, 0xff0fffu);
  EXPECT_EQ(attr.sample_stack_user, 16384u);
  EXPECT_EQ(attr.exclude_kernel, 0u) << "the sample is taken in the scheduler";
  EXPECT_EQ(attr.exclude_callchain_kernel, 0u) << "the system call it waits in";
  EXPECT_EQ(attr.inherit, 1u);
  EXPECT_EQ(attr.enable_on_exec, 1u);
  EXPECT_EQ(attr.use_clockid, 1u);
  EXPECT_EQ(attr.clockid, CLOCK_MONOTONIC);
  EXPECT_EQ(attr.sample_id_all, 1u);
  EXPECT_EQ(attr.mmap + attr.mmap2 + attr.comm + attr.task + attr.context_switch, 0u);
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
  const perf_event_attr attr =
      MakeSamplingAttr({.frequency_hz = 100, .include_kernel = false, .call_graph = {}});
  EXPECT_EQ(attr.exclude_kernel, 1u);
  EXPECT_EQ(attr.exclude_callchain_kernel, 1u);
}

TEST(EventConfigTest, FramePointerModeAsksForNoRegistersOrStack) {
  const perf_event_attr attr = MakeSamplingAttr({});
  EXPECT_EQ(attr.sample_regs_user, 0u);
  EXPECT_EQ(attr.sample_stack_user, 0u);
  EXPECT_EQ(attr.exclude_callchain_user, 0u);
  EXPECT_EQ(SamplesFormatOf({}), session::SamplesFormat{});
}

TEST(EventConfigTest, DwarfModeAsksForEveryGeneralRegisterAndTheStackCopy) {
  const SamplerOptions options{
      .frequency_hz = 1000, .include_kernel = true, .call_graph = {CallGraph::kDwarf, 16384}};
  const perf_event_attr attr = MakeSamplingAttr(options);
  EXPECT_EQ(attr.sample_type,
            static_cast<uint64_t>(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                  PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
                                  PERF_SAMPLE_STACK_USER));
  // AX..SS and R8..R15: all but DS, ES, FS, GS, which the kernel refuses.
  EXPECT_EQ(attr.sample_regs_user, 0xff0fffu);
  EXPECT_EQ(attr.sample_stack_user, 16384u);
  EXPECT_EQ(attr.exclude_callchain_user, 0u) << "the frame-pointer chain, for when a walk stops";
  EXPECT_EQ(attr.exclude_callchain_kernel, 0u);
  EXPECT_EQ(SamplesFormatOf(options),
            (session::SamplesFormat{{session::kDwarfSampleType, 0xff0fff}, 16384}));
}

TEST(EventConfigTest, ParsesPerfsCallGraphSpelling) {
  EXPECT_EQ(*ParseCallGraph("fp"), CallGraphOptions{});
  EXPECT_EQ(*ParseCallGraph("dwarf"), (CallGraphOptions{CallGraph::kDwarf, 32768}));
  EXPECT_EQ(*ParseCallGraph("dwarf,4096"), (CallGraphOptions{CallGraph::kDwarf, 4096}));
  EXPECT_EQ(*ParseCallGraph("dwarf,1001"), (CallGraphOptions{CallGraph::kDwarf, 1008}))
      << "rounded up to 8 bytes, as perf does";
  EXPECT_EQ(*ParseCallGraph("dwarf,65528"), (CallGraphOptions{CallGraph::kDwarf, 65528}));
  EXPECT_EQ(ParseCallGraph("dwarf,65529").status().message(),
            "--call-graph dwarf,65529: SIZE must be 8 to 65528 bytes");
  EXPECT_FALSE(ParseCallGraph("dwarf,0").ok());
  EXPECT_FALSE(ParseCallGraph("dwarf,").ok());
  EXPECT_FALSE(ParseCallGraph("dwarf,8k").ok());
  EXPECT_EQ(ParseCallGraph("lbr").status().message(),
            "--call-graph lbr: expected fp, dwarf or dwarf,SIZE");
}

}  // namespace
}  // namespace jitscope::record
