// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Builds a recording's Timeline (timeline.h) from what its processes' JIT files say happened
// when, then takes its samples one by one (profile_builder.cc adds them as it names their
// stacks), and finishes it with the threads' names and ends.
//
// Meaning given to the ITT API's calls as recorded (docs/timeline.md):
//  - a task's end ends its thread's innermost open task; with none open it ends nothing and is
//    counted (ends_without_begin);
//  - an overlapped task's, a region's or a frame's end ends the latest one open of its kind,
//    domain and id, on any thread; a begin whose kind, domain and id are open already opens
//    another (reused_ids), and the ends close them latest first;
//  - what is still open when its thread exits, or the recording ends, ends then, marked not
//    ended (unended); a task without a name handle is "[unnamed]" (unnamed), one of
//    __itt_task_begin_fn is named by its function's address;
//  - a task group (TBB's) opens nothing: it names its id, and a slice whose parent is that id
//    says so (TimelineSlice::parent_name).
// The JIT engine's events are instants on the thread that reported them: the first load of a
// method, a new version of it (a load of a name loaded before under another method id, or again
// after it was unloaded: V8's tiers "JS:~f", "JS:^f", "JS:+f", "JS:*f" are one name), updates,
// unloads, and a jitdump's moves. Inline loads are not events of their own.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "jitscope/formats/jitdump_reader.h"
#include "jitscope/report/timeline.h"
#include "jitscope/session/perf_record.h"
#include "jitscope/symbolize/source_set.h"
#include "jitscope/trace/event.h"
#include "jitscope/trace/record_stream.h"
#include "jitscope/walk/recording.h"

namespace jitscope::report {

class TimelineBuilder {
 public:
  // `start_ns`: when the recording began (session.json's start), 0 when unknown: its first record
  // then. Without `jit_events`, the JIT engine's events only tell when their threads were seen:
  // they are kept as instants for the formats that draw them, and a million methods' loads cost
  // ~300 bytes each (the instants, the names and each name's versions).
  explicit TimelineBuilder(uint64_t start_ns, bool jit_events = true) : jit_events_(jit_events) {
    timeline_.start_ns = start_ns;
  }
  // The recording's start, once known. What the JIT files say happened before it (the traces of
  // processes record -p attached to began before the recording) is left out of the timeline.
  void SetStart(uint64_t start_ns) { timeline_.start_ns = start_ns; }

  // The events of process `pid`'s native traces (all its files' records, in time order) and of
  // its jitdumps.
  void AddProcess(uint32_t pid, std::span<const trace::Record> records,
                  std::span<const formats::JitdumpRecord* const> jitdump_records);
  // The same, the records walked rather than held.
  void AddProcessFrom(uint32_t pid, const trace::RecordWalk& records,
                      std::span<const formats::JitdumpRecord* const> jitdump_records);

  // The recording's switch records (record --switch-events), in time order, which must outlive
  // the builder: each thread's periods off the CPU (off_cpu_periods.h).
  void AddSwitches(std::span<const session::Switch> switches);

  // A sample the report keeps, with its stack's index among the stacks built so far.
  void AddSample(const session::Sample& sample, uint32_t stack, uint64_t weight_ns, bool keep);
  // Each off-CPU sample of the recording (record --off-cpu), whatever the report keeps of them:
  // why its thread stopped, for the period off the CPU it begins (OffCpuPeriod::reason).
  void AddOffCpuReason(const session::Sample& sample);
  // The off-CPU sample AddOffCpuReason was given last, kept by the report with its stack's index
  // among the stacks built so far and the time it stands for (its period's): the period's stack,
  // and with `keep` a sample of its thread.
  void AddOffCpuSample(const session::Sample& sample, uint32_t stack, uint64_t weight_ns,
                       bool keep);

  // Ends what is open, names the threads from the recording's COMM, FORK and EXIT records (in
  // time order) where the ITT API named none, and renumbers the samples' and the off-CPU
  // periods' stacks by `new_index` (the Profile's stacks sorted: new_index[old] is where stack
  // `old` went, kNoStack if it was left out).
  Timeline Finish(const std::vector<session::Comm>& comms, const std::vector<session::Task>& tasks,
                  std::span<const uint32_t> new_index) &&;

  // While building: the thread, made on first sight.
  TimelineThread& Thread(uint32_t pid, uint32_t tid);
  const Timeline& timeline() const { return timeline_; }

 private:
  struct OpenSlice {
    size_t thread;  // index into timeline_.threads
    size_t slice;   // index into its slices
  };
  // What one process's records refer to, while they are read.
  struct ProcessState {
    std::unordered_map<uint32_t, StringId> strings;  // the trace's string number → ours
    std::map<uint32_t, std::pair<StringId, StringId>> counters;  // number → (name, domain)
    std::map<uint32_t, size_t> counter_index;                    // number → timeline_.counters
    std::map<uint32_t, int> counter_types;
    // Open overlapped tasks, regions and frames, by (kind, domain, id), latest last.
    std::map<std::tuple<trace::IttKind, StringId, uint64_t, uint64_t>, std::vector<OpenSlice>>
        open_by_id;
    std::map<std::pair<uint64_t, uint64_t>, StringId> group_names;  // task groups by id
    // Names loaded, by the name without V8's tier mark: the method ids seen with the version each
    // is (id 0: a jitdump's or OProfile's load, which has none, each a version of its own), and
    // how many versions.
    struct Loaded {
      std::vector<std::pair<uint32_t, uint32_t>> ids;
      uint32_t versions = 0;
    };
    std::unordered_map<std::string, Loaded> loaded;
    std::unordered_map<uint32_t, std::pair<StringId, StringId>> method_names;  // id → name, module
    std::map<std::pair<uint64_t, uint64_t>, std::pair<StringId, uint32_t>> oprofile_at;
  };

  StringId Intern(std::string_view text);
  StringId Resolve(ProcessState& state, uint32_t number);
  void Seen(TimelineThread& thread, uint64_t time_ns);
  void AddIttRecord(uint32_t pid, ProcessState& state, const trace::Record& record);
  void AddJitRecord(uint32_t pid, ProcessState& state, const trace::Record& record);
  void AddLoad(uint32_t pid, uint32_t tid, uint64_t time, ProcessState& state,
               std::string_view name, StringId module, uint32_t method_id, uint64_t address,
               uint64_t size);
  void Begin(uint32_t pid, ProcessState& state, const trace::Record& record,
             const trace::IttBeginEvent& begin);
  void End(uint32_t pid, ProcessState& state, const trace::Record& record,
           const trace::IttEndEvent& end);

  bool jit_events_;
  Timeline timeline_;
  std::unordered_map<std::string, StringId> string_ids_;
  std::map<std::pair<uint32_t, uint32_t>, size_t> thread_index_;  // (pid, tid) → threads
  // Each thread's open tasks (kind kTask), innermost last.
  std::map<size_t, std::vector<size_t>> open_tasks_;
  std::map<size_t, StringId> itt_names_;  // the name a thread gave itself
  // The recording's switch records (AddSwitches), which outlive the builder.
  std::span<const session::Switch> switches_;
  // The off-CPU samples' reasons and kept stacks (AddOffCpuReason), by thread, in time order.
  struct OffCpuNote {
    uint64_t time_ns = 0;
    session::OffCpuReason reason = session::OffCpuReason::kUnknown;
    uint32_t stack = kNoStack;
  };
  std::map<std::pair<uint32_t, uint32_t>, std::vector<OffCpuNote>> off_cpu_notes_;
};

// A builder given the events of every process of `recording` that `sources` has JIT files of,
// before the samples: the filters read its ITT tasks (sample_filter.h).
TimelineBuilder StartTimeline(const walk::Recording& recording, const symbolize::SourceSet& sources,
                              bool jit_events = true);

// When the recording began: session.json says, for a session; otherwise its first sample or
// JIT event.
uint64_t RecordingStart(const walk::Recording& recording, const TimelineBuilder& timeline);

}  // namespace jitscope::report
