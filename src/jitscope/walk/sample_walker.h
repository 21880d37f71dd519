// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The addresses of each sample's stack, leaf first, as every consumer of stacks needs them
// (profile_builder names them; annotate counts the call sites in them):
//  - a frame-pointer recording: the call chain the kernel walked;
//  - a --call-graph dwarf recording: its kernel part, then the user stack unwound from the
//    sample's registers and stack copy (unwind/unwinder.h over SessionAddressSpace), each walk's
//    end counted. A walk that ran out of the stack copy goes on by the CFI of frames that keep
//    frame records, with the words past the copy from the kernel's frame-pointer chain
//    (unwind/frame_records.h): proven steps. Where a walk stops short of the thread's entry and
//    the kernel's frame-pointer
//    chain (which `jitscope record` takes too; perf does not) holds the last address the walk
//    found, the chain's frames beyond it follow, marked as guessed: they show where the code
//    was called from when no rule says it (JIT code reported by name only, through a perf map),
//    but nothing proves them, and the walk still counts as ended where it ended;
//  - a --call-graph dwarf recording `jitscope record` unwound already (session::kFlagUnwound),
//    or the samples it unwound while it recorded (session::kRecordUnwoundSample, beside samples
//    still to unwind): the stacks it stored, with how their walks ended.
// A return address is marked as one: the code that was running is the call instruction before
// it, so it is looked up one byte back, as perf does (the address after a call can belong to the
// next line or even the next function).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "jitscope/session/perf_record.h"
#include "jitscope/session/samples_file.h"
#include "jitscope/symbolize/source_set.h"
#include "jitscope/unwind/unwinder.h"
#include "jitscope/walk/file_identity.h"
#include "jitscope/walk/process_maps.h"
#include "jitscope/walk/session_address_space.h"

namespace jitscope::walk {

struct StackAddress {
  uint64_t pc = 0;
  bool kernel = false;
  bool returns = false;  // a return address: the code that ran is the call before it
  bool guessed = false;  // from the frame-pointer chain, after the walk stopped
  // A HotSpot interpreter frame's Method* and bcp slots, for naming the Java method it ran.
  std::optional<unwind::InterpreterFrame> interpreter = std::nullopt;
  uint64_t Lookup() const { return returns ? pc - 1 : pc; }
  bool operator==(const StackAddress&) const = default;
};

class SampleWalker {
 public:
  // `data` and `sources` must outlive the walker. `latest_code`: the samples' times cannot be
  // compared with the JIT files' (perf record without -k 1).
  SampleWalker(const session::SampleData& data, const symbolize::SourceSet& sources,
               std::string vdso_path, bool latest_code);

  // `sample`'s stack, leaf first, into `out` (replacing what it held).
  void Walk(const session::Sample& sample, std::vector<StackAddress>& out);

  // The time JIT code is looked up at for a sample taken at `time_ns`.
  uint64_t JitTime(uint64_t time_ns) const { return latest_code_ ? symbolize::kLatest : time_ns; }
  const ProcessMaps& maps() const { return maps_; }
  // Which mapped files are still the ones recorded (the walk and every reader of them ask it).
  FileIdentity& files() { return files_; }
  // Whether the samples are unwound (--call-graph dwarf), and how their walks ended.
  bool unwinding() const { return unwinding_ || unwound_by_record_; }
  // How the last walk of Walk() ended, when it unwound a sample.
  unwind::StopReason last_walk_end() const { return unwound_.reason; }
  // Whether the last walk of Walk() took a step by rules derived from code record read from the
  // running process.
  bool last_walk_on_captured() const { return last_on_captured_; }
  const unwind::UnwindStats& unwind_stats() const { return unwind_stats_; }
  // The address space the walks look code up in.
  SessionAddressSpace& address_space() { return address_space_; }
  // The walks the frame-pointer chain carried on.
  uint64_t guessed_walks() const { return guessed_walks_; }

 private:
  ProcessMaps maps_;
  FileIdentity files_;
  const bool unwinding_;
  const bool unwound_by_record_;
  const bool latest_code_;
  SessionAddressSpace address_space_;
  unwind::UnwindResult unwound_;
  std::vector<uint64_t> chain_;  // the user frame-pointer chain's addresses, reused
  unwind::UnwindStats unwind_stats_;
  uint64_t guessed_walks_ = 0;
  bool last_on_captured_ = false;
};

}  // namespace jitscope::walk
