// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Every timestamp in jitscope is CLOCK_MONOTONIC nanoseconds: the clock `perf record -k 1` uses,
// so traces, jitdumps and samples line up (docs/architecture.md, "The interfaces jitscope keeps").
// clock_gettime on this clock is served by the vDSO: no syscall.
#pragma once

#include <time.h>

#include <cstdint>

namespace jitscope::base {

inline uint64_t MonotonicNowNs() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace jitscope::base
