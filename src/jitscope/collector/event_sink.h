// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// A sink turns accepted events into one output format (the native trace, perf jitdump, perf
// map). The collector fans every accepted event out to each configured sink. Sinks
// are called concurrently from the host's threads and must not take a global lock on their
// common path, unless their format needs one order of records (jitdump_sink.h says why and
// docs/performance.md what it costs).
#pragma once

#include "jitscope/base/status.h"
#include "jitscope/trace/event.h"

namespace jitscope::collector {

class EventSink {
 public:
  enum class Result { kOk, kTooLarge, kWriteFailed };

  virtual ~EventSink() = default;
  // Called during iJIT_NotifyEvent: views in `record` (and the code at a CodeEvent's address)
  // are valid only until it returns.
  virtual Result Write(const trace::Record& record) = 0;
  // Called once as the process exits (the collector itself is never destroyed), possibly while
  // other threads still report events: a sink may finish its file here, but must not block.
  virtual void AtExit(uint64_t timestamp) { (void)timestamp; }
  // Why the sink stopped writing, once Write() returned kWriteFailed; OK otherwise.
  virtual base::Status error() const { return base::Status::Ok(); }
  // True for the sink that records the ITT API's events (the native trace): perf's formats have
  // no room for them, and the collector writes them to this sink only.
  virtual bool KeepsTimeline() const { return false; }
};

}  // namespace jitscope::collector
