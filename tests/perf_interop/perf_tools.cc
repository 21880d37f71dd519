// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "perf_tools.h"

#include <sstream>

namespace jitscope::testing {

using test_support::RunProgram;

namespace {

// perf's environment: HOME is the directory of the file it reads or writes (the test's own), so
// that its build-id cache (~/.debug) and ~/.perfconfig are the test's, never what earlier runs
// left in the real home directory.
std::map<std::string, std::string> PerfEnvironment(const std::string& file,
                                                   std::map<std::string, std::string> env = {}) {
  env["HOME"] = file.substr(0, file.rfind('/'));
  return env;
}

}  // namespace

std::string PerfUnavailable() {
  const ProcessResult version = RunProgram({"perf", "--version"});
  if (version.ok()) return {};
  return "perf does not run (install Debian's linux-perf: scripts/setup): " + version.Describe();
}

ProcessResult PerfRecord(const std::string& data, const std::vector<std::string>& command,
                         const std::map<std::string, std::string>& env) {
  // -k 1: CLOCK_MONOTONIC sample times, which perf inject --jit requires (the jitdump's clock).
  // -N: no copies of the binaries in ~/.debug.
  std::vector<std::string> argv = {"perf", "record", "-k", "1",  "-e", "cpu-clock", "-F",
                                   "4000", "-g",     "-N", "-q", "-o", data,        "--"};
  argv.insert(argv.end(), command.begin(), command.end());
  return RunProgram(argv, PerfEnvironment(data, env));
}

ProcessResult PerfInject(const std::string& in, const std::string& out) {
  return RunProgram({"perf", "inject", "--jit", "-i", in, "-o", out}, PerfEnvironment(out));
}

ProcessResult PerfReport(const std::string& data, const std::string& sort) {
  return RunProgram({"perf", "report", "-i", data, "--stdio", "-n", "--sort", sort, "-g", "none",
                     "--no-children", "--percent-limit", "0"},
                    PerfEnvironment(data));
}

std::vector<ReportRow> ParseReport(const std::string& text, bool with_srcline) {
  std::vector<ReportRow> rows;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const size_t first = line.find_first_not_of(' ');
    if (first == std::string::npos || line[first] == '#') continue;
    const size_t percent = line.find('%', first);
    const size_t bracket = line.find("] ", percent);
    if (percent == std::string::npos || bracket == std::string::npos) continue;
    ReportRow row;
    try {
      row.percent = std::stod(line.substr(first, percent - first));
    } catch (...) {
      continue;
    }
    try {
      row.samples = std::stoull(line.substr(percent + 1, bracket - percent));
    } catch (...) {
      continue;
    }
    std::string rest = line.substr(bracket + 2);
    if (with_srcline) {
      const size_t gap = rest.find("  ");
      if (gap != std::string::npos) {
        const size_t srcline = rest.find_first_not_of(' ', gap);
        row.srcline = srcline == std::string::npos ? "" : rest.substr(srcline);
        rest = rest.substr(0, gap);
      }
    }
    while (!rest.empty() && rest.back() == ' ') rest.pop_back();
    while (!row.srcline.empty() && row.srcline.back() == ' ') row.srcline.pop_back();
    row.symbol = rest;
    rows.push_back(std::move(row));
  }
  return rows;
}

std::map<std::string, double> SharesByName(const std::vector<ReportRow>& rows) {
  std::map<std::string, double> shares;
  for (const ReportRow& row : rows) shares[row.symbol] += row.percent;
  return shares;
}

std::map<std::string, uint64_t> SamplesByName(const std::vector<ReportRow>& rows) {
  std::map<std::string, uint64_t> samples;
  for (const ReportRow& row : rows) samples[row.symbol] += row.samples;
  return samples;
}

long FindNumber(const std::string& text, const std::string& key) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(key + " ", 0) == 0) return std::stol(line.substr(key.size() + 1));
  }
  return -1;
}

}  // namespace jitscope::testing
