// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The timeline of a recording: what each thread was doing when. Where the Profile (profile.h)
// says where the CPU went, the Timeline says when: the ITT API's tasks, regions and frames as
// slices, its markers and the JIT engine's code events as instants, its counters as series of
// values, each sample at its time, and (record --switch-events) when each thread was off the CPU.
// One structure for every writer that draws time:
// `report --format chrome-trace` (chrome_trace_writer.h) and the HTML report. docs/timeline.md
// describes it for their authors.
//
// It is built (timeline_builder.h) from the recording's samples and the native traces of its
// processes (docs/trace-format.md), and from the jitdumps' code events; the report's filters
// (--time, --task, --tid, --comm) read it to choose samples. Strings are interned
// (Timeline::strings, index 0 is ""); stacks are the Profile's (Profile::stacks), so a sample's
// frames are named once for both.
//
// Times are CLOCK_MONOTONIC nanoseconds, the clock of the samples and of every JIT file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "jitscope/session/perf_record.h"
#include "jitscope/trace/format.h"

namespace jitscope::report {

// An index into Timeline::strings.
using StringId = uint32_t;
inline constexpr StringId kNoString = 0;

// An ITT task, overlapped task, region or frame: from its begin to its end on the thread that
// began it. What the trace's records mean is decided here (timeline_builder.h): a task's end ends
// the thread's innermost open task, whatever its domain; an overlapped task's, a region's or a
// frame's end ends the latest open one of its domain and id.
struct TimelineSlice {
  uint64_t begin_ns = 0;
  uint64_t end_ns = 0;
  StringId name = kNoString;    // "[unnamed]" for a task begun without a name handle
  StringId domain = kNoString;  // the ITT domain's name
  trace::IttKind kind = trace::IttKind::kTask;
  // Nesting depth among the thread's tasks (kind kTask), 0 for the outermost; overlapped tasks,
  // regions and frames have their own lanes (depth 0), since they need not nest.
  uint32_t depth = 0;
  trace::IttId id{};
  trace::IttId parent{};
  // The name of the parent id, when a task group (TBB's) or a slice of the thread named it.
  StringId parent_name = kNoString;
  // False when the recording ended (or the thread exited) with it open: end_ns is then when the
  // thread was last seen.
  bool ended = true;
};

enum class InstantKind : uint8_t {
  kMarker,         // __itt_marker
  kJitLoad,        // code loaded: a method's first version
  kJitNewVersion,  // code loaded for a method that had code before: a tier-up or a recompile
  kJitUpdate,      // METHOD_UPDATE(_V2): code changed where it is
  kJitUnload,      // METHOD_UNLOAD_START, op_unload_native_code
  kJitMove,        // a jitdump's CODE_MOVE: code moved to another address
};
const char* InstantKindName(InstantKind kind);

struct TimelineInstant {
  uint64_t time_ns = 0;
  InstantKind kind = InstantKind::kMarker;
  StringId name = kNoString;    // the marker's or the method's name
  StringId domain = kNoString;  // markers: the ITT domain; JIT events: the module, if any
  uint64_t address = 0;         // JIT events: the code's address (a move's new address)
  uint64_t size = 0;            // JIT events: its size
  uint32_t method_id = 0;       // Intel API events: the method id
  uint32_t version = 0;         // kJitNewVersion: 2 for the second version of the name, ...
  uint32_t scope = 0;           // markers: the __itt_scope (1 global, 2 track group, 3 track, ...)
};

// An index into Profile::stacks, or none.
inline constexpr uint32_t kNoStack = UINT32_MAX;

// One sample: its thread was on a CPU at `time_ns`, with the call stack Profile::stacks[stack];
// or, off_cpu, it was switched out then (record --off-cpu), under the stack's "[off-cpu: WHY]"
// leaf, for the time of the off-CPU period that began then.
struct TimelineSample {
  uint64_t time_ns = 0;
  uint32_t stack = 0;
  uint64_t weight_ns = 0;  // the time it stands for: the sample period, or the time off the CPU
  bool off_cpu = false;
};

// Why a thread was off the CPU, as a switch record says it (record --switch-events).
enum class OffCpuState : uint8_t {
  kWaiting,    // it gave up the CPU: a sleep, I/O, a lock, a condition
  kPreempted,  // still runnable, the scheduler gave its CPU to another
};
const char* OffCpuStateName(OffCpuState state);  // "waiting", "preempted"

// From the thread's switch out of its CPU to its switch back in (or, if it never came back, the
// end of the recording).
struct OffCpuPeriod {
  uint64_t begin_ns = 0;
  uint64_t end_ns = 0;
  OffCpuState state = OffCpuState::kWaiting;
  // Why it waited, as the off-CPU sample taken at its switch out says (record --off-cpu, whatever
  // the report keeps of the samples); kUnknown without one.
  session::OffCpuReason reason = session::OffCpuReason::kUnknown;
  // That sample's stack, when the report kept it (Profile::stacks, under its "[off-cpu: WHY]"
  // leaf); kNoStack otherwise.
  uint32_t stack = kNoStack;
};
// Why a thread was off the CPU, in a word: "preempted", else the reason its off-CPU sample gives
// ("sleeping", "lock", "I/O", "poll"), else "waiting". Off-CPU stacks' leaves are
// "[off-cpu: WHY]".
const char* OffCpuWhy(OffCpuState state, session::OffCpuReason reason);
inline const char* OffCpuWhy(const OffCpuPeriod& period) {
  return OffCpuWhy(period.state, period.reason);
}

struct TimelineThread {
  uint32_t pid = 0;
  uint32_t tid = 0;
  std::string name;       // its ITT name if it set one, else its last COMM; "" when unknown
  uint64_t first_ns = 0;  // when it was first and last seen (a record, a sample)
  uint64_t last_ns = 0;
  std::vector<TimelineSlice> slices;      // by begin time
  std::vector<TimelineInstant> instants;  // by time
  std::vector<TimelineSample> samples;    // by time, when BuildOptions::timeline_samples
  std::vector<OffCpuPeriod> off_cpu;      // by time; empty without switch records
  uint64_t samples_on_cpu = 0;            // the thread's samples the report kept
  uint64_t cpu_ns = 0;                    // samples_on_cpu × the sample period
  uint64_t waiting_ns = 0;                // the time of its off-CPU periods, by state
  uint64_t preempted_ns = 0;
};

// An ITT counter of one process and every value it took.
struct TimelineCounter {
  uint32_t pid = 0;
  StringId name = kNoString;
  StringId domain = kNoString;  // kNoString: a counter of no domain
  struct Value {
    uint64_t time_ns = 0;
    double value = 0;
  };
  std::vector<Value> values;  // by time
};

// What the ITT calls meant that was not plain: each is defined above, counted here, and said in
// the report's header.
struct TimelineStats {
  uint64_t ends_without_begin = 0;  // an end with nothing of its kind open (on its thread, id)
  uint64_t reused_ids = 0;          // a begin whose domain and id were open already
  uint64_t unended = 0;             // slices open when the thread or the recording ended
  uint64_t unnamed = 0;             // tasks begun without a name handle
  uint64_t unknown_names = 0;       // records naming a string number the trace never gave
  bool operator==(const TimelineStats&) const = default;
};

struct Timeline {
  // The recording, from its start (the session's, or its first record) to its last record.
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  std::vector<std::string> strings = {""};
  std::vector<TimelineThread> threads;  // by pid, then tid
  std::vector<TimelineCounter> counters;
  TimelineStats stats;

  const std::string& String(StringId id) const { return strings[id]; }
  const TimelineThread* FindThread(uint32_t pid, uint32_t tid) const;
};

}  // namespace jitscope::report
