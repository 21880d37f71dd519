// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The sampler's pipeline (STYLE.md §4): event_config (options → perf_event_attr, pure) →
// ring_buffer (the kernel's per-event mmap ring) → sampler (events and rings for a target) →
// session (runs the command, drains the
// ring into the session directory's samples file, formats/samples_file.h, whose records
// formats/perf_record.h decodes).
//
// Threading: `jitscope record` is single-threaded. The kernel is the only producer of the ring
// and the session loop its only consumer; signals only forward to the child.
//
// This file is the pure first step: what we ask the kernel for, with no system calls, so it is
// unit-tested without a kernel (Perfetto's event_config_unittest does the same).
#pragma once

#include <linux/perf_event.h>

#include <cstdint>

#include "jitscope/formats/perf_record.h"

namespace jitscope::record {

struct SamplerOptions {
  uint64_t frequency_hz = 1000;
  // False when kernel.perf_event_paranoid forbids kernel samples for this user (paranoid >= 2
  // without CAP_PERFMON): user-space call chains are then all we may ask for.
  bool include_kernel = true;
};

// The attributes of the one per-task event `record` opens on the command.
// - cpu-clock (a software timer), so it works in VMs and containers without a PMU.
// - CLOCK_MONOTONIC timestamps (`use_clockid`), the clock of every trace record (DESIGN.md
//   "Clock"), so samples line up with code loads and unloads.
// - inherit: the command's threads and child processes are sampled into the same ring.
// - mmap/mmap2, comm (with comm_exec), task (fork/exit) events, with sample_id_all so that each of
//   them carries TID and TIME too and can be ordered against samples.
// - disabled + enable_on_exec: counting starts at the exec of the command, not in our fork.
perf_event_attr MakeSamplingAttr(const SamplerOptions& options);

}  // namespace jitscope::record
