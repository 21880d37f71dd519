// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The real perf, driven the way the README tells users to: `perf record -k 1 -e cpu-clock
// -F 4000 -g`, `perf inject --jit`, `perf report --stdio`. These tests fail, never skip, when
// perf is missing (scripts/setup installs Debian's linux-perf).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "command_runner.h"

namespace jitscope::testing {

// Empty when perf runs; otherwise why not, worded for a test failure.
std::string PerfUnavailable(const std::string& scratch_dir);

// `perf record` of `command` into `data`, with `env` added to the environment.
CommandResult PerfRecord(const std::string& data, const std::vector<std::string>& command,
                         const std::vector<std::string>& env, const std::string& scratch_dir);
CommandResult PerfInject(const std::string& in, const std::string& out,
                         const std::string& scratch_dir);
// `perf report --stdio` sorted by `sort` ("sym" or "sym,srcline"), without call graphs.
CommandResult PerfReport(const std::string& data, const std::string& sort,
                         const std::string& scratch_dir);

struct ReportRow {
  double percent = 0;
  uint64_t samples = 0;
  std::string symbol;
  std::string srcline;  // with --sort sym,srcline
};
// The rows of a `perf report --stdio -n` table ("  26.66%   145  [.] name   file:line").
std::vector<ReportRow> ParseReport(const std::string& text, bool with_srcline);
// Percent of all samples per symbol name (perf lists equal names at different addresses apart).
std::map<std::string, double> SharesByName(const std::vector<ReportRow>& rows);
// Samples per symbol name.
std::map<std::string, uint64_t> SamplesByName(const std::vector<ReportRow>& rows);

// The number after "<key> " on a line of `text` ("pid 1234"), or -1.
long FindNumber(const std::string& text, const std::string& key);

}  // namespace jitscope::testing
