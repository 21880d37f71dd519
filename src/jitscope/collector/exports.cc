// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The collector protocol of Intel's stub (docs/sources.md): the two
// C symbols libjitscope-collector.so exports for the JIT Profiling API. Any stub that follows the
// protocol — ours, or the copy of Intel's stub inside oneDNN — dlopen()s this library from
// INTEL_JIT_PROFILER64, calls Initialize() once and forwards events only when it returned
// iJIT_SAMPLING_ON (1). The collector behind them is the process's one (process_collector.h).
#include "jitscope/collector/process_collector.h"

using jitscope::collector::CollectorEntry;
using jitscope::collector::ProcessCollector;

extern "C" {

// Returns iJIT_SAMPLING_ON (1) when the collector can record, iJIT_NOTHING_RUNNING (0) when
// its configuration or output file failed (the reason is logged).
__attribute__((visibility("default"))) unsigned int Initialize(void) {
  CollectorEntry entry;
  if (!entry.entered()) return 0;
  try {
    return ProcessCollector() != nullptr ? 1u : 0u;
  } catch (...) {  // nothing may throw across the C ABI
    return 0;
  }
}

__attribute__((visibility("default"))) unsigned int NotifyEvent(unsigned int event_type,
                                                                void* data) {
  CollectorEntry entry;
  if (!entry.entered()) return 0;
  try {
    jitscope::collector::Collector* collector = ProcessCollector();
    if (collector == nullptr) return 0;
    return static_cast<unsigned int>(collector->Notify(event_type, data));
  } catch (...) {  // e.g. std::bad_alloc in the inline registry: refuse the event, never crash
    return 0;
  }
}

}  // extern "C"
