// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// End-to-end: `jitscope record` the example JIT, then report the session — through BuildProfile
// for exact checks, and through the `jitscope report` command as a user runs it.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "jitscope/report/profile_builder.h"
#include "jitscope/session/session_info.h"
#include "jitscope/trace/reader.h"
#include "source_lines.h"
#include "support/files.h"
#include "support/folded.h"
#include "support/process.h"
#include "support/temp_dir.h"
#include "support/traces.h"
#include "support/v8_names.h"

namespace jitscope::report {
namespace {

using test_support::FoldedStack;
using test_support::ParseFolded;
using test_support::RunProgram;
using test_support::TempDir;

class ReportE2eTest : public ::testing::Test {
 protected:
  // The sessions are recorded once per CTest run, before any test that reads them, by the
  // report_sessions fixture (CMakeLists.txt): recording is the slow part, and CTest runs every
  // test in a process of its own. Run the tests through CTest (ctest -R report_e2e).
  static std::string Hotspot() { return REPORT_SESSIONS "/hotspot"; }
  static std::string Inline() { return REPORT_SESSIONS "/inline"; }
  // hotspot.jv with checksum doing 300 times the work (hotspot_changed.jv).
  static std::string Changed() { return REPORT_SESSIONS "/changed"; }
  // A scratch directory for what the tests write.
  static void SetUpTestSuite() { tmp_ = new TempDir(); }
  // The example JIT with its JIT reports switched off: its code is anonymous memory that no
  // JIT file describes.
  static std::string Unreported() { return REPORT_SESSIONS "/unreported"; }
  static void TearDownTestSuite() {
    delete tmp_;
    tmp_ = nullptr;
  }

  static Profile Build(const std::string& dir, bool inline_frames = true) {
    BuildOptions options;
    options.inline_frames = inline_frames;
    base::StatusOr<Profile> profile = BuildProfile(dir, options);
    EXPECT_TRUE(profile.ok()) << profile.status().message();
    return profile.ok() ? std::move(*profile) : Profile{};
  }

  static inline TempDir* tmp_ = nullptr;
};

TEST_F(ReportE2eTest, HotSpotIsTheTopJitFunctionAndItsLine) {
  const Profile profile = Build(Hotspot());
  ASSERT_GT(profile.total_samples, 100u);
  EXPECT_EQ(profile.command.substr(profile.command.rfind('/') + 1), "hotspot.jv 1200");
  // Self samples of JIT functions, and of series' lines.
  std::map<std::string, uint64_t> jit_self;
  std::map<uint32_t, uint64_t> series_lines;
  uint64_t series = 0;
  for (const Stack& stack : profile.stacks) {
    const Location& leaf = profile.locations[stack.frames.front()];
    if (leaf.kind != FrameKind::kJit) continue;
    jit_self[leaf.function] += stack.samples;
    if (leaf.function == "series") {
      series_lines[leaf.line] += stack.samples;
      series += stack.samples;
      EXPECT_TRUE(leaf.file.ends_with("hotspot.jv")) << leaf.file;
    }
  }
  const auto top = std::max_element(jit_self.begin(), jit_self.end(),
                                    [](auto& a, auto& b) { return a.second < b.second; });
  ASSERT_NE(top, jit_self.end());
  EXPECT_EQ(top->first, "series");
  // Majorities of the samples in JIT code: start-up, the kernel's page faults and a sanitizer's
  // own work vary with the build and the machine (under TSan on a VM with costly page faults
  // they took half of all samples); a plain run gives about 95% and 92%.
  uint64_t in_jit_code = 0;
  for (const auto& [function, samples] : jit_self) in_jit_code += samples;
  EXPECT_GT(series * 2, in_jit_code) << "series should take most of the samples in JIT code";
  const uint32_t hot_line = LineWith(JITVM_PROGRAMS "/hotspot.jv", "# HOT");
  EXPECT_GT(series_lines[hot_line] * 4, series * 3) << "the HOT line should hold >75% of series";
}

TEST_F(ReportE2eTest, AnonymousCodeIsClassifiedNotReadAsAFile) {
  const Profile profile = Build(Unreported());
  ASSERT_GT(profile.total_samples, 100u);
  uint64_t anonymous = 0;
  for (const Stack& stack : profile.stacks) {
    const Location& leaf = profile.locations[stack.frames.front()];
    if (leaf.kind != FrameKind::kAnonymous) continue;
    EXPECT_EQ(leaf.function, "[anonymous]");
    EXPECT_EQ(leaf.module, "//anon");
    anonymous += stack.samples;
  }
  // The JIT's code is all in its anonymous code heap: most samples land there (~95% plain; under
  // ASan, whose start-up and leak scan at exit took half of a run of 1500 rounds, the session
  // runs for 0.8 s of CPU time).
  EXPECT_GT(anonymous * 2, profile.total_samples);
  for (const std::string& warning : profile.warnings) {
    EXPECT_EQ(warning.find("not readable as ELF"), std::string::npos) << warning;
  }
}

// The report says when much of the profile is JIT code nobody named, and how to name it.
TEST_F(ReportE2eTest, UnreportedJitCodeIsOneWarningWithTheFix) {
  const Profile profile = Build(Unreported());
  uint64_t anonymous = 0;
  for (const Stack& stack : profile.stacks) {
    if (profile.locations[stack.frames.front()].kind == FrameKind::kAnonymous) {
      anonymous += stack.samples;
    }
  }
  char percent[32];
  std::snprintf(
      percent, sizeof(percent), "%.1f%%",
      100.0 * static_cast<double>(anonymous) / static_cast<double>(profile.total_samples));
  const std::string expected =
      "# warning: " + std::string(percent) + " of samples (" + std::to_string(anonymous) +
      ") are in anonymous executable memory that no JIT file names: code a JIT did not report; "
      "to name it, switch on the engine's JIT reporting (an engine that uses the Intel JIT "
      "Profiling API needs no switch: jitscope record sets INTEL_JIT_PROFILER64; others write a "
      "perf map or jitdump when asked)\n";
  auto text = RunProgram({JITSCOPE_CLI, "report", Unreported()});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find(expected), std::string::npos) << text.out;
  // With the JIT's reports on, its code is named and nothing is said.
  auto named = RunProgram({JITSCOPE_CLI, "report", Hotspot()});
  EXPECT_EQ(named.out.find("anonymous executable memory"), std::string::npos) << named.out;
}

TEST_F(ReportE2eTest, SamplesBeforeTheTierUpNameTheBaselineCodeAndAfterItTheOptimized) {
  const base::StatusOr<std::string> trace_path = test_support::FindTrace(Hotspot());
  ASSERT_TRUE(trace_path.ok()) << trace_path.status().message();
  base::StatusOr<trace::TraceFile> trace = trace::TraceFile::Open(*trace_path);
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  std::optional<uint64_t> optimized_at;
  for (const trace::Record& record : trace->trace().records) {
    const auto* code = std::get_if<trace::CodeEvent>(&record.event);
    if (code != nullptr && code->name == "series" && code->module == "jitvm-optimized" &&
        !optimized_at) {
      optimized_at = record.timestamp;
    }
  }
  ASSERT_TRUE(optimized_at.has_value()) << "series was never optimized";
  uint64_t baseline = 0, optimized = 0;
  const Profile profile = Build(Hotspot());
  for (const Stack& stack : profile.stacks) {
    const Location& leaf = profile.locations[stack.frames.front()];
    if (leaf.function != "series") continue;
    if (leaf.module == "jitvm-baseline") {
      baseline += stack.samples;
      EXPECT_LT(stack.first_time_ns, *optimized_at);
    } else {
      ASSERT_EQ(leaf.module, "jitvm-optimized");
      optimized += stack.samples;
      EXPECT_GE(stack.first_time_ns, *optimized_at);
    }
  }
  EXPECT_GT(baseline, 0u);
  EXPECT_GT(optimized, 0u);
}

// Code unloaded and its memory reused by another function: each sample names what was at its
// address when it was taken. (warm's baseline code runs its first 1000 calls, about a fifth of
// the run: some hundred samples, and a score on a machine five times as fast.)
TEST(ReportReuseTest, ReusedAddressesNameWhatWasThereAtTheTime) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/session";
  auto result = RunProgram({JITSCOPE_CLI, "record", "-o", dir, "--", JITVM, "--hot-threshold=1000",
                            REUSE_PROGRAM, "5000"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const base::StatusOr<std::string> trace_path = test_support::FindTrace(dir);
  ASSERT_TRUE(trace_path.ok()) << trace_path.status().message();
  base::StatusOr<trace::TraceFile> trace = trace::TraceFile::Open(*trace_path);
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  std::optional<std::pair<uint64_t, uint64_t>> warm;  // baseline warm: [start, end)
  std::optional<uint64_t> later_loaded;
  for (const trace::Record& record : trace->trace().records) {
    const auto* code = std::get_if<trace::CodeEvent>(&record.event);
    if (code == nullptr || code->module != "jitvm-baseline") continue;
    if (code->name == "warm") warm = {code->address, code->address + code->size};
    if (code->name == "later" && warm && code->address >= warm->first &&
        code->address < warm->second) {
      later_loaded = record.timestamp;
    }
  }
  ASSERT_TRUE(later_loaded.has_value()) << "later was not compiled into warm's old memory";

  base::StatusOr<Profile> profile = BuildProfile(dir, BuildOptions{});
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  uint64_t warm_baseline = 0, later = 0;
  for (const Stack& stack : profile->stacks) {
    const Location& leaf = profile->locations[stack.frames.front()];
    if (leaf.function == "warm" && leaf.module == "jitvm-baseline") {
      EXPECT_LT(stack.last_time_ns, *later_loaded);
      warm_baseline += stack.samples;
    }
    if (leaf.function == "later") {
      EXPECT_GE(stack.first_time_ns, *later_loaded);
      later += stack.samples;
    }
  }
  EXPECT_GT(warm_baseline, 0u);
  EXPECT_GT(later, 0u);
}

// A command that starts processes (a shell starting two jitvm): the header lists the busiest,
// and --pid and --comm choose among them. They are the command's own, so its stacks are not put
// under a frame per process (record -p of several and record -a are: attach_test.cc).
TEST(ReportProcessesTest, TheHeaderListsTheProcessesAndFiltersChooseThem) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/session";
  const std::string programs = JITVM_PROGRAMS;
  // Each runs for a fifth of a second of CPU time (--repeat-for), so each has samples.
  const std::string shell = std::string(JITVM) + " --repeat-for=0.2 " + programs +
                            "/hotspot.jv 100 & " + JITVM + " --repeat-for=0.2 " + programs +
                            "/fib.jv 20; wait";
  auto record = RunProgram({JITSCOPE_CLI, "record", "-o", dir, "--", "sh", "-c", shell});
  ASSERT_EQ(record.exit_code, 0) << record.err;

  base::StatusOr<Profile> profile = BuildProfile(dir, BuildOptions{});
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  std::map<uint32_t, uint64_t> jitvm;  // pid → samples
  for (const ProcessShare& process : profile->processes) {
    if (process.name == "jitvm") jitvm[process.pid] = process.samples;
  }
  // Both; a sanitized build's leak checker adds a helper process of the same name at exit.
  ASSERT_GE(jitvm.size(), 2u) << "both jitvm processes were sampled";
  for (const Stack& stack : profile->stacks) {
    EXPECT_NE(profile->locations[stack.frames.back()].kind, FrameKind::kProcess);
  }
  const auto text = RunProgram({JITSCOPE_CLI, "report", dir});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find(" processes, the busiest: jitvm (pid "), std::string::npos) << text.out;

  // --pid: exactly one process's samples.
  const uint32_t first = jitvm.begin()->first;
  BuildOptions one;
  one.filter.pids = {first};
  base::StatusOr<Profile> chosen = BuildProfile(dir, one);
  ASSERT_TRUE(chosen.ok()) << chosen.status().message();
  EXPECT_EQ(chosen->total_samples, jitvm.begin()->second);
  EXPECT_EQ(chosen->filtered_out, profile->total_samples - jitvm.begin()->second);
  // --comm through the command line: both jitvm; a name no process had leaves nothing.
  const auto by_comm = RunProgram({JITSCOPE_CLI, "report", dir, "--comm", "jitvm,nothing"});
  ASSERT_EQ(by_comm.exit_code, 0) << by_comm.err;
  EXPECT_NE(by_comm.out.find(" processes, the busiest: jitvm"), std::string::npos) << by_comm.out;
  const auto none = RunProgram({JITSCOPE_CLI, "report", dir, "--comm", "nothing"});
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_NE(none.out.find("# no samples pass the filters\n"), std::string::npos) << none.out;
  const auto bad = RunProgram({JITSCOPE_CLI, "report", dir, "--pid", "12x"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("--pid 12x: expected process ids separated by commas"), std::string::npos)
      << bad.err;
}

// A native file replaced between the recording and the report (a rebuilt program, an upgraded
// package) is never read to name the old code: the kernel recorded each mapping's build id, the
// file's no longer matches, and its frames are left as FILE+0xOFFSET with a warning that says
// why.
TEST(ReportBuildIdTest, AFileReplacedSinceTheRecordingNamesNoFrame) {
  TempDir tmp;
  const std::string program = tmp.path() + "/jitvm";
  const std::string dir = tmp.path() + "/session";
  ASSERT_TRUE(std::filesystem::copy_file(JITVM, program));
  auto record = RunProgram({JITSCOPE_CLI, "record", "-o", dir, "--", program,
                            std::string(JITVM_PROGRAMS) + "/hotspot.jv", "1500"});
  ASSERT_EQ(record.exit_code, 0) << record.err;
  auto before = RunProgram({JITSCOPE_CLI, "report", dir, "--format", "folded"});
  ASSERT_EQ(before.exit_code, 0) << before.err;
  EXPECT_NE(before.out.find("jitscope::jitvm::Vm::Run("), std::string::npos) << before.out;

  // Another program at the same path: a different build id.
  ASSERT_TRUE(std::filesystem::copy_file("/bin/true", program,
                                         std::filesystem::copy_options::overwrite_existing));
  auto after = RunProgram({JITSCOPE_CLI, "report", dir, "--format", "folded"});
  ASSERT_EQ(after.exit_code, 0) << after.err;
  EXPECT_EQ(after.out.find("jitscope::jitvm::"), std::string::npos) << after.out;
  EXPECT_NE(after.out.find(";jitvm+0x"), std::string::npos) << after.out;
  auto text = RunProgram({JITSCOPE_CLI, "report", dir});
  EXPECT_NE(text.out.find("# warning: " + program + ": replaced since the recording (build id "),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("now): its frames are left unnamed\n"), std::string::npos) << text.out;
}

TEST_F(ReportE2eTest, AnInlinedCalleeIsAnInlineFrameUnderItsCaller) {
  const uint32_t step_line = LineWith(INLINE_PROGRAM, "# STEP");
  const uint32_t call_line = LineWith(INLINE_PROGRAM, "# CALL");
  uint64_t inlined = 0, in_jit_code = 0;
  const Profile with = Build(Inline());
  for (const Stack& stack : with.stacks) {
    if (with.locations[stack.frames[0]].kind == FrameKind::kJit) in_jit_code += stack.samples;
    if (stack.frames.size() < 2) continue;
    const Location& leaf = with.locations[stack.frames[0]];
    const Location& caller = with.locations[stack.frames[1]];
    if (leaf.function == "step" && leaf.inlined) {
      EXPECT_EQ(leaf.kind, FrameKind::kJit);
      EXPECT_EQ(leaf.line, step_line);
      EXPECT_EQ(caller.function, "walk");
      EXPECT_FALSE(caller.inlined);
      EXPECT_EQ(caller.module, "jitvm-optimized");
      EXPECT_EQ(caller.line, call_line);
      inlined += stack.samples;
    }
  }
  // Of the samples in JIT code: the run is short, and the rest of it (start-up, the kernel's page
  // faults, a sanitizer's leak scan at exit) varies with the build and the machine.
  EXPECT_GE(in_jit_code, 20u) << "too few samples in JIT code to say anything";
  EXPECT_GT(inlined * 2, in_jit_code) << "most JIT samples should be in step inlined into walk";

  // --no-inline: the same samples, charged to walk at the call's line.
  const Profile without = Build(Inline(), false);
  for (const Location& location : without.locations) EXPECT_FALSE(location.inlined);
  uint64_t walk_call_line = 0;
  for (const Stack& stack : without.stacks) {
    const Location& leaf = without.locations[stack.frames[0]];
    if (leaf.function == "walk" && leaf.line == call_line) walk_call_line += stack.samples;
  }
  EXPECT_GE(walk_call_line, inlined);
}

TEST_F(ReportE2eTest, CommandWritesEveryFormatAndRefusesSymlinks) {
  auto text = RunProgram({JITSCOPE_CLI, "report", Hotspot(), "--sort", "line", "--top", "3"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(text.out.starts_with("# jitscope report: ")) << text.out;
  EXPECT_NE(text.out.find("  series  "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("hotspot.jv:" +
                          std::to_string(LineWith(JITVM_PROGRAMS "/hotspot.jv", "# HOT"))),
            std::string::npos)
      << text.out;

  for (const std::string format : {"folded", "svg", "speedscope", "pprof"}) {
    const std::string out = tmp_->path() + "/report." + format;
    auto result = RunProgram({JITSCOPE_CLI, "report", Hotspot(), "--format", format, "-o", out});
    EXPECT_EQ(result.exit_code, 0) << format << ": " << result.err;
    struct stat st {};
    ASSERT_EQ(::stat(out.c_str(), &st), 0) << format;
    EXPECT_GT(st.st_size, 100) << format;
  }

  const std::string link = tmp_->path() + "/planted";
  const std::string victim = tmp_->path() + "/victim";
  { std::ofstream(victim) << "keep me"; }
  ASSERT_EQ(::symlink(victim.c_str(), link.c_str()), 0);
  auto refused = RunProgram({JITSCOPE_CLI, "report", Hotspot(), "-o", link});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_TRUE(refused.err.starts_with("jitscope report: error: cannot write " + link))
      << refused.err;
  std::ifstream in(victim);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "keep me");

  // A FIFO blocked the report until a reader came (forever, when none does): refused at once.
  const std::string fifo = tmp_->path() + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto to_fifo = RunProgram({JITSCOPE_CLI, "report", Hotspot(), "-o", fifo}, {},
                            {.timeout = std::chrono::seconds(60)});
  EXPECT_EQ(to_fifo.exit_code, 1) << to_fifo.Describe();
  EXPECT_EQ(to_fifo.err, "jitscope report: error: " + fifo + " is a FIFO; not writing to it\n");
}

// --diff-base: the run of hotspot_changed.jv against hotspot.jv's. The text puts checksum, whose
// share grew, first with a positive change, and series' shrank; the folded lines are the
// differential form flamegraph.pl reads, the base column scaled to the new run's samples.
TEST_F(ReportE2eTest, DiffOfAChangedRunMarksTheChangedFunction) {
  auto text =
      RunProgram({JITSCOPE_CLI, "report", "--diff-base", Hotspot(), Changed(), "--top", "0"});
  ASSERT_EQ(text.exit_code, 0) << text.Describe();
  EXPECT_TRUE(
      text.out.starts_with("# jitscope report --diff-base: the new run against the base "
                           "run\n# base: "))
      << text.out;
  std::istringstream lines(text.out);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("#") || line.find('%') == std::string::npos) continue;
    std::istringstream words(line);
    std::vector<std::string> row;
    for (std::string word; words >> word;) row.push_back(word);
    rows.push_back(row);
  }
  ASSERT_GE(rows.size(), 2u) << text.out;
  // Self base, new, change, total base, new, change, function, module; the largest change of
  // self share first (series' fall, or checksum's rise, which may be in mix and rotate: its
  // optimized code inlines them).
  const std::set<std::string> changed = {"series", "checksum", "mix", "rotate"};
  EXPECT_TRUE(changed.contains(rows[0][6])) << text.out;
  double checksum_total = -100, series_self = 100;
  for (const auto& row : rows) {
    if (row[6] == "checksum") checksum_total = std::max(checksum_total, std::stod(row[5]));
    if (row[6] == "series") series_self = std::min(series_self, std::stod(row[2]));
  }
  EXPECT_GT(checksum_total, 5.0) << text.out;
  EXPECT_LT(series_self, -5.0) << text.out;

  auto folded = RunProgram(
      {JITSCOPE_CLI, "report", "--diff-base", Hotspot(), Changed(), "--format", "folded"});
  ASSERT_EQ(folded.exit_code, 0) << folded.Describe();
  const uint64_t new_total = Build(Changed()).total_samples;
  uint64_t base_sum = 0, new_sum = 0, checksum_base = 0, checksum_new = 0, stacks = 0;
  std::istringstream folded_lines(folded.out);
  for (std::string line; std::getline(folded_lines, line);) {
    const size_t second = line.rfind(' ');
    const size_t first = line.rfind(' ', second - 1);
    ASSERT_NE(first, std::string::npos) << line;
    const uint64_t base = std::stoull(line.substr(first + 1, second - first - 1));
    const uint64_t now = std::stoull(line.substr(second + 1));
    base_sum += base;
    new_sum += now;
    ++stacks;
    if (line.find(";checksum") != std::string::npos) {
      checksum_base += base;
      checksum_new += now;
    }
  }
  EXPECT_EQ(new_sum, new_total);
  // Each base count rounded once: the sum is the new total within half a sample a line.
  EXPECT_LE(base_sum, new_total + stacks / 2 + 1);
  EXPECT_GE(base_sum + stacks / 2 + 1, new_total);
  EXPECT_GT(checksum_new, checksum_base * 4) << folded.out;

  auto svg =
      RunProgram({JITSCOPE_CLI, "report", "--diff-base", Hotspot(), Changed(), "--format", "svg"});
  EXPECT_EQ(svg.exit_code, 2);
  EXPECT_EQ(svg.err,
            "jitscope report: error: --diff-base writes --format text, folded or html, not svg\n");
}

// The formats' real consumers, installed by scripts/setup (a missing one fails the test).
std::string WriteReport(const std::string& session, const std::string& format,
                        const std::string& path) {
  auto result = RunProgram({JITSCOPE_CLI, "report", session, "--format", format, "-o", path});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return path;
}

TEST_F(ReportE2eTest, GoToolPprofShowsTheHotFunctionFirst) {
  const std::string profile = WriteReport(Hotspot(), "pprof", tmp_->path() + "/p.pb.gz");
  auto top = RunProgram({GO_PROGRAM, "tool", "pprof", "-top", profile},
                        {{"HOME", tmp_->path()}, {"GOCACHE", tmp_->path() + "/gocache"}});
  ASSERT_EQ(top.exit_code, 0) << GO_PROGRAM << ": " << top.err;
  // The first row after the column headings ("flat  flat%   sum%  cum   cum%") is the hottest.
  const size_t heading = top.out.find("flat%");
  ASSERT_NE(heading, std::string::npos) << top.out;
  const size_t first_row = top.out.find('\n', heading) + 1;
  const std::string row = top.out.substr(first_row, top.out.find('\n', first_row) - first_row);
  EXPECT_TRUE(row.ends_with(" series")) << top.out;
}

TEST_F(ReportE2eTest, SpeedscopeJsonValidatesAgainstSpeedscopesSchema) {
  ASSERT_TRUE(std::filesystem::exists(SPEEDSCOPE_SCHEMA))
      << SPEEDSCOPE_SCHEMA << " is missing: the build fetches it from npm "
      << "(tests/report/fetch_speedscope_schema.cmake says why it could not)";
  const std::string json = WriteReport(Hotspot(), "speedscope", tmp_->path() + "/s.json");
  auto check = RunProgram({PYTHON3, "-c",
                           "import json, sys, jsonschema\n"
                           "schema = json.load(open(sys.argv[2]))\n"
                           "jsonschema.validate(json.load(open(sys.argv[1])), schema)\n"
                           "print('valid')\n",
                           json, SPEEDSCOPE_SCHEMA});
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_EQ(check.out, "valid\n");
}

TEST_F(ReportE2eTest, SvgRendersInHeadlessChromium) {
  const std::string svg = WriteReport(Hotspot(), "svg", tmp_->path() + "/f.svg");
  const std::string png = tmp_->path() + "/f.png";
  // The first screen of a 1400x900 window, as a person opens the file: the root is at the top,
  // so it shows the root and the JIT frames under it however deep the stacks go.
  const std::string size = "1400,900";
  // Size, and content: the flame graph's boxes, not a blank page. The page background is #f8f8f8
  // and the root box grey; the boxes are saturated colours, JIT code green: at least half of one
  // full-width row (1200 x 15 px) of coloured boxes, and some green.
  auto look_at = [&] {
    return RunProgram(
        {PYTHON3, "-c",
         "import sys\n"
         "from PIL import Image\n"
         "image = Image.open(sys.argv[1]).convert('RGB')\n"
         "pixels = list(image.getdata())\n"
         "coloured = sum(1 for r, g, b in pixels if max(r, g, b) - min(r, g, b) > 60)\n"
         "green = sum(1 for r, g, b in pixels if g > 150 and g > r + 40 and g > b + 40)\n"
         "print(f'{image.size[0]},{image.size[1]}', coloured > 9000, green > 1000)\n",
         png});
  };
  // Chromium may take its screenshot before the first paint on a loaded machine (a blank page
  // of the right size); later tries give the page more virtual time to paint in. On a starved
  // machine it has also hung: each try gets 90 s of real time (coreutils' timeout), and a try
  // that runs out counts as a blank page.
  test_support::ProcessResult look;
  int hung = 0;
  for (int budget_ms : {3000, 10000, 30000}) {
    auto shot = RunProgram(
        {"/usr/bin/timeout", "--kill-after=10", "90", CHROMIUM, "--headless", "--no-sandbox",
         "--disable-gpu", "--hide-scrollbars", "--run-all-compositor-stages-before-draw",
         "--virtual-time-budget=" + std::to_string(budget_ms), "--window-size=" + size,
         "--screenshot=" + png, "file://" + svg},
        {{"HOME", tmp_->path()}});
    if (shot.exit_code == 124 || shot.exit_code == 137) {
      ++hung;
      continue;
    }
    ASSERT_EQ(shot.exit_code, 0) << shot.err;
    look = look_at();
    ASSERT_EQ(look.exit_code, 0) << look.err;
    if (look.out != size + " False False\n") break;
  }
  EXPECT_EQ(look.out, size + " True True\n") << hung << " of 3 tries of Chromium hung for 90 s";
}

// Another JIT's own jitdump, found through the session's MMAP records: Node.js --perf-prof
// writes jit-<pid>.dump into its working directory and maps it.
TEST(ForeignJitTest, NodePerfProfFunctionsAreNamedWithoutPerfInject) {
  TempDir tmp;
  {
    std::ofstream js(tmp.path() + "/hot.js");
    js << "function hotLoop(n) {\n"
          "  let s = 0;\n"
          "  for (let i = 0; i < n; ++i) s = (s + i * 7) % 1000003;\n"
          "  return s;\n"
          "}\n"
       << test_support::kJsCpuSeconds
       << "let total = 0;\n"
          "while (cpuSeconds() < 0.6) total = (total + hotLoop(100000)) % 1000003;\n";
  }
  auto record = RunProgram({"/bin/sh", "-c",
                            "cd " + tmp.path() +
                                " && exec " JITSCOPE_CLI " record -o session -- " NODE_PROGRAM
                                " --perf-prof hot.js"});
  ASSERT_EQ(record.exit_code, 0) << record.err;
  base::StatusOr<Profile> profile = BuildProfile(tmp.path() + "/session", BuildOptions{});
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  uint64_t hot = 0;
  for (const Stack& stack : profile->stacks) {
    const Location& leaf = profile->locations[stack.frames.front()];
    const auto name = test_support::ParseV8CodeName(leaf.function);
    if (leaf.kind == FrameKind::kJit && name && name->function == "hotLoop") {
      EXPECT_EQ(leaf.module, "[jit]");
      hot += stack.samples;
    }
  }
  EXPECT_GT(hot * 4, profile->total_samples) << "hotLoop should hold a good part of the samples";
}

// A session owns the JIT files its processes wrote elsewhere: Node's jitdump, written into its
// working directory, is kept in the session when the recording ends, so the session moved to
// another directory (and the working directory with the original gone) reports exactly the same.
// Without the copy, the report says the jitdump is gone, not that Node reported nothing.
TEST(ForeignJitTest, ANodeSessionMovedElsewhereReportsTheSame) {
  TempDir tmp;
  const std::string work = tmp.path() + "/work";
  ASSERT_EQ(::mkdir(work.c_str(), 0700), 0);
  ASSERT_TRUE(test_support::WriteFile(
      work + "/hot.js",
      "function movedLoop(n) {\n"
      "  let s = 0;\n"
      "  for (let i = 0; i < n; ++i) s = (s + i * 7) % 1000003;\n"
      "  return s;\n"
      "}\n" +
          std::string(test_support::kJsCpuSeconds) +
          "let total = 0;\n"
          "while (cpuSeconds() < 0.5) total = (total + movedLoop(100000)) % 1000003;\n"));
  auto record = RunProgram({JITSCOPE_CLI, "record", "-o", work + "/session", "--", NODE_PROGRAM,
                            "--perf-prof", "hot.js"},
                           {}, {.cwd = work});
  ASSERT_EQ(record.exit_code, 0) << record.err;
  const base::StatusOr<session::SessionInfo> info = session::ReadSessionInfo(work + "/session");
  ASSERT_TRUE(info.ok()) << info.status().message();
  const std::string jitdump = work + "/jit-" + std::to_string(info->pid) + ".dump";
  EXPECT_NE(record.err.find("jitscope record: kept the JIT files the processes wrote outside the "
                            "session in " +
                            work + "/session/files ("),
            std::string::npos)
      << record.err;
  EXPECT_NE(record.err.find(jitdump), std::string::npos) << record.err;
  EXPECT_EQ(test_support::ReadFile(work + "/session/files" + jitdump),
            test_support::ReadFile(jitdump));
  auto report = [](const std::string& session, const char* format) {
    auto run = RunProgram({JITSCOPE_CLI, "report", session, "--format", format});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    return run.out;
  };
  const std::string text = report(work + "/session", "text");
  const std::string folded = report(work + "/session", "folded");
  EXPECT_NE(folded.find("movedLoop"), std::string::npos) << folded;

  const std::string moved = tmp.path() + "/moved";
  ASSERT_EQ(::rename(work.c_str(), moved.c_str()), 0);
  EXPECT_EQ(report(moved + "/session", "text"), text);
  EXPECT_EQ(report(moved + "/session", "folded"), folded);

  // Without the copy: the code is unnamed, and the warning says the jitdump is gone.
  std::filesystem::remove_all(moved + "/session/files");
  const std::string unnamed = report(moved + "/session", "text");
  EXPECT_EQ(unnamed.find("movedLoop"), std::string::npos) << unnamed;
  EXPECT_NE(unnamed.find("are in anonymous executable memory that no JIT file names: the JIT "
                         "wrote " +
                         jitdump +
                         ", which is no longer there and not kept in the session (moved or "
                         "deleted since the recording); to name its code, give the jitdump's "
                         "new place with --jit PATH\n"),
            std::string::npos)
      << unnamed;
}

// A Node process already running with --perf-basic-prof, attached to with `record -p`:
// its JS functions are named from the perf map V8 has been writing (/tmp/perf-PID.map), which
// report finds by the pid. The script's two functions each loop long enough per call for
// TurboFan to compile them as functions of their own (not inlined into the top-level loop).
TEST(ForeignJitTest, ARunningNodeWithPerfBasicProfIsNamedThroughRecordP) {
  TempDir tmp;
  const std::string script = tmp.path() + "/attached.js";
  {
    std::ofstream js(script);
    js << "function attachedMix(n) {\n"
          "  let x = 7;\n"
          "  for (let i = 0; i < n; ++i) x = (x * 31 + i) % 1000003;\n"
          "  return x;\n"
          "}\n"
          "function attachedSum(n) {\n"
          "  let s = 0;\n"
          "  for (let i = 0; i < n; ++i) s = (s + i * i) % 999983;\n"
          "  return s;\n"
          "}\n"
          "let total = 0;\n"
          "const end = Date.now() + 60000;\n"
          "while (Date.now() < end) {\n"
          "  total = (total + attachedMix(200000) + attachedSum(200000)) % 1000003;\n"
          "}\n";
  }
  test_support::Process node({NODE_PROGRAM, "--perf-basic-prof", script}, {});
  const pid_t pid = node.pid();
  ASSERT_GT(pid, 0);
  // Compiled and optimized well within its first second of CPU time.
  const long ticks = ::sysconf(_SC_CLK_TCK);
  for (int i = 0; i < 600 && test_support::ProcessCpuTicks(pid) < ticks; ++i) ::usleep(100'000);
  const std::string session = tmp.path() + "/session";
  const auto record = RunProgram({JITSCOPE_CLI, "record", "-p", std::to_string(pid), "-o", session,
                                  "--", CPU_TIME, "wait", "0.5", std::to_string(pid)});
  // Reported while the map is still where V8 wrote it.
  base::StatusOr<Profile> profile = BuildProfile(session, BuildOptions{});
  ::kill(pid, SIGKILL);
  node.Wait();
  ::unlink(("/tmp/perf-" + std::to_string(pid) + ".map").c_str());
  ASSERT_EQ(record.exit_code, 0) << record.err;
  ASSERT_TRUE(profile.ok()) << profile.status().message();

  // V8's names for TurboFan's code ('*'), with the script and the position of the function.
  std::map<std::string, uint64_t> by_leaf;
  uint64_t mix = 0, sum = 0;
  for (const Stack& stack : profile->stacks) {
    const Location& leaf = profile->locations[stack.frames.front()];
    if (leaf.kind == FrameKind::kJit) {
      EXPECT_EQ(leaf.module, "[jit]") << leaf.function;
    }
    by_leaf[leaf.function] += stack.samples;
    if (test_support::IsV8CodeOf(leaf.function, '*', "attachedMix", script, 1, 21)) {
      mix += stack.samples;
    }
    if (test_support::IsV8CodeOf(leaf.function, '*', "attachedSum", script, 6, 21)) {
      sum += stack.samples;
    }
  }
  std::string seen;
  for (const auto& [name, samples] : by_leaf) seen += name + ": " + std::to_string(samples) + "\n";
  EXPECT_GT(mix * 20, profile->total_samples) << seen;
  EXPECT_GT(sum * 20, profile->total_samples) << seen;
  EXPECT_GT((mix + sum) * 2, profile->total_samples) << seen;
}

// PostgreSQL 15's LLVM JIT with jit_profiling_support: LLVM's perf listener writes and maps a
// jitdump in a directory of its own; the report names the compiled expressions from it.
TEST(ForeignJitTest, PostgresLlvmJitExpressionsAreNamedWithoutPerfInject) {
  auto folded = RunProgram({RECORD_POSTGRES, JITSCOPE_CLI});
  ASSERT_EQ(folded.exit_code, 0) << folded.err;
  // Samples whose leaf is a JIT-compiled expression.
  uint64_t in_jit = 0;
  for (const FoldedStack& stack : ParseFolded(folded.out)) {
    if (stack.leaf().starts_with("evalexpr_") && stack.leaf().ends_with("_[j]")) {
      in_jit += stack.samples;
    }
  }
  EXPECT_GT(in_jit, 5u) << folded.out;
}

TEST_F(ReportE2eTest, ClearErrors) {
  auto missing = RunProgram({JITSCOPE_CLI, "report", tmp_->path() + "/nothing"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1) << missing.err;
  EXPECT_TRUE(missing.err.starts_with("jitscope report: error: ")) << missing.err;
  auto bad = RunProgram({JITSCOPE_CLI, "report", Hotspot(), "--format", "xml"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("Run 'jitscope report --help' for usage."), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace jitscope::report
