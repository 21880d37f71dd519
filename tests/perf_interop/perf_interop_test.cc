// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The collector's perf outputs read by the real perf: jit_workload (real machine code, see its
// header for what it runs) under `perf record -k 1 -e cpu-clock -F 4000 -g`, then
//   - jitdump: `perf inject --jit` and `perf report --stdio --sort sym,srcline`: the hot methods
//     by name with their share of the samples, their source lines (an inline region's own file
//     and lines, a split region's lines in its method's file), and the re-JIT at a reused address
//     split correctly between the old and the new name;
//   - perf map: plain `perf report --sort sym`: the names and shares (a perf map has no time, so
//     the two methods at the re-JITted address cannot be told apart);
//   - a workload killed with SIGKILL: its dump still injects and reports.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "jitdump_test_reader.h"
#include "perf_tools.h"
#include "support/files.h"
#include "support/temp_dir.h"

namespace jitscope::testing {
namespace {

using test_support::TempDir;

class PerfInteropTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string unavailable = PerfUnavailable();
    ASSERT_TRUE(unavailable.empty()) << unavailable;
  }

  std::string Path(const std::string& name) const { return dir_.path() + "/" + name; }

  // Runs jit_workload under perf record with the collector writing `formats`.
  ProcessResult RecordWorkload(const std::string& formats, std::vector<std::string> args) {
    std::vector<std::string> command = {JITSCOPE_JIT_WORKLOAD};
    command.insert(command.end(), args.begin(), args.end());
    ProcessResult run =
        PerfRecord(Path("perf.data"), command,
                   {{"INTEL_JIT_PROFILER64", JITSCOPE_COLLECTOR},
                    {"JITSCOPE_FORMATS", formats},
                    {"JITSCOPE_OUTPUT_DIR", dir_.path()},
                    {"JITSCOPE_PERF_MAP_DIR", ""}});  // perf reads maps only from /tmp
    pid_ = FindNumber(run.out, "pid");
    return run;
  }

  std::vector<ReportRow> InjectAndReport() {
    const ProcessResult inject = PerfInject(Path("perf.data"), Path("perf.jit.data"));
    EXPECT_TRUE(inject.ok()) << inject.Describe();
    const ProcessResult report = PerfReport(Path("perf.jit.data"), "sym,srcline");
    EXPECT_TRUE(report.ok()) << report.Describe();
    report_ = report.out;
    return ParseReport(report.out, true);
  }

  TestJitdump ReadDump() {
    auto dump = ReadTestJitdump(Path("jit-" + std::to_string(pid_) + ".dump"));
    EXPECT_TRUE(dump.ok()) << dump.status().message();
    return dump.ok() ? std::move(dump).value() : TestJitdump{};
  }

  int CountJittedFiles() const {
    int count = 0;
    const std::string prefix = "jitted-" + std::to_string(pid_) + "-";
    for (const auto& entry : std::filesystem::directory_iterator(dir_.path())) {
      const std::string name = entry.path().filename().string();
      if (name.rfind(prefix, 0) == 0 && name.ends_with(".so")) ++count;
    }
    return count;
  }

  TempDir dir_;
  long pid_ = -1;
  std::string report_;
};

const char* const kJitMethods[] = {"hot_main", "engine2!hot_side", "phase_one", "phase_two"};

// Each JIT method's percentage of the samples that fell into the workload's JIT methods: the
// split jit_workload controls, undiluted by whatever else ran (the kernel, a sanitizer's runtime,
// the unreported calibration loop). Requires enough samples for the split to mean something.
std::map<std::string, double> JitShares(const std::vector<ReportRow>& rows) {
  const auto samples = SamplesByName(rows);
  uint64_t total = 0;
  for (const char* name : kJitMethods) total += samples.contains(name) ? samples.at(name) : 0;
  EXPECT_GE(total, 800u) << "too few samples in the JIT methods to judge their shares";
  std::map<std::string, double> shares;
  for (const auto& [name, count] : samples) {
    shares[name] = total == 0 ? 0 : 100.0 * static_cast<double>(count) / static_cast<double>(total);
  }
  return shares;
}

// `name` has within [low, high] percent of the JIT methods' samples.
::testing::AssertionResult ShareIn(const std::map<std::string, double>& shares,
                                   const std::string& name, double low, double high) {
  const auto found = shares.find(name);
  const double share = found == shares.end() ? 0 : found->second;
  if (share >= low && share <= high) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << name << " has " << share << "% of the JIT methods' samples, expected " << low << "–"
         << high << "%";
}

TEST_F(PerfInteropTest, JitdumpGivesPerfNamesLinesAndTheReJit) {
  const ProcessResult run = RecordWorkload("trace,jitdump", {"--seconds", "0.6"});
  ASSERT_TRUE(run.ok()) << run.Describe();
  ASSERT_GT(pid_, 0) << run.Describe();

  // Our dump: hot_main A, hot_main A again with its inline's lines, hot_main B, hot_side,
  // phase_one, phase_two; then the CLOSE of SHUTDOWN.
  const TestJitdump dump = ReadDump();
  const auto loads = dump.Loads();
  ASSERT_EQ(6u, loads.size());
  EXPECT_EQ(formats::JitdumpRecordId::kCodeClose, dump.records.back().id);
  EXPECT_EQ(0u, dump.torn_tail_bytes);

  const std::vector<ReportRow> rows = InjectAndReport();
  EXPECT_EQ(6, CountJittedFiles());  // one ELF per load: perf read every record
  const auto shares = JitShares(rows);
  // Work shares 60/20/10/10 (jit_workload.cc); tolerant bounds, since samples are samples.
  EXPECT_TRUE(ShareIn(shares, "hot_main", 48, 72)) << report_;
  EXPECT_TRUE(ShareIn(shares, "engine2!hot_side", 12, 30)) << report_;
  // The re-JIT: the same address ran phase_one, then phase_two; each gets its own samples.
  EXPECT_TRUE(ShareIn(shares, "phase_one", 5, 16)) << report_;
  EXPECT_TRUE(ShareIn(shares, "phase_two", 5, 16)) << report_;
  EXPECT_FALSE(shares.contains("hot_main_split_alias")) << "first symbolic information wins";
  double top = 0;
  std::string top_name;
  for (const auto& [name, share] : SharesByName(rows)) {
    if (share > top) std::tie(top, top_name) = std::tie(share, name);
  }
  EXPECT_EQ("hot_main", top_name) << "the hottest symbol of the whole profile";

  // Source lines, as the workload says perf should show them: the method's own lines, the
  // inline region's own file and lines instead of its call site, the split region's lines in
  // the first report's file.
  std::istringstream expected(run.out);
  std::string line;
  int checked = 0;
  while (std::getline(expected, line)) {
    const bool present = line.rfind("line ", 0) == 0;
    const bool absent = line.rfind("absent ", 0) == 0;
    if (!present && !absent) continue;
    const std::string srcline = line.substr(line.find(' ') + 1);
    bool found = false;
    for (const ReportRow& row : rows) found |= row.symbol == "hot_main" && row.srcline == srcline;
    EXPECT_EQ(present, found) << srcline << (present ? " missing" : " present") << "\n" << report_;
    ++checked;
  }
  EXPECT_EQ(6, checked);
}

TEST_F(PerfInteropTest, PerfMapGivesPlainPerfReportTheNames) {
  const ProcessResult run = RecordWorkload("perfmap", {"--seconds", "0.6"});
  const std::string map = "/tmp/perf-" + std::to_string(pid_) + ".map";
  struct Cleanup {
    std::string path;
    ~Cleanup() { ::unlink(path.c_str()); }
  } cleanup{map};
  ASSERT_TRUE(run.ok()) << run.Describe();
  ASSERT_GT(pid_, 0) << run.Describe();
  // One line per top-level region: hot_main A and B, hot_side, phase_one, phase_two.
  const std::string lines = test_support::ReadFile(map);
  EXPECT_EQ(5, std::count(lines.begin(), lines.end(), '\n')) << lines;

  const ProcessResult report = PerfReport(Path("perf.data"), "sym");
  ASSERT_TRUE(report.ok()) << report.Describe();
  const auto shares = JitShares(ParseReport(report.out, false));
  EXPECT_TRUE(ShareIn(shares, "hot_main", 48, 72)) << report.out;
  EXPECT_TRUE(ShareIn(shares, "engine2!hot_side", 12, 30)) << report.out;
  // Both phases ran at one address and a perf map has no time: perf gives all their samples to
  // one of the two names. (The jitdump test above shows the split.)
  const double phases = (shares.contains("phase_one") ? shares.at("phase_one") : 0) +
                        (shares.contains("phase_two") ? shares.at("phase_two") : 0);
  EXPECT_GE(phases, 12) << report.out;
  EXPECT_LE(phases, 30) << report.out;
}

TEST_F(PerfInteropTest, ADumpLeftBySigkillStillInjects) {
  const ProcessResult run = RecordWorkload("jitdump", {"--seconds", "0.6", "--crash"});
  ASSERT_GT(pid_, 0) << run.Describe();
  struct stat st {};
  ASSERT_EQ(0, ::stat(Path("perf.data").c_str(), &st)) << run.Describe();

  const TestJitdump dump = ReadDump();
  EXPECT_EQ(0u, dump.torn_tail_bytes);
  EXPECT_EQ(5u, dump.Loads().size());  // up to phase_one; no CLOSE: the process never exited
  EXPECT_EQ(formats::JitdumpRecordId::kCodeLoad, dump.records.back().id);

  // Work up to the kill: 60/20/10 of the planned run, so 67/22/11.
  const auto shares = JitShares(InjectAndReport());
  EXPECT_TRUE(ShareIn(shares, "hot_main", 52, 80)) << report_;
  EXPECT_TRUE(ShareIn(shares, "engine2!hot_side", 12, 32)) << report_;
  EXPECT_TRUE(ShareIn(shares, "phase_one", 5, 20)) << report_;
  EXPECT_FALSE(shares.contains("phase_two")) << report_;
}

}  // namespace
}  // namespace jitscope::testing
