// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// pprof: the gzip'd `profile.proto` that `go tool pprof` and continuous profilers (Grafana
// Pyroscope, Parca) ingest. Two sample types, samples/count and cpu/nanoseconds (count times the
// sampling period); one Mapping per module (JIT modules and "[kernel]" included, with no
// addresses: a JIT module has no file to map back to); one Location per inline run — the frames
// that describe one machine address — holding a Line for each, innermost first, as pprof wants.
#pragma once

#include <string>

#include "jitscope/base/status.h"
#include "jitscope/report/profile.h"

namespace jitscope::report {

base::StatusOr<std::string> RenderPprof(const Profile& profile);

}  // namespace jitscope::report
