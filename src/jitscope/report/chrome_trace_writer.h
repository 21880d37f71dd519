// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// `jitscope report --format chrome-trace`: the recording's Timeline (timeline.h) as a Trace Event
// Format JSON file, which Perfetto's UI (ui.perfetto.dev) and chrome://tracing open.
//
// A track per thread (its process and thread named by "M" events): the ITT API's tasks as "X"
// slices, nested as they were; overlapped tasks, regions and frames, which need not nest, as
// async slices ("b"/"e", by domain and id); the periods off the CPU (record --switch-events) as
// "X" slices "[off-cpu: WHY]" (OffCpuWhy: preempted, sleeping, lock, I/O, poll, waiting; a thread
// is switched out inside its tasks, never across a begin or an end, so they nest), whose args
// name the stack of the period's off-CPU sample (record --off-cpu) when the report keeps it;
// markers and the JIT engine's events as instants ("i"); each sample on a CPU as an instant in
// category "sample" whose args name its stack, leaf first; the ITT counters as "C" events of their
// process. The spec's own sample form follows the events: "stackFrames" and "samples" ("cpu-clock"
// samples weighing the sampling period, "off-cpu" ones the time their thread was off the CPU),
// which chrome://tracing shows as call stacks (Perfetto's importer reads the events only).
//
// Times are microseconds from the recording's start, to the nanosecond (three decimals). Each
// event is one line, its keys in a fixed order ("ph", "ts" first), its args without arrays: what
// Perfetto's JSON importer needs, and what makes the file diffable.
#pragma once

#include <string>

#include "jitscope/base/status.h"
#include "jitscope/report/profile.h"

namespace jitscope::report {

base::StatusOr<std::string> RenderChromeTrace(const Profile& profile);

}  // namespace jitscope::report
