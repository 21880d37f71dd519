// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/report/timeline_builder.h"

#include <algorithm>
#include <bit>
#include <variant>

#include <fmt/format.h>

#include "jitscope/report/off_cpu_periods.h"
#include "jitscope/report/process_names.h"

namespace jitscope::report {

const char* InstantKindName(InstantKind kind) {
  switch (kind) {
    case InstantKind::kMarker:
      return "marker";
    case InstantKind::kJitLoad:
      return "load";
    case InstantKind::kJitNewVersion:
      return "new version";
    case InstantKind::kJitUpdate:
      return "update";
    case InstantKind::kJitUnload:
      return "unload";
    case InstantKind::kJitMove:
      return "move";
  }
  return "event";
}

const char* OffCpuStateName(OffCpuState state) {
  switch (state) {
    case OffCpuState::kWaiting:
      return "waiting";
    case OffCpuState::kPreempted:
      return "preempted";
  }
  return "waiting";
}

const char* OffCpuWhy(OffCpuState state, session::OffCpuReason reason) {
  if (state == OffCpuState::kPreempted) return "preempted";
  switch (reason) {
    case session::OffCpuReason::kSleep:
      return "sleeping";
    case session::OffCpuReason::kLock:
      return "lock";
    case session::OffCpuReason::kIo:
      return "I/O";
    case session::OffCpuReason::kPoll:
      return "poll";
    case session::OffCpuReason::kUnknown:
      break;
  }
  return "waiting";
}

const TimelineThread* Timeline::FindThread(uint32_t pid, uint32_t tid) const {
  auto it = std::lower_bound(threads.begin(), threads.end(), std::pair{pid, tid},
                             [](const TimelineThread& t, std::pair<uint32_t, uint32_t> key) {
                               return std::pair{t.pid, t.tid} < key;
                             });
  return it != threads.end() && it->pid == pid && it->tid == tid ? &*it : nullptr;
}

namespace {

// A method's name without V8's tier mark ("JS:*f" → "JS:f"): its versions share a name.
std::string_view WithoutTier(std::string_view name) {
  if (name.size() > 3 && name.starts_with("JS:") &&
      std::string_view("~*^+").find(name[3]) != std::string_view::npos) {
    return name.substr(4);
  }
  return name;
}

// A counter's value as a number, by its type (trace/format.h, IttCounterValueRecord).
double CounterValue(int type, uint64_t value) {
  switch (type) {
    case 2:  // s64
    case 4:  // s32
    case 6:  // s16 (stored sign-extended)
      return static_cast<double>(static_cast<int64_t>(value));
    case 7:  // float
    case 8:  // double
      return std::bit_cast<double>(value);
    default:
      return static_cast<double>(value);
  }
}

bool IsTopLevelLoad(uint32_t api_event) {
  return api_event == trace::kEventMethodLoadFinished ||
         api_event == trace::kEventMethodLoadFinishedV2 ||
         api_event == trace::kEventMethodLoadFinishedV3;
}

}  // namespace

StringId TimelineBuilder::Intern(std::string_view text) {
  auto [it, inserted] = string_ids_.try_emplace(std::string(text), 0);
  if (inserted) {
    it->second = static_cast<StringId>(timeline_.strings.size());
    timeline_.strings.emplace_back(text);
  }
  return it->second;
}

StringId TimelineBuilder::Resolve(ProcessState& state, uint32_t number) {
  if (number == 0) return kNoString;
  auto it = state.strings.find(number);
  if (it != state.strings.end()) return it->second;
  ++timeline_.stats.unknown_names;
  return Intern(fmt::format("[string {}]", number));
}

TimelineThread& TimelineBuilder::Thread(uint32_t pid, uint32_t tid) {
  auto [it, inserted] = thread_index_.try_emplace({pid, tid}, timeline_.threads.size());
  if (inserted) {
    TimelineThread& thread = timeline_.threads.emplace_back();
    thread.pid = pid;
    thread.tid = tid;
    thread.first_ns = UINT64_MAX;
  }
  return timeline_.threads[it->second];
}

void TimelineBuilder::Seen(TimelineThread& thread, uint64_t time_ns) {
  thread.first_ns = std::min(thread.first_ns, time_ns);
  thread.last_ns = std::max(thread.last_ns, time_ns);
}

void TimelineBuilder::AddProcess(uint32_t pid, std::span<const trace::Record> records,
                                 std::span<const formats::JitdumpRecord* const> jitdump_records) {
  AddProcessFrom(
      pid,
      [records](const trace::RecordVisitor& visit) {
        for (const trace::Record& record : records) visit(record);
      },
      jitdump_records);
}

void TimelineBuilder::AddProcessFrom(
    uint32_t pid, const trace::RecordWalk& records,
    std::span<const formats::JitdumpRecord* const> jitdump_records) {
  ProcessState state;
  records([&](const trace::Record& record) {
    if (trace::IsIttEvent(record.event)) {
      AddIttRecord(pid, state, record);
    } else if (!record.snapshot) {
      // A chain's repeats describe code loaded earlier, not events of their time.
      AddJitRecord(pid, state, record);
    }
  });
  std::map<uint64_t, StringId> jitdump_names;  // code_index → name
  for (const formats::JitdumpRecord* record : jitdump_records) {
    if (!jit_events_) {
      Seen(Thread(pid, record->tid), record->timestamp);
      continue;
    }
    if (record->kind == formats::JitdumpRecordKind::kCodeLoad) {
      jitdump_names[record->code_index] = Intern(record->name);
      AddLoad(pid, record->tid, record->timestamp, state, record->name, kNoString, 0,
              record->code_addr, record->code_size);
      continue;
    }
    TimelineThread& thread = Thread(pid, record->tid);
    Seen(thread, record->timestamp);
    auto name = jitdump_names.find(record->code_index);
    thread.instants.push_back(
        TimelineInstant{.time_ns = record->timestamp,
                        .kind = InstantKind::kJitMove,
                        .name = name == jitdump_names.end() ? Intern("[moved code]") : name->second,
                        .domain = kNoString,
                        .address = record->code_addr,
                        .size = record->code_size,
                        .method_id = 0,
                        .version = 0});
  }
}

void TimelineBuilder::AddIttRecord(uint32_t pid, ProcessState& state, const trace::Record& record) {
  if (const auto* s = std::get_if<trace::IttStringEvent>(&record.event)) {
    state.strings[s->string] = Intern(s->text);
    return;
  }
  if (const auto* c = std::get_if<trace::IttCounterEvent>(&record.event)) {
    if (state.counter_index.contains(c->counter)) return;  // a chain's repeat
    state.counter_index[c->counter] = timeline_.counters.size();
    state.counter_types[c->counter] = static_cast<int>(c->type);
    timeline_.counters.push_back(
        TimelineCounter{pid, Resolve(state, c->name), Resolve(state, c->domain), {}});
    return;
  }
  if (const auto* n = std::get_if<trace::IttThreadNameEvent>(&record.event)) {
    TimelineThread& named = Thread(pid, n->tid);
    if (!record.snapshot) Seen(named, record.timestamp);
    itt_names_[thread_index_.at({pid, n->tid})] = Intern(n->name);
    return;
  }
  if (record.snapshot) return;  // history is not repeated; names and counters are
  TimelineThread& thread = Thread(pid, record.tid);
  Seen(thread, record.timestamp);
  if (const auto* b = std::get_if<trace::IttBeginEvent>(&record.event)) {
    Begin(pid, state, record, *b);
  } else if (const auto* e = std::get_if<trace::IttEndEvent>(&record.event)) {
    End(pid, state, record, *e);
  } else if (const auto* m = std::get_if<trace::IttMarkerEvent>(&record.event)) {
    thread.instants.push_back(
        TimelineInstant{.time_ns = record.timestamp,
                        .kind = InstantKind::kMarker,
                        .name = m->name == 0 ? Intern("[unnamed]") : Resolve(state, m->name),
                        .domain = Resolve(state, m->domain),
                        .address = 0,
                        .size = 0,
                        .method_id = 0,
                        .version = 0,
                        .scope = m->scope});
  } else if (const auto* v = std::get_if<trace::IttCounterValueEvent>(&record.event)) {
    auto index = state.counter_index.find(v->counter);
    if (index == state.counter_index.end()) {
      ++timeline_.stats.unknown_names;
      return;
    }
    timeline_.counters[index->second].values.push_back(
        {record.timestamp, CounterValue(state.counter_types[v->counter], v->value)});
  }
}

void TimelineBuilder::Begin(uint32_t pid, ProcessState& state, const trace::Record& record,
                            const trace::IttBeginEvent& begin) {
  StringId name = Resolve(state, begin.name);
  if (begin.name == 0 && begin.function != 0) {
    name = Intern(fmt::format("[function {:#x}]", begin.function));
  } else if (begin.name == 0 && begin.kind != trace::IttKind::kFrame) {
    name = Intern("[unnamed]");
    ++timeline_.stats.unnamed;
  }
  const StringId domain = Resolve(state, begin.domain);
  if (begin.kind == trace::IttKind::kTaskGroup) {
    state.group_names[{begin.id.d1, begin.id.d2}] = name;
    return;
  }
  if (begin.kind == trace::IttKind::kFrame && begin.name == 0) name = domain;
  const size_t thread = thread_index_.at({pid, record.tid});
  TimelineSlice slice{.begin_ns = record.timestamp,
                      .end_ns = record.timestamp,
                      .name = name,
                      .domain = domain,
                      .kind = begin.kind,
                      .depth = 0,
                      .id = begin.id,
                      .parent = begin.parent,
                      .parent_name = kNoString,
                      .ended = false};
  if (begin.parent.d1 != 0 || begin.parent.d2 != 0) {
    if (auto group = state.group_names.find({begin.parent.d1, begin.parent.d2});
        group != state.group_names.end()) {
      slice.parent_name = group->second;
    }
  }
  std::vector<TimelineSlice>& slices = timeline_.threads[thread].slices;
  if (begin.kind == trace::IttKind::kTask) {
    std::vector<size_t>& open = open_tasks_[thread];
    slice.depth = static_cast<uint32_t>(open.size());
    if (slice.parent_name == kNoString && (begin.parent.d1 != 0 || begin.parent.d2 != 0)) {
      // The parent named by an id of an open task of the thread.
      for (auto it = open.rbegin(); it != open.rend(); ++it) {
        const TimelineSlice& outer = slices[*it];
        if (outer.id.d1 == begin.parent.d1 && outer.id.d2 == begin.parent.d2) {
          slice.parent_name = outer.name;
          break;
        }
      }
    }
    open.push_back(slices.size());
  } else {
    std::vector<OpenSlice>& open = state.open_by_id[{begin.kind, domain, begin.id.d1, begin.id.d2}];
    if (!open.empty()) ++timeline_.stats.reused_ids;
    open.push_back({thread, slices.size()});
  }
  slices.push_back(slice);
}

void TimelineBuilder::End(uint32_t pid, ProcessState& state, const trace::Record& record,
                          const trace::IttEndEvent& end) {
  if (end.kind == trace::IttKind::kTask) {
    const size_t thread = thread_index_.at({pid, record.tid});
    std::vector<size_t>& open = open_tasks_[thread];
    if (open.empty()) {
      ++timeline_.stats.ends_without_begin;
      return;
    }
    TimelineSlice& slice = timeline_.threads[thread].slices[open.back()];
    open.pop_back();
    slice.end_ns = record.timestamp;
    slice.ended = true;
    return;
  }
  auto it = state.open_by_id.find({end.kind, Resolve(state, end.domain), end.id.d1, end.id.d2});
  if (it == state.open_by_id.end() || it->second.empty()) {
    ++timeline_.stats.ends_without_begin;
    return;
  }
  const OpenSlice open = it->second.back();
  it->second.pop_back();
  TimelineSlice& slice = timeline_.threads[open.thread].slices[open.slice];
  slice.end_ns = record.timestamp;
  slice.ended = true;
}

void TimelineBuilder::AddLoad(uint32_t pid, uint32_t tid, uint64_t time, ProcessState& state,
                              std::string_view name, StringId module, uint32_t method_id,
                              uint64_t address, uint64_t size) {
  TimelineThread& thread = Thread(pid, tid);
  Seen(thread, time);
  ProcessState::Loaded& loaded = state.loaded[std::string(WithoutTier(name))];
  // Another region of a method loaded under the same id (a split function) is no new version:
  // it is an event of the version the id is.
  auto known = std::find_if(loaded.ids.begin(), loaded.ids.end(),
                            [method_id](const auto& id) { return id.first == method_id; });
  uint32_t version = 0;
  if (method_id != 0 && known != loaded.ids.end()) {
    version = known->second;
  } else {
    version = ++loaded.versions;
    if (method_id != 0) loaded.ids.emplace_back(method_id, version);
  }
  thread.instants.push_back(
      TimelineInstant{.time_ns = time,
                      .kind = version > 1 ? InstantKind::kJitNewVersion : InstantKind::kJitLoad,
                      .name = Intern(name),
                      .domain = module,
                      .address = address,
                      .size = size,
                      .method_id = method_id,
                      .version = version});
}

void TimelineBuilder::AddJitRecord(uint32_t pid, ProcessState& state, const trace::Record& record) {
  if (!jit_events_) {
    // The records below that make an instant, each on its thread.
    const auto* code = std::get_if<trace::CodeEvent>(&record.event);
    const bool event =
        code != nullptr
            ? IsTopLevelLoad(code->api_event) || code->api_event == trace::kEventMethodUpdate
            : std::holds_alternative<trace::RangeUpdateEvent>(record.event) ||
                  std::holds_alternative<trace::UnloadEvent>(record.event) ||
                  std::holds_alternative<trace::OprofileCodeLoadEvent>(record.event) ||
                  std::holds_alternative<trace::OprofileUnloadEvent>(record.event);
    if (event) Seen(Thread(pid, record.tid), record.timestamp);
    return;
  }
  if (const auto* code = std::get_if<trace::CodeEvent>(&record.event)) {
    const std::string_view name = code->name.value_or("");
    const StringId module = code->module ? Intern(*code->module) : kNoString;
    if (IsTopLevelLoad(code->api_event)) {
      auto [known, first] = state.method_names.try_emplace(code->method_id, Intern(name), module);
      // First symbolic information wins (seed 000): later regions of the id keep its name.
      const std::string_view shown =
          first ? name : std::string_view(timeline_.strings[known->second.first]);
      AddLoad(pid, record.tid, record.timestamp, state, shown, known->second.second,
              code->method_id, code->address, code->size);
    } else if (code->api_event == trace::kEventMethodUpdate) {
      TimelineThread& thread = Thread(pid, record.tid);
      Seen(thread, record.timestamp);
      auto known = state.method_names.find(code->method_id);
      thread.instants.push_back(TimelineInstant{
          .time_ns = record.timestamp,
          .kind = InstantKind::kJitUpdate,
          .name = known != state.method_names.end() ? known->second.first : Intern(name),
          .domain = module,
          .address = code->address,
          .size = code->size,
          .method_id = code->method_id,
          .version = 0});
    }
    return;
  }
  if (const auto* update = std::get_if<trace::RangeUpdateEvent>(&record.event)) {
    TimelineThread& thread = Thread(pid, record.tid);
    Seen(thread, record.timestamp);
    thread.instants.push_back(TimelineInstant{.time_ns = record.timestamp,
                                              .kind = InstantKind::kJitUpdate,
                                              .name = Intern("[code range]"),
                                              .domain = kNoString,
                                              .address = update->address,
                                              .size = update->size,
                                              .method_id = 0,
                                              .version = 0});
    return;
  }
  if (const auto* unload = std::get_if<trace::UnloadEvent>(&record.event)) {
    TimelineThread& thread = Thread(pid, record.tid);
    Seen(thread, record.timestamp);
    auto known = state.method_names.find(unload->method_id);
    const bool named = known != state.method_names.end();
    thread.instants.push_back(TimelineInstant{
        .time_ns = record.timestamp,
        .kind = InstantKind::kJitUnload,
        .name = named ? known->second.first : Intern(fmt::format("[method {}]", unload->method_id)),
        .domain = named ? known->second.second : kNoString,
        .address = 0,
        .size = 0,
        .method_id = unload->method_id,
        .version = 0});
    if (named) {
      // Loaded again after this, the id is a new version of the name.
      auto& ids =
          state.loaded[std::string(WithoutTier(timeline_.strings[known->second.first]))].ids;
      std::erase_if(ids, [unload](const auto& id) { return id.first == unload->method_id; });
      state.method_names.erase(known);
    }
    return;
  }
  if (const auto* load = std::get_if<trace::OprofileCodeLoadEvent>(&record.event)) {
    state.oprofile_at[{load->address, load->size}] = {Intern(load->name), 0};
    AddLoad(pid, record.tid, record.timestamp, state, load->name, kNoString, 0, load->address,
            load->size);
    return;
  }
  if (const auto* unload = std::get_if<trace::OprofileUnloadEvent>(&record.event)) {
    TimelineThread& thread = Thread(pid, record.tid);
    Seen(thread, record.timestamp);
    auto known = state.oprofile_at.find({unload->address, unload->size});
    thread.instants.push_back(TimelineInstant{
        .time_ns = record.timestamp,
        .kind = InstantKind::kJitUnload,
        .name = known != state.oprofile_at.end() ? known->second.first : Intern("[code]"),
        .domain = kNoString,
        .address = unload->address,
        .size = unload->size,
        .method_id = 0,
        .version = 0});
  }
}

void TimelineBuilder::AddSwitches(std::span<const session::Switch> switches) {
  for (const session::Switch& change : switches)
    Seen(Thread(change.pid, change.tid), change.time_ns);
  switches_ = switches;
}

void TimelineBuilder::AddSample(const session::Sample& sample, uint32_t stack, uint64_t weight_ns,
                                bool keep) {
  TimelineThread& thread = Thread(sample.pid, sample.tid);
  Seen(thread, sample.time_ns);
  ++thread.samples_on_cpu;
  thread.cpu_ns += weight_ns;
  if (keep) thread.samples.push_back({sample.time_ns, stack, weight_ns});
}

void TimelineBuilder::AddOffCpuReason(const session::Sample& sample) {
  off_cpu_notes_[{sample.pid, sample.tid}].push_back({sample.time_ns, sample.off_cpu_reason});
}

void TimelineBuilder::AddOffCpuSample(const session::Sample& sample, uint32_t stack,
                                      uint64_t weight_ns, bool keep) {
  off_cpu_notes_[{sample.pid, sample.tid}].back().stack = stack;
  TimelineThread& thread = Thread(sample.pid, sample.tid);
  Seen(thread, sample.time_ns);
  if (keep) thread.samples.push_back({sample.time_ns, stack, weight_ns, true});
}

Timeline TimelineBuilder::Finish(const std::vector<session::Comm>& comms,
                                 const std::vector<session::Task>& tasks,
                                 std::span<const uint32_t> new_index) && {
  // A thread is last seen when it exits, if the recording saw that.
  for (const session::Task& task : tasks) {
    if (!task.exit) continue;
    auto it = thread_index_.find({task.pid, task.tid});
    if (it != thread_index_.end()) Seen(timeline_.threads[it->second], task.time_ns);
  }
  uint64_t first = UINT64_MAX, last = 0;
  for (const TimelineThread& thread : timeline_.threads) {
    if (thread.first_ns == UINT64_MAX) continue;
    first = std::min(first, thread.first_ns);
    last = std::max(last, thread.last_ns);
  }
  if (timeline_.start_ns == 0 && first != UINT64_MAX) timeline_.start_ns = first;
  const uint64_t start = timeline_.start_ns;
  timeline_.end_ns = std::max(last, start);
  const auto renumbered = [&new_index](uint32_t stack) {
    return stack < new_index.size() ? new_index[stack] : stack;
  };
  for (auto& [thread, periods] : OffCpuPeriodsOf(switches_, tasks, timeline_.end_ns)) {
    // Each off-CPU sample says why the period it begins was spent off the CPU.
    for (const OffCpuNote& note : off_cpu_notes_[thread]) {
      const OffCpuPeriod* found = PeriodOfOffCpuSample(periods, note.time_ns);
      if (found == nullptr) continue;
      OffCpuPeriod& period = periods[found - periods.data()];
      period.reason = note.reason;
      if (note.stack != kNoStack) period.stack = renumbered(note.stack);
    }
    timeline_.threads[thread_index_.at(thread)].off_cpu = std::move(periods);
  }
  for (TimelineThread& thread : timeline_.threads) {
    if (thread.first_ns == UINT64_MAX) thread.first_ns = thread.last_ns = start;
    thread.first_ns = std::max(thread.first_ns, start);
    thread.last_ns = std::max(thread.last_ns, start);
    // What is still open ends when its thread was last seen.
    for (TimelineSlice& slice : thread.slices) {
      if (slice.ended) continue;
      slice.end_ns = std::max(slice.begin_ns, thread.last_ns);
      ++timeline_.stats.unended;
    }
    // What happened before the recording began is not on its timeline; what was under way then
    // is, from then.
    std::erase_if(thread.slices, [start](const TimelineSlice& s) { return s.end_ns < start; });
    for (TimelineSlice& slice : thread.slices) slice.begin_ns = std::max(slice.begin_ns, start);
    std::erase_if(thread.instants, [start](const TimelineInstant& i) { return i.time_ns < start; });
    std::erase_if(thread.off_cpu, [start](const OffCpuPeriod& p) { return p.end_ns <= start; });
    for (OffCpuPeriod& period : thread.off_cpu) {
      period.begin_ns = std::max(period.begin_ns, start);
      (period.state == OffCpuState::kPreempted ? thread.preempted_ns : thread.waiting_ns) +=
          period.end_ns - period.begin_ns;
    }
  }
  for (TimelineCounter& counter : timeline_.counters) {
    auto& values = counter.values;
    std::stable_sort(values.begin(), values.end(),
                     [](const TimelineCounter::Value& a, const TimelineCounter::Value& b) {
                       return a.time_ns < b.time_ns;
                     });
    // The value it had when the recording began, then its changes.
    auto first_inside = std::find_if(values.begin(), values.end(),
                                     [start](const auto& v) { return v.time_ns >= start; });
    if (first_inside != values.begin()) {
      std::prev(first_inside)->time_ns = start;
      values.erase(values.begin(), std::prev(first_inside));
    }
  }
  const ProcessNames names(comms, tasks);
  for (size_t i = 0; i < timeline_.threads.size(); ++i) {
    TimelineThread& thread = timeline_.threads[i];
    auto itt = itt_names_.find(i);
    thread.name = itt != itt_names_.end()
                      ? timeline_.strings[itt->second]
                      : names.ThreadNameAt(thread.pid, thread.tid, thread.last_ns);
    for (TimelineSample& sample : thread.samples) sample.stack = renumbered(sample.stack);
    auto by_time = [](const auto& a, const auto& b) { return a.time_ns < b.time_ns; };
    std::stable_sort(thread.instants.begin(), thread.instants.end(), by_time);
    std::stable_sort(thread.samples.begin(), thread.samples.end(), by_time);
  }
  std::sort(timeline_.threads.begin(), timeline_.threads.end(),
            [](const TimelineThread& a, const TimelineThread& b) {
              return std::pair{a.pid, a.tid} < std::pair{b.pid, b.tid};
            });
  return std::move(timeline_);
}

TimelineBuilder StartTimeline(const walk::Recording& recording, const symbolize::SourceSet& sources,
                              bool jit_events) {
  TimelineBuilder timeline(recording.start_time_ns, jit_events);
  timeline.AddSwitches(recording.data.switches);
  std::set<uint32_t> pids = sources.pids();
  pids.insert(recording.data.samples.pids().begin(), recording.data.samples.pids().end());
  for (const uint32_t pid : pids) {
    // The records are walked, not gathered: a trace of a million methods held ~370 MB of them.
    timeline.AddProcessFrom(
        pid,
        [&sources, pid](const trace::RecordVisitor& visit) {
          sources.ForEachTraceRecord(pid, visit);
        },
        sources.JitdumpRecords(pid));
  }
  return timeline;
}

uint64_t RecordingStart(const walk::Recording& recording, const TimelineBuilder& timeline) {
  if (recording.start_time_ns != 0) return recording.start_time_ns;
  uint64_t start = recording.data.samples.empty() ? UINT64_MAX : recording.data.samples.time_ns(0);
  for (const TimelineThread& thread : timeline.timeline().threads) {
    start = std::min(start, thread.first_ns);
  }
  return start == UINT64_MAX ? 0 : start;
}

}  // namespace jitscope::report
