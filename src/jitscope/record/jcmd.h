// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Asking a running HotSpot JVM to do something, for `record -p/-a --jvm-perf-map` and
// `--jvm-agent`: `jcmd PID COMMAND...`, which reaches the JVM through its attach
// mechanism (a socket the JVM opens in its /tmp when signalled). jcmd reports most failures of
// the command itself in its output with exit status 0, so the output is kept for the caller to
// judge.
//
// The jcmd run is the one next to the JVM's own executable (/proc/PID/exe: .../bin/java →
// .../bin/jcmd), whose protocol and commands match that JVM's version, else the first on PATH.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "jitscope/base/status.h"

namespace jitscope::record {

// Whether process `pid` runs a Java VM: its executable is named `java`.
bool IsJavaVm(pid_t pid);

struct JcmdResult {
  int exit_status = 0;  // 128 + N when signal N ended jcmd
  std::string output;   // its standard output and error, the first kMaxJcmdOutput bytes
};
inline constexpr size_t kMaxJcmdOutput = 64 * 1024;

// Runs `jcmd PID arguments...` and waits for it. Fails only when jcmd cannot be run.
base::StatusOr<JcmdResult> RunJcmd(pid_t pid, const std::vector<std::string>& arguments);

// jcmd's `output` for a message: its lines joined with "; ", without the first line's "PID:",
// the indented lines of a stack trace, blank lines and trailing blanks.
std::string JcmdMessage(const std::string& output);

}  // namespace jitscope::record
