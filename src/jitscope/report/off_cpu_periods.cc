// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/report/off_cpu_periods.h"

#include <algorithm>
#include <set>

namespace jitscope::report {

std::map<std::pair<uint32_t, uint32_t>, std::vector<OffCpuPeriod>> OffCpuPeriodsOf(
    std::span<const session::Switch> switches, std::span<const session::Task> tasks,
    uint64_t end_ns) {
  std::map<std::pair<uint32_t, uint32_t>, std::vector<OffCpuPeriod>> periods;
  // Each thread switched out and not yet back in: when, and why.
  std::map<std::pair<uint32_t, uint32_t>, OffCpuPeriod> out;
  for (const session::Switch& change : switches) {
    const std::pair<uint32_t, uint32_t> thread{change.pid, change.tid};
    if (change.out) {
      out[thread] = {change.time_ns, change.time_ns,
                     change.preempted ? OffCpuState::kPreempted : OffCpuState::kWaiting};
      continue;
    }
    auto it = out.find(thread);
    if (it == out.end()) continue;
    it->second.end_ns = change.time_ns;
    periods[thread].push_back(it->second);
    out.erase(it);
  }
  std::set<std::pair<uint32_t, uint32_t>> exited;
  for (const session::Task& task : tasks) {
    if (task.exit) exited.insert({task.pid, task.tid});
  }
  for (auto& [thread, period] : out) {
    if (exited.contains(thread) || period.begin_ns >= end_ns) continue;
    period.end_ns = end_ns;
    periods[thread].push_back(period);
  }
  return periods;
}

const OffCpuPeriod* PeriodOfOffCpuSample(std::span<const OffCpuPeriod> periods, uint64_t time_ns) {
  const auto it = std::lower_bound(
      periods.begin(), periods.end(), time_ns,
      [](const OffCpuPeriod& period, uint64_t time) { return period.begin_ns < time; });
  if (it == periods.end() || it->begin_ns - time_ns > kOffCpuSampleLagNs) return nullptr;
  return &*it;
}

}  // namespace jitscope::report
