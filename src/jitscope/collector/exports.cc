// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The collector protocol of Intel's stub (docs/sources.md): the two
// C symbols libjitscope-collector.so exports. Any stub that follows the protocol — ours, or the
// copy of Intel's stub inside oneDNN — dlopen()s this library from INTEL_JIT_PROFILER64, calls
// Initialize() once and forwards events only when it returned iJIT_SAMPLING_ON (1).
//
// Process lifetime: the collector is created on the first Initialize() or NotifyEvent() and is
// intentionally never destroyed — host threads may still report events while the process exits,
// and the trace needs no flush (it lives in a shared file mapping). A fork()ed child forgets the
// parent's collector (leaking it on purpose: its mappings are not inherited, see
// TraceWriter::AddSegment) and lazily creates its own, writing its own file.
#include <pthread.h>
#include <stdlib.h>

#include <atomic>
#include <mutex>
#include <new>

#include "jitscope/base/reentry_guard.h"
#include "jitscope/base/thread_local.h"
#include "jitscope/collector/collector.h"
#include "jitscope/collector/config.h"

namespace jitscope::collector {
namespace {

std::atomic<Collector*> active_collector{nullptr};
std::mutex create_mutex;     // serialises creation; never taken once a collector exists
bool create_failed = false;  // sticky per process: a failed setup is not retried per event

// A host whose code reports events from inside our own call (through a signal handler, or an
// allocator hook that reports JIT code) must not re-enter the collector on the same thread.
JITSCOPE_THREAD_LOCAL bool inside_collector = false;

Collector* CreateCollector() {
  std::lock_guard lock(create_mutex);
  if (Collector* existing = active_collector.load(std::memory_order_acquire)) return existing;
  if (create_failed) return nullptr;
  auto config =
      ConfigFromEnvironment([](const char* name) -> const char* { return ::getenv(name); });
  if (!config.ok()) {
    Log().Printf("%s; JIT profiling is off", config.status().message().c_str());
    create_failed = true;
    return nullptr;
  }
  Log log = config->log_path.empty() ? Log() : Log::Open(config->log_path);
  auto collector = Collector::Create(*config, std::move(log), SystemEnvironment());
  if (!collector.ok()) {
    Log error_log = config->log_path.empty() ? Log() : Log::Open(config->log_path);
    error_log.Printf("%s; JIT profiling is off", collector.status().message().c_str());
    create_failed = true;
    return nullptr;
  }
  Collector* created = std::move(collector).value().release();  // intentionally leaked
  active_collector.store(created, std::memory_order_release);
  return created;
}

void PrepareFork() { create_mutex.lock(); }
void ResumeParent() { create_mutex.unlock(); }
void StartChild() {
  create_mutex.unlock();
  active_collector.store(nullptr, std::memory_order_relaxed);
  create_failed = false;
}

[[maybe_unused]] const bool fork_handlers_registered = [] {
  ::pthread_atfork(&PrepareFork, &ResumeParent, &StartChild);
  return true;
}();

struct ReentryGuard : base::ReentryGuard {
  ReentryGuard() : base::ReentryGuard(inside_collector) {}
};

// Runs as the process exits (or the library is unloaded): lets the sinks finish their files.
// The collector itself stays allocated, since other threads may still be reporting.
[[gnu::destructor]] void FinishAtExit() {
  if (inside_collector) return;
  inside_collector = true;
  try {
    if (Collector* collector = active_collector.load(std::memory_order_acquire))
      collector->AtExit();
  } catch (...) {  // nothing may throw out of a destructor function
  }
  inside_collector = false;
}

}  // namespace
}  // namespace jitscope::collector

using jitscope::collector::active_collector;
using jitscope::collector::Collector;
using jitscope::collector::CreateCollector;
using jitscope::collector::ReentryGuard;

extern "C" {

// Returns iJIT_SAMPLING_ON (1) when the collector can record, iJIT_NOTHING_RUNNING (0) when
// its configuration or output file failed (the reason is logged).
__attribute__((visibility("default"))) unsigned int Initialize(void) {
  ReentryGuard guard;
  if (!guard.entered()) return 0;
  try {
    return CreateCollector() != nullptr ? 1u : 0u;
  } catch (...) {  // nothing may throw across the C ABI
    return 0;
  }
}

__attribute__((visibility("default"))) unsigned int NotifyEvent(unsigned int event_type,
                                                                void* data) {
  ReentryGuard guard;
  if (!guard.entered()) return 0;
  try {
    Collector* collector = active_collector.load(std::memory_order_acquire);
    if (collector == nullptr) collector = CreateCollector();
    if (collector == nullptr) return 0;
    return static_cast<unsigned int>(collector->Notify(event_type, data));
  } catch (...) {  // e.g. std::bad_alloc in the inline registry: refuse the event, never crash
    return 0;
  }
}

}  // extern "C"
