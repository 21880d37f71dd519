// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The collector: intake of iJIT_NotifyEvent events, validation, and fan-out to the sinks.
//
// Data flow: Notify(type, payload) → DecodeEvent (validation against the API's rules) →
// inline-overlap check (inline events only) → every sink's Write(). A refused event is counted
// per reason, logged the first time that reason occurs, and written to the trace as a
// "rejected" record, so nothing is silently lost and the trace stays valid.
//
// Threading: Notify is called concurrently from the host's threads. The common path touches
// only thread-local state, a relaxed atomic counter on rejection, and the sinks (which are
// lock-free on their common path); inline events take one of 64 sharded locks.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "jitscope/base/status.h"
#include "jitscope/collector/config.h"
#include "jitscope/collector/event_sink.h"
#include "jitscope/collector/inline_registry.h"
#include "jitscope/collector/log.h"

namespace jitscope::collector {

// The outside world the collector reads, behind function pointers so tests can drive it with
// a fixed clock and thread id.
struct Environment {
  uint64_t (*now_ns)();
  uint32_t (*thread_id)();
};
Environment SystemEnvironment();

class Collector {
 public:
  // Creates the configured sinks (e.g. the trace file). Fails if one cannot be created, except
  // the perf map, which is skipped with a warning (perf_map_sink.h), or if none could be.
  static base::StatusOr<std::unique_ptr<Collector>> Create(const Config& config, Log log,
                                                           Environment environment);
  // For tests: a collector over the given sinks.
  static std::unique_ptr<Collector> CreateForTesting(std::vector<std::unique_ptr<EventSink>> sinks,
                                                     Log log, Environment environment);

  // iJIT_NotifyEvent's collector side. Returns 1 when the event was accepted and recorded
  // (SHUTDOWN: 1 on success, as the API documents), 0 when it was refused.
  int Notify(uint32_t event_type, const void* payload);

  // At process exit: lets every sink finish its file (jitdump: JIT_CODE_CLOSE).
  void AtExit();
  // The intake of an API that validates its calls itself (OProfile's agent API,
  // src/jitscope/opagent): stamps `event` with the time and thread and writes it to every sink.
  // Returns nullopt when it was written, else why it was refused (kTooLarge, kWriteFailed), counted
  // and recorded as for Notify.
  std::optional<trace::RejectReason> Submit(const trace::Event& event);
  // Counts, logs (the first time per reason) and records a call of such an API that its intake
  // refused; `call` is its number in the api_event space (e.g. trace::kCallOpWriteNativeCode).
  void Refuse(uint32_t call, trace::RejectReason reason);

  // The intake of the ITT API (itt_recorder.h): writes `event`, stamped by the caller (a frame
  // submitted later carries its own times), to the sink that keeps the timeline only. Returns
  // false when it was refused (counted and recorded as for Submit) or when no sink keeps one.
  bool Timeline(const trace::Event& event, uint64_t timestamp, uint32_t tid);
  bool keeps_timeline() const { return timeline_ != nullptr; }
  uint64_t Now() const { return environment_.now_ns(); }
  uint32_t ThreadId() const { return environment_.thread_id(); }
  const Log& log() const { return log_; }

  uint64_t rejected(trace::RejectReason reason) const {
    return rejected_[static_cast<size_t>(reason)].load(std::memory_order_relaxed);
  }
  const std::vector<std::unique_ptr<EventSink>>& sinks() const { return sinks_; }

 private:
  Collector(std::vector<std::unique_ptr<EventSink>> sinks, Log log, Environment environment);
  int Reject(uint32_t event_type, trace::RejectReason reason, uint64_t timestamp, uint32_t tid);
  // Writes to the sinks in order, up to the first that fails, and returns its failure. Once one
  // could not write, nothing is written any more: every later event is refused.
  EventSink::Result WriteAll(const trace::Record& record);
  std::string WriteErrors() const;

  std::vector<std::unique_ptr<EventSink>> sinks_;
  EventSink* timeline_ = nullptr;     // the first of sinks_ that KeepsTimeline()
  std::atomic<bool> stopped_{false};  // a sink could not write (a full disk)
  Log log_;
  Environment environment_;
  InlineRegistry inline_registry_;
  std::array<std::atomic<uint64_t>, trace::kMaxRejectReason + 1> rejected_{};
};

}  // namespace jitscope::collector
