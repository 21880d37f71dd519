// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The sampler's pipeline, one file a step: event_config (options → perf_event_attr, pure) →
// ring_buffer (the kernel's per-event mmap ring) → sampler (events and rings for a target) →
// session (runs the command, drains the
// ring into the session directory's samples file, session/samples_file.h, whose records
// session/perf_record.h decodes).
//
// Threading: `jitscope record` is single-threaded. The kernel is the only producer of the ring
// and the session loop its only consumer; signals only forward to the child.
//
// This file is the pure first step: what we ask the kernel for, with no system calls, so it is
// unit-tested without a kernel (Perfetto's event_config_unittest does the same).
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <string_view>

#include "jitscope/base/status.h"
#include "jitscope/session/perf_record.h"
#include "jitscope/session/samples_file.h"

namespace jitscope::record {

// How call stacks are sampled (`--call-graph`, perf's spelling and meaning).
enum class CallGraph : uint8_t {
  kFramePointer,  // "fp": the kernel walks the frame-pointer chain
  kDwarf,         // "dwarf[,SIZE]": user registers and SIZE bytes of the user stack, unwound later
};

// The stack copy `dwarf` takes without a SIZE: four times perf's 8 KiB. Deep engines (oneDNN's
// frames, PostgreSQL's executor, LLVM's pass pipeline) need more than 8 KiB to reach the thread's
// entry, and record keeps only the stack in use (docs/performance.md, "How complete the call
// stacks are").
inline constexpr uint32_t kDefaultStackSize = 32768;

struct CallGraphOptions {
  CallGraph mode = CallGraph::kFramePointer;
  uint32_t stack_size = kDefaultStackSize;  // dwarf only: bytes of user stack per sample
  bool operator==(const CallGraphOptions&) const = default;
};

// The largest stack copy the kernel takes.
inline constexpr uint32_t kMaxStackSize = session::kMaxStackCopySize;

// Parses "fp", "dwarf" or "dwarf,SIZE" (SIZE in bytes, rounded up to a multiple of 8 as perf
// does, 8 to kMaxStackSize).
base::StatusOr<CallGraphOptions> ParseCallGraph(std::string_view text);

struct SamplerOptions {
  uint64_t frequency_hz = 1000;
  // False when kernel.perf_event_paranoid forbids kernel samples for this user (paranoid >= 2
  // without CAP_PERFMON): user-space call chains are then all we may ask for.
  bool include_kernel = true;
  CallGraphOptions call_graph;
  // Each MMAP2 carries its file's build id instead of its device and inode (attr.build_id, Linux
  // 5.12), so report can tell a file replaced since the recording; false on older kernels.
  bool build_ids = true;
  // A record each time a sampled thread is switched out of its CPU or back in
  // (attr.context_switch, Linux 4.3; perf record --switch-events): when each thread was off the
  // CPU, and whether it was preempted or waited.
  bool switch_events = false;
  // A sample each time a sampled thread is switched out of its CPU, with its stack where it
  // stopped running (record --off-cpu; MakeOffCpuAttr). Implies switch_events, whose records say
  // how long it stayed off and why.
  bool off_cpu = false;
};

// The attributes of the one per-task event `record` opens on the command.
// - cpu-clock (a software timer), so it works in VMs and containers without a PMU.
// - CLOCK_MONOTONIC timestamps (`use_clockid`), the clock of every trace record
//   (docs/architecture.md), so samples line up with code loads and unloads.
// - inherit: the command's threads and child processes are sampled into the same ring.
// - mmap/mmap2, comm (with comm_exec), task (fork/exit) events, with sample_id_all so that each of
//   them carries TID and TIME too and can be ordered against samples.
// - disabled + enable_on_exec: counting starts at the exec of the command, not in our fork.
// - with --call-graph dwarf: every general-purpose user register and a copy of the top of the
//   user stack. The kernel's call chain keeps its user part too (perf leaves it out): where a
//   walk finds no rule, the frame-pointer chain may carry it on, labelled as a guess
//   (walk/sample_walker.h).
perf_event_attr MakeSamplingAttr(const SamplerOptions& options);

// The attributes of the events of `record --off-cpu`, opened beside each sampling event: the
// context-switches software event, one sample per switch out of a CPU, taken by the kernel in the
// thread's own context as the scheduler switches it out (perf record -e context-switches -c 1,
// which needs no tracefs and no raw tracepoint data), with the samples' layout of `options`:
// user registers and stack copy, or the user call chain. The kernel takes the sample in the
// scheduler, so it may not exclude kernel samples (an exclude_kernel event never fires); its
// kernel call chain, the scheduler's frames and the system call's, says why the thread stopped
// (off_cpu_reason.h). The sampling event records the mmap, comm, task and switch records; these
// record nothing else.
perf_event_attr MakeOffCpuAttr(const SamplerOptions& options);

// What the samples file's header says about the samples of `options`.
session::SamplesFormat SamplesFormatOf(const SamplerOptions& options);

}  // namespace jitscope::record
