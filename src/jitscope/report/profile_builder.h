// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Turns a recording (walk/recording.h: a session directory or a perf.data file, with the JIT
// files that describe its processes and BuildOptions::jit_sources) into a Profile (profile.h):
// builds a time-versioned symbol index per process from the JIT files, and resolves every frame
// of every call chain:
//  - JIT code through the index at the sample's time, with its inline frames, so code replaced
//    at a reused address is named after what was there when the sample was taken;
//  - code of mapped ELF files through NativeSymbolizer (symbols, DWARF lines, inline frames);
//  - kernel frames as one "[kernel]" frame per run of them;
//  - memory no file backs ("//anon", "[anon:NAME]", "memfd:...", "[heap]", ...) as
//    "[anonymous]" in that mapping, never as a file to read symbols from;
//  - code of a mapped file without a symbol there as "FILE+0xOFFSET" (its file offset);
//  - an address in no mapping at all as "[unknown]".
// A perf.data recorded without `-k 1` has times of perf's own clock, which JIT files do not use:
// its JIT code is named by the latest code loaded at the address, and the profile says so.
// Each sample's stack comes from walk::SampleWalker (walk/sample_walker.h): the kernel's call
// chain, or for a --call-graph dwarf recording the user stack unwound from its registers and
// stack copy, with the walks' ends counted in Profile::unwind_stops; return addresses are looked
// up one byte back.
// One root per path: the frames outside a thread's entry function (`__libc_start_call_main`
// under `__libc_start_main` and `_start`, `start_thread` under `clone3`) are left out, so a walk
// that stopped at the entry function and one that went on to `_start` give the same stack.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "jitscope/base/status.h"
#include "jitscope/report/profile.h"
#include "jitscope/report/sample_filter.h"
#include "jitscope/session/perf_record.h"
#include "jitscope/symbolize/source_set.h"
#include "jitscope/walk/sample_walker.h"

namespace jitscope::report {

// What else looks at each kept sample's stack while BuildProfile walks it (the code versions the
// HTML report annotates), so that the samples are walked once.
class StackObserver {
 public:
  virtual ~StackObserver() = default;
  // Before the first sample: the recording's JIT files and the walker, which outlive End().
  virtual void Begin(const symbolize::SourceSet& sources, walk::SampleWalker& walker,
                     bool latest_code) = 0;
  // A kept sample and its stack, leaf first (walk::SampleWalker::Walk).
  virtual void Add(const session::Sample& sample, std::span<const walk::StackAddress> stack) = 0;
  // After the last sample.
  virtual void End() = 0;
};

struct BuildOptions {
  bool inline_frames = true;  // false: drop inline frames, keep the function that holds the code
  // Called now and then with (samples done, samples in all); may be empty.
  std::function<void(uint64_t, uint64_t)> progress;
  // More JIT files, or directories to search for them (collector traces, jitdumps, perf maps).
  std::vector<std::string> jit_sources;
  // Which samples to keep (sample_filter.h); empty: all of them. The others are counted in
  // Profile::filtered_out.
  SampleFilterOptions filter;
  // The timeline (Profile::timeline) keeps every sample kept, at its time, for the writers that
  // draw time (chrome-trace); without, each thread's counts only.
  bool timeline_samples = false;
  // The timeline keeps the JIT engine's code events (loads, new versions, updates, unloads,
  // moves) as instants, for the formats that draw them (html, chrome-trace).
  bool jit_events = true;
  // In a recording made of several processes (walk::Recording::of_processes) whose samples of
  // several remain, each stack's outermost frame is its process ("COMM (pid PID)",
  // FrameKind::kProcess), so each process is a tree of its own.
  bool process_roots = true;
  // Keep each sample's time, thread and stack (Profile::samples, Profile::threads): for the
  // formats that show time.
  bool sample_times = false;
  // With off-CPU samples (record --off-cpu): keep them and the samples on a CPU (kInclude), or
  // either alone (report --off-cpu include|only|exclude).
  OffCpuSamples off_cpu = OffCpuSamples::kInclude;
  // Tell the versions of JIT code apart (Location::version, Profile::jit_versions).
  bool jit_versions = false;
  // Not owned; may be null.
  StackObserver* observer = nullptr;
  // Where a walk stopped and the frame-pointer chain carried it on, a "[frame-pointer chain]"
  // frame (FrameKind::kGuessed) between the walk's frames and the guessed ones. Off: the guessed
  // frames are the same frames a walk by rule gives, so a stack is drawn once however its
  // samples were walked, and Stack::guessed_samples says how many were guesses.
  bool mark_guesses = false;
};

// `input`: a session directory, or a perf.data file (session::LooksLikePerfData).
base::StatusOr<Profile> BuildProfile(const std::string& input, const BuildOptions& options);

}  // namespace jitscope::report
