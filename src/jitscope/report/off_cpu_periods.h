// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// When each thread was off the CPU, from a recording's switch records (record --switch-events and
// --off-cpu, perf record --switch-events): a period runs from a thread's switch out of its CPU to
// its next switch back in, waiting or preempted as the switch out says. The timeline draws them
// (timeline_builder.h); the samples of record --off-cpu, taken as a thread was switched out, are
// weighted by the period each begins (profile_builder.cc).
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <utility>
#include <vector>

#include "jitscope/report/timeline.h"
#include "jitscope/session/perf_record.h"

namespace jitscope::report {

// Each thread's periods off the CPU, by (pid, tid), each thread's in time order. `switches` and
// `tasks` are in time order. A second switch out without a switch in between (a lost record)
// starts the period again; a switch in without a switch out before it (out since before the
// recording) ends none. A thread still out at `end_ns` was off the CPU until then, but one that
// exited: its last switch out, at its exit, is no wait.
std::map<std::pair<uint32_t, uint32_t>, std::vector<OffCpuPeriod>> OffCpuPeriodsOf(
    std::span<const session::Switch> switches, std::span<const session::Task> tasks,
    uint64_t end_ns);

// The kernel takes an off-CPU sample (session::Sample::off_cpu) just before it writes the switch
// out it comes with, in the same scheduler call: microseconds apart, never this much.
inline constexpr uint64_t kOffCpuSampleLagNs = 1'000'000;

// The period that an off-CPU sample of its thread taken at `time_ns` stands for: the first of
// `periods` (one thread's, in time order) that begins at or after it, within kOffCpuSampleLagNs;
// null when none does (the switch out was lost, or it was the thread's last, at its exit).
const OffCpuPeriod* PeriodOfOffCpuSample(std::span<const OffCpuPeriod> periods, uint64_t time_ns);

}  // namespace jitscope::report
