// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The open sampler: one perf event per CPU for each target task (with --off-cpu, two: the
// sampling clock's and the switches', each kind into rings of its own), each CPU's events writing
// into one ring (the first event of a CPU owns the ring, the others are redirected to it with
// PERF_EVENT_IOC_SET_OUTPUT, as perf record does). The session drains the rings; the kernel is
// their only producer.
//
// Targets:
//  - a command `record` starts: its pid, events opened before its exec (enable_on_exec) and
//    inherited by every thread and child it creates;
//  - running processes (`record -p`): one entry per existing thread;
//  - the whole machine (`record -a`): no task, one event per CPU on every process.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jitscope/base/scoped_resource.h"
#include "jitscope/base/status.h"
#include "jitscope/record/event_config.h"
#include "jitscope/record/kernel_symbols.h"
#include "jitscope/record/ring_buffer.h"
#include "jitscope/session/perf_record.h"

namespace jitscope::record {

struct SamplerTarget {
  std::vector<pid_t> tasks;  // empty: every process on every CPU
  // The tasks run already (record -p): their events start enabled, with no exec to wait for, and
  // a task that ended since it was listed (ESRCH) is passed over.
  bool running = false;
};

class Sampler {
 public:
  // Opens and maps the events. When the kernel refuses kernel frames to this user
  // (perf_event_paranoid 2 without CAP_PERFMON), retries with user-space frames only and says so
  // in options().include_kernel; a refusal of user-space sampling too is an error that explains
  // the fix (permission_advice.h).
  static base::StatusOr<Sampler> Open(SamplerOptions options, const SamplerTarget& target);

  Sampler(Sampler&&) = default;
  Sampler& operator=(Sampler&&) = default;

  // What was asked of the kernel in the end (include_kernel false after the fallback).
  const SamplerOptions& options() const { return options_; }

  // Waits up to `timeout_ms` for a ring to pass its wake-up watermark.
  void Wait(int timeout_ms);

  // Hands every complete record now in the rings to `consume`, ring after ring, so records of
  // different CPUs interleave only by drain round; the samples of the off-CPU events (--off-cpu)
  // with session::kMiscOffCpu set in their header, and why their thread stopped
  // (session::OffCpuReason, told by the kernel functions of their call chain) in the bits above
  // it. Returns the bytes consumed.
  size_t Drain(const std::function<void(std::string_view record)>& consume);

 private:
  Sampler(SamplerOptions options, std::vector<base::ScopedFd> events,
          std::vector<base::ScopedFd> ring_events, std::vector<RingBuffer> rings,
          size_t off_cpu_rings_from)
      : options_(options),
        events_(std::move(events)),
        ring_events_(std::move(ring_events)),
        rings_(std::move(rings)),
        off_cpu_rings_from_(off_cpu_rings_from) {}

  // The mark of an off-CPU sample, `record`: kMiscOffCpu and its reason.
  uint16_t OffCpuMark(std::string_view record);

  SamplerOptions options_;
  std::vector<base::ScopedFd> events_;       // redirected into a ring of ring_events_
  std::vector<base::ScopedFd> ring_events_;  // one per CPU, each owning rings_[i]
  std::vector<RingBuffer> rings_;
  size_t off_cpu_rings_from_;  // rings_ from this index on are the off-CPU events' (SIZE_MAX: none)
  // With --off-cpu, the kernel's functions (none when it hides their addresses from this user).
  std::optional<KernelSymbols> kernel_symbols_;
  std::string marked_;                       // an off-CPU sample, marked
  session::Sample scratch_;                  // an off-CPU sample, decoded
  std::vector<std::string_view> functions_;  // its kernel frames' functions
};

}  // namespace jitscope::record
