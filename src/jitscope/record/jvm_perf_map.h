// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// `record -p PID --jvm-perf-map`: a JVM started without any JIT reporting can still be
// named. HotSpot writes a perf map of its code cache on request (`jcmd PID Compiler.perfmap`,
// OpenJDK 17 and later: /tmp/perf-PID.map, a method per compiled blob); record asks for it when
// the recording starts and again when it ends, if the JVM still runs, and copies the map into the
// session directory, where report reads it (its entries have no times: each names its address
// for the whole session). A method compiled and freed between the two requests is not in either.
// Asking writes that one file in the JVM's /tmp, which the user asked for with the flag.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>

#include "jitscope/base/status.h"
#include "jitscope/record/container_files.h"

namespace jitscope::record {

// Asks JVM `pid` for its perf map and copies it into `session_dir` as perf-PID.map (replacing an
// earlier copy): from /tmp, or for a JVM in a container (`container`, else null) from its own
// /tmp, where it writes perf-<its pid there>.map (jcmd reaches it from the host). Returns how
// many methods it lists; an error says what failed (no jcmd, the JVM refused or is gone, no map
// written).
base::StatusOr<size_t> CaptureJvmPerfMap(pid_t pid, const std::string& session_dir,
                                         const ContainerFiles* container = nullptr);

}  // namespace jitscope::record
