// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The one collector of the process, shared by both APIs libjitscope-collector.so serves: the JIT
// Profiling API (exports.cc) and the ITT API (itt_exports.cc) record into the same trace.
//
// Lifetime: the collector is created by the first call of either API that needs it and is
// intentionally never destroyed: host threads may still report while the process exits, and the
// trace needs no flush (it lives in a shared file mapping). A fork()ed child forgets the parent's
// collector (leaking it on purpose: its mappings are not inherited, TraceWriter::AddSegment) and
// lazily creates its own, writing its own file. A setup that failed is not retried per event.
#pragma once

#include "jitscope/base/reentry_guard.h"
#include "jitscope/collector/collector.h"

namespace jitscope::collector {

// The process's collector, created from the environment on the first call; nullptr when its
// configuration or output failed (logged once).
Collector* ProcessCollector();

// True while the calling thread is inside either API's entry point.
bool& InsideCollector();

// A host whose code calls back into the collector from inside one of its calls (a signal
// handler, an allocator hook that reports JIT code) must not re-enter it on the same thread.
struct CollectorEntry : base::ReentryGuard {
  CollectorEntry() : base::ReentryGuard(InsideCollector()) {}
};

}  // namespace jitscope::collector
