// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// `jitscope record [-o DIR] [-F HZ] [--formats LIST] -- CMD [ARGS...]`: runs CMD with the
// collector configured and samples it into a session directory (src/jitscope/record/session.h).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "jitscope/record/session.h"

namespace jitscope::cli {

// The checks of every option that CLI11 cannot make itself (--formats against the collector's
// list, -o's directory), so that a bad option stops `record` before the command runs.
base::Status ValidateRecordOptions(const record::SessionOptions& options);

// What `record` does beyond the session (record/session.h).
struct RecordCommandOptions {
  // --call-graph dwarf: leave each sample's registers and stack copy in the session for
  // `jitscope report` to unwind, instead of unwinding them when the recording ends
  // (walk/unwound_session.h).
  bool keep_stacks = false;
  // Preload libjitscope-frames.so into the command, to capture the unwind tables its JIT
  // engines register with __register_frame (formats/registered_frames.h).
  bool registered_frames = false;
  // When the recording ends: keep the ELF files its samples touched in the session
  // (record/archive.h), as `jitscope archive` does.
  bool archive = false;
  // Leave JAVA_TOOL_OPTIONS alone: the JVMs the command starts get no JVMTI agent from record.
  bool no_jvm_agent = false;
  // With --call-graph dwarf: read from the running processes the code their samples land in
  // whose bytes no JIT file holds (record/code_capture.h), up to this many MiB.
  bool read_code = true;
  uint64_t read_code_max_mib = 256;
};

// Returns the process exit code: the command's; 2 for a bad option (the command never starts);
// 1/127 when recording could not start.
int RunRecord(record::SessionOptions options, const RecordCommandOptions& command_options,
              std::FILE* err);

}  // namespace jitscope::cli
