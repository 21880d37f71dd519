// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The symbolized profile every output format is written from: what `jitscope report` knows once
// each sample's call chain has been resolved (JIT frames through the symbol index, native frames
// through elfutils, kernel frames as "[kernel]") and identical stacks have been merged. The
// aggregation (profile_builder) fills it; each writer (text, folded, svg, pprof, speedscope)
// only reads it, so every format shows the same numbers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "jitscope/report/timeline.h"

namespace jitscope::report {

enum class FrameKind : uint8_t {
  kJit,     // resolved through the JIT symbol index
  kNative,  // an ELF symbol of a mapped file (or the file and offset when it has no symbol)
  kKernel,  // any kernel address: "[kernel]"
  // Memory no file backs ("//anon", "[anon:NAME]", "memfd:...", "[heap]", ...; see
  // IsAnonymousMemory) that no JIT file names: `function` is "[anonymous]", `module` the mapping.
  kAnonymous,
  kUnknown,  // no symbol: `function` is "[unknown]", `module` the mapping that held it, if any
  // The outermost frame of every stack of a recording of several processes: `function` is
  // "COMM (pid PID)", so each process is a tree of its own.
  kProcess,
  // Where a --call-graph dwarf walk stopped and the kernel's frame-pointer chain carried the
  // stack on (sample_walker.h), with BuildOptions::mark_guesses: `function` is
  // "[frame-pointer chain]", and the frames outside it are guesses, not the walk's.
  kGuessed,
  // The leaf of a stack where a thread stopped running (record --off-cpu): `function` is
  // "[off-cpu: REASON]" (preempted, sleeping, lock, I/O, poll or waiting: session::OffCpuReason),
  // and the stack weighs the time it was off.
  kOffCpu,
};

// One distinct frame: the same function at the same file:line, in the same module, of the same
// kind and inline status is one Location, however many stacks contain it.
struct Location {
  std::string function;  // demangled; never empty
  std::string module;    // JIT module name, the ELF file's path, "[kernel]", or "" when unknown
  std::string file;      // source file; "" when unknown
  uint32_t line = 0;     // 0 when unknown
  FrameKind kind = FrameKind::kUnknown;
  // This frame was inlined into the frame that follows it in the stack: both describe the same
  // machine address (pprof writes such a run as one Location with several Lines).
  bool inlined = false;
  // With BuildOptions::jit_versions, a JIT frame's version: 1 + its index in
  // Profile::jit_versions. 0 otherwise, so a function is one Location whichever code ran it.
  uint32_t version = 0;
  bool operator==(const Location&) const = default;
};

// One version of JIT code: a region from its load to its end (symbolize::MatchedRegion), so a
// re-JIT, a tier change or code loaded where other code was is another version.
struct JitVersion {
  uint32_t pid = 0;
  uint64_t start = 0;
  uint64_t size = 0;
  uint64_t loaded_ns = 0;
  uint64_t invalidated_ns = 0;  // symbolize::kForever when it never ended
  std::optional<uint64_t> method_id;
  bool operator==(const JitVersion&) const = default;
};

// One distinct call stack and how many samples had it.
struct Stack {
  std::vector<uint32_t> frames;  // indices into Profile::locations, leaf (innermost) first
  uint64_t samples = 0;
  uint64_t first_time_ns = 0;  // CLOCK_MONOTONIC of its first and last sample
  uint64_t last_time_ns = 0;
  // Of `samples`, those whose walk stopped and the frame-pointer chain carried on: their frames
  // beyond where the walk stopped are guesses (the same frames as a walk by rule, so one stack).
  uint64_t guessed_samples = 0;
};

// One thread with samples (BuildOptions::sample_times).
struct ThreadShare {
  uint32_t pid = 0;
  uint32_t tid = 0;
  std::string name;  // the thread's COMM at its last sample, else its process's; "" when none
  uint64_t samples = 0;
  bool operator==(const ThreadShare&) const = default;
};

// One sample as the formats that show time need it (BuildOptions::sample_times). An off-CPU
// sample (record --off-cpu) is taken as its thread is switched out, and stands for the time until
// it ran again: its stack is under an "[off-cpu: WHY]" leaf (FrameKind::kOffCpu).
struct TimedSample {
  uint64_t time_ns = 0;  // CLOCK_MONOTONIC
  uint32_t thread = 0;   // index into Profile::threads
  uint32_t stack = 0;    // index into Profile::stacks
  // The time it stands for: the sampling period (Profile::sample_period_ns), or the time off the
  // CPU.
  uint64_t weight_ns = 0;
  bool off_cpu = false;
  bool operator==(const TimedSample&) const = default;
};

// One process of the recording and its samples.
struct ProcessShare {
  uint32_t pid = 0;
  std::string name;  // its command name (COMM), "" when none was recorded
  uint64_t samples = 0;
  bool operator==(const ProcessShare&) const = default;
};

// Which samples a report keeps of a recording made with `record --off-cpu`: the samples on a CPU
// and those taken as threads were switched out (session::Sample::off_cpu), or either alone.
enum class OffCpuSamples : uint8_t { kInclude, kOnly, kExclude };

// What a report made of the off-CPU samples of `record --off-cpu`.
struct OffCpuSummary {
  OffCpuSamples choice = OffCpuSamples::kInclude;
  uint64_t switches = 0;    // the off-CPU samples kept, each a switch out of a CPU with its stack
  uint64_t waiting_ns = 0;  // the time until their threads ran again, by why they stopped
  uint64_t preempted_ns = 0;
  uint64_t samples = 0;  // that time as samples of the sampling period, in Profile::stacks
  // Off-CPU samples the filters kept without the switch records that say how long they were off
  // (records lost, or the thread's last switch, at its exit): left out.
  uint64_t without_period = 0;
  // The samples the choice left out: the off-CPU ones (kExclude), or those on a CPU (kOnly).
  uint64_t left_out = 0;
  bool operator==(const OffCpuSummary&) const = default;
};

struct Profile {
  std::vector<Location> locations;
  // Distinct stacks, heaviest first, ties in first-seen order. A stack under an off-CPU leaf
  // (FrameKind::kOffCpu) counts the time its thread was off the CPU as samples of the period,
  // rounded: one of less than half a period in all weighs nothing, and is left out unless the
  // samples' times (BuildOptions::sample_times, timeline_samples) name it.
  std::vector<Stack> stacks;
  uint64_t total_samples = 0;     // the sum of stacks[i].samples
  uint64_t filtered_out = 0;      // samples BuildOptions::filter left out
  uint64_t sample_period_ns = 0;  // nominal time one sample stands for (1e9 / frequency)
  uint64_t start_time_ns = 0;     // CLOCK_MONOTONIC of the first and last sample
  uint64_t end_time_ns = 0;
  std::string command;  // what was recorded, for titles ("" when unknown)
  // Why there are no samples when the recording did not end ("" when it ended or is not known).
  std::string no_samples_reason;
  // The processes with samples, busiest first (ties: lowest pid first).
  std::vector<ProcessShare> processes;
  // With BuildOptions::sample_times: the threads with samples (by pid, then tid), and every
  // sample kept, on a CPU or off it, in time order; empty otherwise.
  std::vector<ThreadShare> threads;
  std::vector<TimedSample> samples;
  // With BuildOptions::jit_versions: the versions of JIT code that frames name (Location::version).
  std::vector<JitVersion> jit_versions;
  // For a session recorded with --call-graph dwarf: how many samples' walks ended for each reason
  // (unwind::StopReasonName: "end of stack" is a complete stack, the others were cut short), in
  // the reasons' order; empty for frame-pointer sessions.
  std::vector<std::pair<std::string, uint64_t>> unwind_stops;
  // Of those walks, the ones the frame-pointer chain carried on (Stack::guessed_samples).
  uint64_t guessed_walks = 0;
  // What the report read that the reader should know, one line each (the session's archive of
  // native files), for the formats that can show them.
  std::vector<std::string> notes;
  // HotSpot interpreter frames the walks found (unwind/hotspot_interpreter.h): how many the JVM
  // table named with their Java method, and why the others stayed `Interpreter`
  // (symbolize::JavaMissName), in the reasons' order; of the samples that ran in the interpreter
  // (their innermost frame is one), how many named it.
  struct JavaFrames {
    uint64_t named = 0;
    std::vector<std::pair<std::string, uint64_t>> unnamed;
    uint64_t running = 0;
    uint64_t running_named = 0;
    bool operator==(const JavaFrames&) const = default;
  };
  JavaFrames interpreter_frames;
  // Of a recording with off-CPU samples (record --off-cpu): how many, the time they stand for
  // and what the report kept; all zero for one without.
  OffCpuSummary off_cpu;
  // Whether those walks' guesses are marked in the stacks (BuildOptions::mark_guesses).
  bool guesses_marked = false;
  // Of the walks, those that took a step by rules derived from code record read from the running
  // process (the code a perf map names, which no file holds the bytes of).
  uint64_t captured_walks = 0;
  // Non-fatal things the reader and symbolizer noticed (lost samples, damaged files, ...), one
  // line each, for the formats that can show them.
  std::vector<std::string> warnings;
  // When what happened, per thread (timeline.h): its samples refer to `stacks`.
  Timeline timeline;
};

}  // namespace jitscope::report
