// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The ITT API's side of libjitscope-collector.so: __itt_api_init, which a program's ittnotify
// static part calls after it dlopen()ed the library named by INTEL_LIBITTNOTIFY64 (32), and the
// functions it wires into the static part (itt_abi.h has the protocol, itt_static_part.h the
// wiring). Each function has the exact C signature of its ittnotify.h declaration, enters the
// process's collector (process_collector.h) and hands the call to itt::Recorder.
//
// Nothing is wired when the collector cannot record (its configuration failed, or
// JITSCOPE_FORMATS has no trace): the static part's stubs then do nothing, as with no collector.
#include <pthread.h>

#include <atomic>
#include <cstdint>

#include "jitscope/base/clock.h"
#include "jitscope/collector/itt_abi.h"
#include "jitscope/collector/itt_names.h"
#include "jitscope/collector/itt_recorder.h"
#include "jitscope/collector/itt_static_part.h"
#include "jitscope/collector/process_collector.h"

namespace jitscope::collector::itt {
namespace {

// The names of the process: intentionally leaked, the program holds pointers into them until it
// exits.
Names& ProcessNames() {
  static Names* names = new Names();
  return *names;
}

[[maybe_unused]] const bool fork_handlers_registered = [] {
  ProcessNames();  // made now, before any thread can be inside it at a fork()
  ::pthread_atfork([] { ProcessNames().LockForFork(); }, [] { ProcessNames().UnlockAfterFork(); },
                   [] { ProcessNames().UnlockAfterFork(); });
  return true;
}();

// Runs `call` with a Recorder of the process's collector, returning `refused` when the calling
// thread is already inside the collector or there is no collector. Nothing may throw across the
// C ABI: an exception (std::bad_alloc) is a refused call.
template <typename Result, typename Call>
Result Enter(Result refused, Call call) {
  CollectorEntry entry;
  if (!entry.entered()) return refused;
  try {
    Collector* collector = ProcessCollector();
    if (collector == nullptr) return refused;
    Recorder recorder(*collector, ProcessNames());
    return call(recorder);
  } catch (...) {
    return refused;
  }
}

template <typename Call>
void Enter(Call call) {
  Enter(0, [&](Recorder& recorder) {
    call(recorder);
    return 0;
  });
}

// ---- The functions wired into the static part, with ittnotify.h's signatures ----

Domain* DomainCreate(const char* name) {
  return Enter<Domain*>(nullptr, [&](Recorder& r) { return r.DomainCreate(name); });
}

StringHandle* StringHandleCreate(const char* name) {
  return Enter<StringHandle*>(nullptr, [&](Recorder& r) { return r.StringHandleCreate(name); });
}

void ThreadSetName(const char* name) {
  Enter([&](Recorder& r) { r.ThreadSetName(name); });
}

void TaskBegin(const Domain* domain, Id id, Id parent, StringHandle* name) {
  Enter([&](Recorder& r) {
    r.Begin(trace::IttKind::kTask, trace::kCallIttTaskBegin, domain, id, parent, name, 0);
  });
}

void TaskBeginFn(const Domain* domain, Id id, Id parent, void* function) {
  Enter([&](Recorder& r) {
    r.Begin(trace::IttKind::kTask, trace::kCallIttTaskBeginFn, domain, id, parent, nullptr,
            reinterpret_cast<uintptr_t>(function));
  });
}

void TaskEnd(const Domain* domain) {
  Enter([&](Recorder& r) {
    r.End(trace::IttKind::kTask, trace::kCallIttTaskEnd, domain, Id{0, 0, 0});
  });
}

void TaskBeginOverlapped(const Domain* domain, Id id, Id parent, StringHandle* name) {
  Enter([&](Recorder& r) {
    r.Begin(trace::IttKind::kOverlappedTask, trace::kCallIttTaskBeginOverlapped, domain, id, parent,
            name, 0);
  });
}

void TaskEndOverlapped(const Domain* domain, Id id) {
  Enter([&](Recorder& r) {
    r.End(trace::IttKind::kOverlappedTask, trace::kCallIttTaskEndOverlapped, domain, id);
  });
}

void RegionBegin(const Domain* domain, Id id, Id parent, StringHandle* name) {
  Enter([&](Recorder& r) {
    r.Begin(trace::IttKind::kRegion, trace::kCallIttRegionBegin, domain, id, parent, name, 0);
  });
}

void RegionEnd(const Domain* domain, Id id) {
  Enter([&](Recorder& r) { r.End(trace::IttKind::kRegion, trace::kCallIttRegionEnd, domain, id); });
}

void TaskGroup(const Domain* domain, Id id, Id parent, StringHandle* name) {
  Enter([&](Recorder& r) {
    r.Begin(trace::IttKind::kTaskGroup, trace::kCallIttTaskGroup, domain, id, parent, name, 0);
  });
}

void FrameBeginV3(const Domain* domain, Id* id) {
  Enter([&](Recorder& r) { r.FrameBegin(domain, id); });
}

void FrameEndV3(const Domain* domain, Id* id) {
  Enter([&](Recorder& r) { r.FrameEnd(domain, id); });
}

void FrameSubmitV3(const Domain* domain, Id* id, Timestamp begin, Timestamp end) {
  Enter([&](Recorder& r) { r.FrameSubmit(domain, id, begin, end); });
}

// The clock of every record, so frames submitted with its times line up with the rest.
Timestamp GetTimestamp() { return base::MonotonicNowNs(); }

void Marker(const Domain* domain, Id id, StringHandle* name, int scope) {
  Enter([&](Recorder& r) { r.Marker(domain, id, name, scope); });
}

CounterInfo* CounterCreate(const char* name, const char* domain) {
  return Enter<CounterInfo*>(
      nullptr, [&](Recorder& r) { return r.CounterCreate(name, domain, kMetadataU64); });
}

CounterInfo* CounterCreateTyped(const char* name, const char* domain, int type) {
  return Enter<CounterInfo*>(nullptr,
                             [&](Recorder& r) { return r.CounterCreate(name, domain, type); });
}

void CounterInc(CounterInfo* counter) {
  Enter([&](Recorder& r) { r.CounterAdd(counter, 1); });
}

void CounterIncDelta(CounterInfo* counter, unsigned long long delta) {
  Enter([&](Recorder& r) { r.CounterAdd(counter, static_cast<int64_t>(delta)); });
}

void CounterDec(CounterInfo* counter) {
  Enter([&](Recorder& r) { r.CounterAdd(counter, -1); });
}

void CounterDecDelta(CounterInfo* counter, unsigned long long delta) {
  Enter([&](Recorder& r) { r.CounterAdd(counter, -static_cast<int64_t>(delta)); });
}

void CounterIncV3(const Domain* domain, StringHandle* name) {
  Enter([&](Recorder& r) { r.CounterAdd(domain, name, 1); });
}

void CounterIncDeltaV3(const Domain* domain, StringHandle* name, unsigned long long delta) {
  Enter([&](Recorder& r) { r.CounterAdd(domain, name, static_cast<int64_t>(delta)); });
}

void CounterDecV3(const Domain* domain, StringHandle* name) {
  Enter([&](Recorder& r) { r.CounterAdd(domain, name, -1); });
}

void CounterDecDeltaV3(const Domain* domain, StringHandle* name, unsigned long long delta) {
  Enter([&](Recorder& r) { r.CounterAdd(domain, name, -static_cast<int64_t>(delta)); });
}

void CounterSetValue(CounterInfo* counter, void* value) {
  Enter([&](Recorder& r) { r.CounterSet(counter, value); });
}

template <typename Function>
void* Address(Function* function) {
  return reinterpret_cast<void*>(function);
}

// The names are the static part's (its API list's `name`s).
const Implementation kImplementations[] = {
    {"__itt_domain_create", Address(&DomainCreate)},
    {"__itt_string_handle_create", Address(&StringHandleCreate)},
    {"__itt_thread_set_name", Address(&ThreadSetName)},
    {"__itt_task_begin", Address(&TaskBegin)},
    {"__itt_task_begin_fn", Address(&TaskBeginFn)},
    {"__itt_task_end", Address(&TaskEnd)},
    {"__itt_task_begin_overlapped", Address(&TaskBeginOverlapped)},
    {"__itt_task_end_overlapped", Address(&TaskEndOverlapped)},
    {"__itt_region_begin", Address(&RegionBegin)},
    {"__itt_region_end", Address(&RegionEnd)},
    {"__itt_task_group", Address(&TaskGroup)},
    {"__itt_frame_begin_v3", Address(&FrameBeginV3)},
    {"__itt_frame_end_v3", Address(&FrameEndV3)},
    {"__itt_frame_submit_v3", Address(&FrameSubmitV3)},
    {"__itt_get_timestamp", Address(&GetTimestamp)},
    {"__itt_marker", Address(&Marker)},
    {"__itt_counter_create", Address(&CounterCreate)},
    {"__itt_counter_create_typed", Address(&CounterCreateTyped)},
    {"__itt_counter_inc", Address(&CounterInc)},
    {"__itt_counter_inc_delta", Address(&CounterIncDelta)},
    {"__itt_counter_dec", Address(&CounterDec)},
    {"__itt_counter_dec_delta", Address(&CounterDecDelta)},
    {"__itt_counter_inc_v3", Address(&CounterIncV3)},
    {"__itt_counter_inc_delta_v3", Address(&CounterIncDeltaV3)},
    {"__itt_counter_dec_v3", Address(&CounterDecV3)},
    {"__itt_counter_dec_delta_v3", Address(&CounterDecDeltaV3)},
    {"__itt_counter_set_value", Address(&CounterSetValue)},
};

}  // namespace
}  // namespace jitscope::collector::itt

extern "C" {

// Called by a static part, holding its global's mutex, when it has loaded this library.
__attribute__((visibility("default"))) void __itt_api_init(void* global, int init_groups) {
  using namespace jitscope::collector;
  (void)init_groups;  // every function is wired (itt_static_part.h says why)
  CollectorEntry entry;
  if (!entry.entered()) return;
  try {
    Collector* collector = ProcessCollector();
    if (collector == nullptr) return;  // why was logged when it failed
    // Said once: a process may carry several static parts (libtbb and libtbbmalloc each one).
    static std::atomic<bool> said = false;
    if (!collector->keeps_timeline()) {
      if (!said.exchange(true)) {
        collector->log().Printf(
            "the ITT API's calls are not recorded: JITSCOPE_FORMATS has no trace");
      }
      return;
    }
    auto wired = itt::WireStaticPart(static_cast<itt::Global*>(global), itt::kImplementations);
    if (!wired.ok()) {
      // Each static part that is refused is said: another may have been wired.
      collector->log().Printf("the ITT API's calls of one ittnotify copy are not recorded: %s",
                              wired.status().message().c_str());
    }
  } catch (...) {  // nothing may throw across the C ABI
  }
}

}  // extern "C"
