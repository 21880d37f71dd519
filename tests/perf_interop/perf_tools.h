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

#include "support/process.h"

namespace jitscope::testing {

using test_support::ProcessResult;

// Empty when perf runs; otherwise why not, worded for a test failure.
std::string PerfUnavailable();

// `perf record` of `command` into `data`, with `env` set in the environment. Each of these runs
// perf with HOME the directory of its file, so its build-id cache is the test's own.
ProcessResult PerfRecord(const std::string& data, const std::vector<std::string>& command,
                         const std::map<std::string, std::string>& env);
ProcessResult PerfInject(const std::string& in, const std::string& out);
// `perf report --stdio` sorted by `sort` ("sym" or "sym,srcline"), without call graphs.
ProcessResult PerfReport(const std::string& data, const std::string& sort);

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
