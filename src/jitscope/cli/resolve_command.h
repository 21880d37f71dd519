// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// `jitscope resolve [--json] [--pid PID] SOURCE... -- ADDR[@TIME_NS]...`: resolves addresses of
// JIT code to frames, through the time-versioned symbol index (src/jitscope/symbolize). SOURCE is a
// file of any supported format or a directory of them (symbolize/source_set.h). ADDR is hexadecimal
// (0x optional); TIME_NS is decimal CLOCK_MONOTONIC nanoseconds (wall-clock nanoseconds for
// OProfile dumps); without it, the latest code loaded at the address answers.
//
// Text output, one line per frame, innermost first:
//   0x1008@150: inner (inlined) at a.c:12 [id 3000, module m]
//   0x1008@150: outer at a.c:4 [id 1000, module m]
//   0x9999@150: ??
// JSON output: an array with one object per query (docs/report.md, "Resolving addresses").
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace jitscope::cli {

struct ResolveOptions {
  std::vector<std::string> sources;
  std::vector<std::string> queries;
  std::optional<uint32_t> pid;
  bool json = false;
};

// CLI11 drops "--" and would put the queries after it into SOURCE: this takes every argument
// after the first "--" that follows the `resolve` subcommand out of argv (into `queries`) before
// parsing. Returns the remaining arguments.
std::vector<std::string> SplitResolveQueries(int argc, char** argv,
                                             std::vector<std::string>& queries);

int RunResolve(const ResolveOptions& options, std::FILE* out, std::FILE* err);

}  // namespace jitscope::cli
