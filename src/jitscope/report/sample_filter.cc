// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/report/sample_filter.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

namespace jitscope::report {
namespace {

base::Status InvalidRange(std::string_view text) {
  return base::Status::Error(
      "--time takes START,END in seconds from the recording's start (either may be left out: "
      "2.5, or ,10), not '%.*s'",
      static_cast<int>(text.size()), text.data());
}

base::StatusOr<std::optional<double>> ParseSeconds(std::string_view text, std::string_view whole) {
  if (text.empty()) return std::optional<double>();
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value) ||
      value < 0) {
    return InvalidRange(whole);
  }
  return std::optional<double>(value);
}

uint64_t Offset(uint64_t start_ns, double seconds) {
  const double ns = seconds * 1e9;
  if (ns >= static_cast<double>(UINT64_MAX - start_ns)) return UINT64_MAX;
  return start_ns + static_cast<uint64_t>(ns);
}

}  // namespace

base::StatusOr<TimeRange> ParseTimeRange(std::string_view text) {
  const size_t comma = text.find(',');
  if (comma == std::string_view::npos || text.find(',', comma + 1) != std::string_view::npos) {
    return InvalidRange(text);
  }
  TimeRange range;
  ASSIGN_OR_RETURN(range.start_s, ParseSeconds(text.substr(0, comma), text));
  ASSIGN_OR_RETURN(range.end_s, ParseSeconds(text.substr(comma + 1), text));
  if (range.start_s && range.end_s && *range.start_s > *range.end_s) {
    return base::Status::Error("--time %.*s: its start is after its end",
                               static_cast<int>(text.size()), text.data());
  }
  return range;
}

SampleFilter::SampleFilter(const SampleFilterOptions& options, const Timeline& timeline,
                           uint64_t start_ns, const ProcessNames& names)
    : options_(options), names_(names) {
  if (options.time) {
    if (options.time->start_s) first_ns_ = Offset(start_ns, *options.time->start_s);
    if (options.time->end_s) last_ns_ = Offset(start_ns, *options.time->end_s);
  }
  if (options.tasks.empty()) return;
  const std::set<std::string> wanted(options.tasks.begin(), options.tasks.end());
  for (const TimelineThread& thread : timeline.threads) {
    std::vector<std::pair<uint64_t, uint64_t>> spans;
    for (const TimelineSlice& slice : thread.slices) {
      if (slice.kind == trace::IttKind::kFrame || !wanted.contains(timeline.String(slice.name))) {
        continue;
      }
      // Still open: until the end, whenever that is.
      spans.emplace_back(slice.begin_ns, slice.ended ? slice.end_ns : UINT64_MAX);
    }
    if (spans.empty()) continue;
    std::sort(spans.begin(), spans.end());
    std::vector<std::pair<uint64_t, uint64_t>> merged;
    for (const auto& span : spans) {
      if (!merged.empty() && span.first <= merged.back().second) {
        merged.back().second = std::max(merged.back().second, span.second);
      } else {
        merged.push_back(span);
      }
    }
    in_task_[{thread.pid, thread.tid}] = std::move(merged);
  }
}

bool SampleFilter::InTask(const session::Sample& sample) const {
  auto it = in_task_.find({sample.pid, sample.tid});
  if (it == in_task_.end()) return false;
  const auto& spans = it->second;
  // The last span that begins at or before the sample.
  auto after = std::upper_bound(spans.begin(), spans.end(), sample.time_ns,
                                [](uint64_t t, const auto& span) { return t < span.first; });
  if (after == spans.begin()) return false;
  return sample.time_ns < std::prev(after)->second;
}

bool SampleFilter::Wanted(const session::Sample& sample) const {
  if (sample.time_ns < first_ns_ || sample.time_ns >= last_ns_) return false;
  auto one_of = [](const auto& values, const auto& value) {
    return values.empty() || std::find(values.begin(), values.end(), value) != values.end();
  };
  if (!one_of(options_.pids, sample.pid) || !one_of(options_.tids, sample.tid)) return false;
  if (!options_.comms.empty() &&
      !one_of(options_.comms, names_.ThreadNameAt(sample.pid, sample.tid, sample.time_ns)) &&
      !one_of(options_.comms, names_.NameAt(sample.pid, sample.time_ns))) {
    return false;
  }
  return options_.tasks.empty() || InTask(sample);
}

}  // namespace jitscope::report
