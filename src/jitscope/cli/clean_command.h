// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// `jitscope clean`: removes the perf maps (perf-<pid>.map) and perf jitdumps (jit-<pid>.dump)
// that jitscope's collector left behind for processes that no longer exist. perf reads both only
// at report time and nobody ever deletes them, so they pile up in /tmp and output directories
// (perf's jit-interface.txt).
//
// A file is removed only when all of these hold:
//   - its name is exactly perf-<pid>.map (in the perf map directory) or jit-<pid>.dump (in an
//     output directory, or in the jitscope-<pid>-XXXXXX directory the collector falls back to);
//   - it is a regular file (never a link) owned by the caller;
//   - jitscope's collector wrote it (it carries the user.jitscope attribute), unless
//     --all-writers is given: oneDNN, JVM agents and others write files of the same names;
//   - the process that wrote it is gone: no process has its pid, or the process with that pid
//     started after the file was last written (the pid was reused).
// It also removes, in each output directory, the files of a bounded trace's chain that come
// before its last complete snapshot (trace/chain.h), the process running or not: the files from
// that snapshot on name all code the process can still run.
// Every removal is printed, then a summary of what was removed and what was kept and why.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace jitscope::cli {

struct CleanOptions {
  std::vector<std::string> output_dirs;  // default: $JITSCOPE_OUTPUT_DIR, else "."
  std::string perf_map_dir;              // default: $JITSCOPE_PERF_MAP_DIR, else /tmp
  bool all_writers = false;
  bool dry_run = false;
};

// What clean knows about running processes, behind a function pointer for tests.
struct ProcessTable {
  enum class State { kGone, kRunning, kRunningSince };
  struct Process {
    State state = State::kGone;
    uint64_t start_realtime_ns = 0;  // for kRunningSince
  };
  Process (*lookup)(uint32_t pid);
};
ProcessTable SystemProcessTable();

int RunClean(const CleanOptions& options, const ProcessTable& processes, std::FILE* out,
             std::FILE* err);

}  // namespace jitscope::cli
