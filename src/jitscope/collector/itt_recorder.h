// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The ITT API's calls, recorded: each turns one call into the trace's record of it (format.h,
// kIttString … kIttCounterValue), stamped with CLOCK_MONOTONIC and the calling thread.
//
// What is refused, counted and recorded as a `rejected` record (the caller sees what the API's
// failure value is, NULL or nothing): a NULL domain (__itt_task_begin and the others whose
// header macro would never pass one), a NULL name to a creation or to __itt_thread_set_name, a
// NULL counter, a name past the collector's limit (itt_names.h). Everything else is recorded as
// called: a task without a name handle, an end without a begin, an id begun twice; what such a
// sequence means is decided, and counted, where the trace is read (report/timeline.h), so the
// host pays for no bookkeeping per task.
//
// Threading: any thread, concurrently. A begin or an end takes no lock and makes no syscall (the
// trace sink's own common path: trace_sink.h); creating a name takes the names' lock.
#pragma once

#include <cstdint>

#include "jitscope/collector/collector.h"
#include "jitscope/collector/itt_abi.h"
#include "jitscope/collector/itt_names.h"

namespace jitscope::collector::itt {

class Recorder {
 public:
  // Makes sure the collector's trace defines every name known (Names::DefineIn).
  Recorder(Collector& collector, Names& names) : collector_(collector), names_(names) {
    names_.DefineIn(collector_);
  }

  Domain* DomainCreate(const char* name);
  StringHandle* StringHandleCreate(const char* text);
  void ThreadSetName(const char* name);

  // __itt_task_begin(_fn), _begin_overlapped, __itt_region_begin, __itt_task_group: `call` names
  // which. `function` is task_begin_fn's, else 0.
  void Begin(trace::IttKind kind, uint32_t call, const Domain* domain, const Id& id,
             const Id& parent, const StringHandle* name, uint64_t function);
  void End(trace::IttKind kind, uint32_t call, const Domain* domain, const Id& id);
  // __itt_frame_begin_v3, _end_v3: `id` may be NULL.
  void FrameBegin(const Domain* domain, const Id* id);
  void FrameEnd(const Domain* domain, const Id* id);
  // __itt_frame_submit_v3: a frame that began and ended at the given times (__itt_get_timestamp's,
  // this collector's clock); kNoTimestamp for either means now.
  void FrameSubmit(const Domain* domain, const Id* id, Timestamp begin, Timestamp end);
  void Marker(const Domain* domain, const Id& id, const StringHandle* name, int scope);

  CounterInfo* CounterCreate(const char* name, const char* domain, int type);
  // __itt_counter_inc/dec(_delta): adds `delta` (negative for dec) in the counter's type.
  void CounterAdd(CounterInfo* counter, int64_t delta);
  // The _v3 forms, of the counter named by a domain and a handle.
  void CounterAdd(const Domain* domain, const StringHandle* name, int64_t delta);
  // __itt_counter_set_value: `value` points to a value of the counter's type.
  void CounterSet(CounterInfo* counter, const void* value);

 private:
  // The string number of `domain` (0 for NULL: refused, counted as `call`'s).
  uint32_t DomainNumber(const Domain* domain, uint32_t call);
  uint32_t NameNumber(const StringHandle* name) {
    return name == nullptr ? 0 : names_.NumberOf(collector_, *name);
  }
  void Write(const trace::Event& event) {
    collector_.Timeline(event, collector_.Now(), collector_.ThreadId());
  }
  void Add(CounterState& state, int64_t delta);

  Collector& collector_;
  Names& names_;
};

// The encoding of a counter's value (IttCounterValueRecord::value) of type `type` read from
// `value`, and `value` + `delta` in that type (integers wrap at their width).
uint64_t EncodeCounterValue(int type, const void* value);
uint64_t AddToCounterValue(int type, uint64_t encoded, int64_t delta);

}  // namespace jitscope::collector::itt
