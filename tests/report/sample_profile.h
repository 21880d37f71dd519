// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// A small profile with every kind of frame, for the writers' tests: 10 samples of
// main → hot (optimized) → work inlined into hot (6), main → hot (baseline) (3), and
// main → write<a;b> → [kernel] (1), whose name needs escaping in every format.
#pragma once

#include "jitscope/report/profile.h"

namespace jitscope::report {

inline Profile SampleProfile() {
  Profile p;
  p.locations = {
      {"work", "jitvm-opt", "hot.jv", 3, FrameKind::kJit, true},                            // 0
      {"hot", "jitvm-opt", "hot.jv", 5, FrameKind::kJit, false},                            // 1
      {"main", "/usr/bin/app", "main.cc", 12, FrameKind::kNative, false},                   // 2
      {"hot", "jitvm-base", "hot.jv", 7, FrameKind::kJit, false},                           // 3
      {"write<a;b>", "/lib/x86_64-linux-gnu/libc.so.6", "", 0, FrameKind::kNative, false},  // 4
      {"[kernel]", "[kernel]", "", 0, FrameKind::kKernel, false},                           // 5
  };
  p.stacks = {{{0, 1, 2}, 6, 1000, 9000}, {{3, 2}, 3, 0, 500}, {{5, 4, 2}, 1, 4000, 4000}};
  p.total_samples = 10;
  p.sample_period_ns = 1'000'000;
  p.start_time_ns = 1'000'000;
  p.end_time_ns = 11'000'000;
  p.command = "jitvm hot.jv";
  p.warnings = {"the kernel lost 2 samples"};
  return p;
}

// SampleProfile with its samples' times and threads (BuildOptions::sample_times): thread 7
// ("jitvm") took the optimized stack's 6 samples and the kernel's, thread 8 ("worker") the
// baseline's 3, interleaved in time.
inline Profile TimedSampleProfile() {
  Profile p = SampleProfile();
  p.threads = {{7, 7, "jitvm", 7}, {7, 8, "worker", 3}};
  const std::pair<uint32_t, uint32_t> order[] = {{0, 0}, {1, 1}, {0, 0}, {0, 0}, {1, 1},
                                                 {0, 2}, {0, 0}, {1, 1}, {0, 0}, {0, 0}};
  uint64_t time = 1'000'000;
  for (const auto& [thread, stack] : order) {
    p.samples.push_back({time, thread, stack, p.sample_period_ns});
    time += 1'000'000;
  }
  p.processes = {{7, "jitvm", 10}};
  return p;
}

}  // namespace jitscope::report
