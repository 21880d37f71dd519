// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Which samples a report or an annotation keeps: `--pid`, `--tid`, `--comm` (a thread's name or
// its process's, as they were when the sample was taken: every thread's, not only the main
// one's, so `--comm 'V8 Worker'` keeps the samples of Node's workers), `--time START,END`
// (seconds from the recording's start) and `--task NAME` (samples taken while their thread was
// inside an ITT task, overlapped task or region of that name: timeline.h). A sample is kept when
// it passes every filter given; each filter given several values keeps what any of them keeps.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "jitscope/base/status.h"
#include "jitscope/report/process_names.h"
#include "jitscope/report/timeline.h"
#include "jitscope/session/perf_record.h"

namespace jitscope::report {

// A span of a recording, in seconds from its start; either end may be open.
struct TimeRange {
  std::optional<double> start_s;
  std::optional<double> end_s;
  bool operator==(const TimeRange&) const = default;
};
// "START,END", "START," or ",END" (seconds, decimals allowed, as perf report's --time takes).
base::StatusOr<TimeRange> ParseTimeRange(std::string_view text);

struct SampleFilterOptions {
  std::vector<uint32_t> pids;
  std::vector<uint32_t> tids;
  std::vector<std::string> comms;
  std::vector<std::string> tasks;
  std::optional<TimeRange> time;
  bool empty() const {
    return pids.empty() && tids.empty() && comms.empty() && tasks.empty() && !time;
  }
};

class SampleFilter {
 public:
  // `timeline` holds the ITT slices (TimelineBuilder, before the samples), `start_ns` is when the
  // recording began; both must outlive the filter.
  SampleFilter(const SampleFilterOptions& options, const Timeline& timeline, uint64_t start_ns,
               const ProcessNames& names);

  bool Wanted(const session::Sample& sample) const;
  // The samples of processes and threads the filter leaves out are counted as "left out".
  bool active() const { return !options_.empty(); }
  // The time window in CLOCK_MONOTONIC nanoseconds: [first, last).
  uint64_t first_ns() const { return first_ns_; }
  uint64_t last_ns() const { return last_ns_; }

 private:
  bool InTask(const session::Sample& sample) const;

  const SampleFilterOptions& options_;
  const ProcessNames& names_;
  uint64_t first_ns_ = 0;
  uint64_t last_ns_ = UINT64_MAX;
  // The spans each thread spent inside a task of the names asked for, merged, by begin.
  std::map<std::pair<uint32_t, uint32_t>, std::vector<std::pair<uint64_t, uint64_t>>> in_task_;
};

}  // namespace jitscope::report
