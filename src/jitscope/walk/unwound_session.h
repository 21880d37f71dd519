// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// A --call-graph dwarf session unwound once, when `jitscope record` ends, as samply does it:
// each sample's registers and stack copy are replaced by the stack its walk found (and why the
// walk ended), so the session keeps kilobytes less per sample and every report reads stacks as
// a frame-pointer session's. The walk is report's own (SampleWalker over the session's mappings,
// JIT files and ELF files), run when the JIT files are complete and the ELF files are the ones
// the samples were taken in.
//
// The samples file is rewritten beside itself and renamed over it: a recorder killed meanwhile
// leaves the session as recorded, which report unwinds itself. The samples record unwound while
// it recorded (session::kRecordUnwoundSample, recording_unwinder.h) are kept as they are.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "jitscope/base/status.h"
#include "jitscope/session/perf_record.h"
#include "jitscope/unwind/unwinder.h"
#include "jitscope/walk/sample_walker.h"

namespace jitscope::walk {

// Walks samples with a SampleWalker and writes each walk as an unwound sample record: what the
// unwinding when a recording ends and the unwinding while it records share.
class SampleUnwinder {
 public:
  explicit SampleUnwinder(SampleWalker& walker) : walker_(walker) {}
  // Walks `sample`; how the walk ended.
  unwind::StopReason Walk(const session::Sample& sample);
  // The sample Walk() walked last, as a record of `type` (PERF_RECORD_SAMPLE in an unwound file,
  // session::kRecordUnwoundSample beside samples not unwound) with `misc`, into `out`; false when
  // its stack does not fit one record.
  bool Encode(const session::Sample& sample, uint16_t misc, uint32_t type, std::string& out);

 private:
  SampleWalker& walker_;
  std::vector<StackAddress> stack_;
  std::vector<session::CallchainEntry> frames_;
};

struct SessionUnwinding {
  uint64_t samples = 0;       // unwound
  uint64_t dropped = 0;       // samples that did not decode, left out
  unwind::UnwindStats stats;  // how the walks ended
  uint64_t bytes_before = 0;  // the samples file's size, recorded
  uint64_t bytes_after = 0;   // and unwound
};

// The name of the file being written, in the session directory.
inline constexpr char kUnwindingFileName[] = "samples.jss.unwinding";
// Unwinds the samples of session `directory`, which must be a --call-graph dwarf session not
// unwound yet. `cancelled`, if given, is asked every thousand samples or so whether to stop (a
// Ctrl-C): the error is then "interrupted". Whatever the failure, the session is left as it was
// recorded, without a file of the unwinding.
base::StatusOr<SessionUnwinding> UnwindSession(const std::string& directory,
                                               const std::function<bool()>& cancelled = {});

}  // namespace jitscope::walk
