// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/collector/process_collector.h"

#include <pthread.h>
#include <stdlib.h>

#include <atomic>
#include <mutex>

#include "jitscope/base/thread_local.h"
#include "jitscope/collector/config.h"

namespace jitscope::collector {
namespace {

std::atomic<Collector*> active_collector{nullptr};
std::mutex create_mutex;     // serialises creation; never taken once a collector exists
bool create_failed = false;  // sticky per process: a failed setup is not retried per event

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
  const Log log = config->log_path.empty() ? Log() : Log::Open(config->log_path);
  auto collector = Collector::Create(*config, log, SystemEnvironment());
  if (!collector.ok()) {
    log.Printf("%s; JIT profiling is off", collector.status().message().c_str());
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

Collector* ProcessCollector() {
  Collector* collector = active_collector.load(std::memory_order_acquire);
  return collector != nullptr ? collector : CreateCollector();
}

bool& InsideCollector() { return inside_collector; }

}  // namespace jitscope::collector
