// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// End to end with Debian's real perf: `perf record` the example JIT (its JIT code described by the
// collector's jitdump, which perf records as the jit-<pid>.dump mapping, or by its trace), then
// `jitscope report perf.data`. Frame-pointer chains (-g), compressed records (-z), DWARF stacks
// (--call-graph dwarf, of a native program without frame pointers), a recording without -k 1, and
// Node.js --perf-prof.
// These fail, never skip, when perf is missing (scripts/setup installs linux-perf).
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "jitscope/report/profile_builder.h"
#include "source_lines.h"
#include "support/folded.h"
#include "support/process.h"
#include "support/temp_dir.h"
#include "support/v8_names.h"

namespace jitscope::report {
namespace {

using test_support::ParseFolded;
using test_support::RunProgram;
using test_support::ShareWalkedThrough;
using test_support::TempDir;
using test_support::WalkShare;

constexpr char kNotMonotonic[] =
    "the recording's times are not CLOCK_MONOTONIC, the clock of JIT files (perf record without "
    "-k 1): JIT code is named by the last code loaded at its address; record with 'perf record "
    "-k 1' to name it as of each sample";

// A jitdump names code "module!name" (the collector's convention, as perf shows it); a trace
// names the function alone.
bool IsFunction(const Location& location, const std::string& name) {
  return location.function == name || location.function.ends_with("!" + name);
}

// `perf record OPTIONS -e cpu-clock -o DATA -- jitvm --repeat-for=0.8 hotspot.jv 100` (0.8 s of
// CPU time, some 800 samples on any machine) with the collector writing `formats` into `jit_dir`.
std::string RecordJitvm(const TempDir& tmp, const std::string& name,
                        const std::vector<std::string>& options, const std::string& formats) {
  const std::string data = tmp.path() + "/" + name + ".data";
  const std::string jit_dir = tmp.path() + "/" + name + ".jit";
  EXPECT_EQ(::mkdir(jit_dir.c_str(), 0700), 0);
  // -N: no copies of the binaries in ~/.debug, which perf runs at once would race to update.
  std::vector<std::string> argv = {PERF_PROGRAM, "record",    "-q", "-N",
                                   "-e",         "cpu-clock", "-F", "999"};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.insert(argv.end(),
              {"-o", data, "--", JITVM, "--repeat-for=0.8", JITVM_PROGRAMS "/hotspot.jv", "100"});
  auto result = RunProgram(argv, {{"INTEL_JIT_PROFILER64", JITSCOPE_COLLECTOR},
                                  {"JITSCOPE_OUTPUT_DIR", jit_dir},
                                  {"JITSCOPE_FORMATS", formats}});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return data;
}

Profile Build(const std::string& input, std::vector<std::string> jit_sources = {}) {
  BuildOptions options;
  options.jit_sources = std::move(jit_sources);
  base::StatusOr<Profile> profile = BuildProfile(input, options);
  EXPECT_TRUE(profile.ok()) << profile.status().message();
  return profile.ok() ? std::move(*profile) : Profile{};
}

std::string Warnings(const Profile& profile) {
  std::string out;
  for (const std::string& w : profile.warnings) out += w + "\n";
  return out;
}

// As for jitscope's own sessions (report_e2e_test): series is the hottest JIT function, named
// with its source file, and, with `lines`, its HOT line holds most of its samples. (Through the
// collector's jitdump the lines come out differently: a `jitscope record --formats jitdump`
// session shows the same, so that is the jitdump's, not perf.data's.)
void ExpectSeriesIsHot(const Profile& profile, bool lines = false) {
  ASSERT_GT(profile.total_samples, 100u) << Warnings(profile);
  std::map<std::string, uint64_t> jit_self;
  std::map<uint32_t, uint64_t> series_lines;
  uint64_t series = 0;
  for (const Stack& stack : profile.stacks) {
    const Location& leaf = profile.locations[stack.frames.front()];
    if (leaf.kind != FrameKind::kJit) continue;
    jit_self[IsFunction(leaf, "series") ? "series" : leaf.function] += stack.samples;
    if (IsFunction(leaf, "series")) {
      EXPECT_TRUE(leaf.file.ends_with("hotspot.jv")) << leaf.file;
      series_lines[leaf.line] += stack.samples;
      series += stack.samples;
    }
  }
  const auto top = std::max_element(jit_self.begin(), jit_self.end(),
                                    [](auto& a, auto& b) { return a.second < b.second; });
  ASSERT_NE(top, jit_self.end()) << Warnings(profile);
  EXPECT_EQ(top->first, "series");
  EXPECT_GT(series * 2, profile.total_samples) << Warnings(profile);
  if (!lines) return;
  const uint32_t hot_line = LineWith(JITVM_PROGRAMS "/hotspot.jv", "# HOT");
  EXPECT_GT(series_lines[hot_line] * 4, series * 3) << "the HOT line should hold >75% of series";
}

// A JIT frame's callers come from its frame pointers: main calls series.
void ExpectMainCallsSeries(const Profile& profile) {
  uint64_t with_caller = 0, series = 0;
  for (const Stack& stack : profile.stacks) {
    if (!IsFunction(profile.locations[stack.frames.front()], "series")) continue;
    series += stack.samples;
    for (size_t i = 1; i < stack.frames.size(); ++i) {
      if (IsFunction(profile.locations[stack.frames[i]], "main")) {
        with_caller += stack.samples;
        break;
      }
    }
  }
  EXPECT_GT(with_caller * 10, series * 9) << with_caller << " of " << series;
}

TEST(PerfDataE2eTest, FramePointerRecordingNamesJitCodeThroughItsJitdump) {
  TempDir tmp;
  const std::string data = RecordJitvm(tmp, "fp", {"-k", "1", "-g"}, "jitdump");
  const Profile profile = Build(data);
  ExpectSeriesIsHot(profile);
  ExpectMainCallsSeries(profile);
  EXPECT_EQ(Warnings(profile).find("CLOCK_MONOTONIC"), std::string::npos) << Warnings(profile);
  EXPECT_NE(profile.command.find("record"), std::string::npos) << profile.command;
}

TEST(PerfDataE2eTest, CollectorTracesNamedWithJitNameTheCode) {
  TempDir tmp;
  const std::string data = RecordJitvm(tmp, "trace", {"-k", "1", "-g"}, "trace");
  ExpectSeriesIsHot(Build(data, {tmp.path() + "/trace.jit"}), /*lines=*/true);
  // The same through the command: one PATH per --jit, the next word is the input.
  auto folded = RunProgram(
      {JITSCOPE_CLI, "report", "--jit", tmp.path() + "/trace.jit", data, "--format", "folded"});
  ASSERT_EQ(folded.exit_code, 0) << folded.err;
  EXPECT_NE(folded.out.find(";main_[j];series [optimized]_[j] "), std::string::npos) << folded.out;
}

// /tmp/perf-<pid>.map names the code of a process no other file describes. A perf map has no
// times, so code at a reused address is named after the last code there: only that the JIT
// code is named, and series among it, is certain. (Long enough that the JIT code's share is
// clear of what a sanitized build adds at start and exit: ASan's leak scan, the loader's
// relocations of its runtime, about a fifth of a second of CPU time.)
TEST(PerfDataE2eTest, APerfMapNamesJitCode) {
  TempDir tmp;
  const std::string data = tmp.path() + "/map.data";
  auto result = RunProgram(
      {PERF_PROGRAM, "record", "-q", "-N", "-k", "1", "-g", "-e", "cpu-clock", "-F", "999", "-o",
       data, "--", JITVM, "--repeat-for=1.5", JITVM_PROGRAMS "/hotspot.jv", "100"},
      {{"INTEL_JIT_PROFILER64", JITSCOPE_COLLECTOR},
       {"JITSCOPE_OUTPUT_DIR", tmp.path()},
       {"JITSCOPE_FORMATS", "perfmap"}});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  // "jitscope[PID]: writing a perf map to /tmp/perf-PID.map": removed when the test is done.
  const size_t at = result.err.find("/tmp/perf-");
  ASSERT_NE(at, std::string::npos) << result.err;
  const std::string map = result.err.substr(at, result.err.find(".map", at) + 4 - at);
  const Profile profile = Build(data);
  std::remove(map.c_str());
  ASSERT_GT(profile.total_samples, 100u) << Warnings(profile);
  uint64_t jit = 0;
  bool series = false;
  for (const Stack& stack : profile.stacks) {
    const Location& leaf = profile.locations[stack.frames.front()];
    if (leaf.kind != FrameKind::kJit) continue;
    EXPECT_EQ(leaf.module, "[jit]");
    jit += stack.samples;
    series |= IsFunction(leaf, "series");
  }
  EXPECT_GT(jit * 10, profile.total_samples * 8) << Warnings(profile);
  EXPECT_TRUE(series);
}

// A collector without JITSCOPE_OUTPUT_DIR writes its trace into the working directory, where
// perf.data goes too: the traces of the recording's processes beside it are read without --jit.
TEST(PerfDataE2eTest, CollectorTracesBesideThePerfDataNameTheCode) {
  TempDir tmp;
  const std::string data = RecordJitvm(tmp, "beside", {"-k", "1", "-g"}, "trace");
  const std::string moved = tmp.path() + "/beside.jit/perf.data";
  ASSERT_EQ(std::rename(data.c_str(), moved.c_str()), 0);
  ExpectSeriesIsHot(Build(moved), /*lines=*/true);
}

// JITSCOPE_FORMATS=trace,jitdump under perf record, reported as a user does (`jitscope report
// perf.data` in the directory): the trace supersedes its jitdump, and its inline frames show. The
// trace was found as ./jit-<pid>.jsc and the jitdump by perf's absolute path, and both were read:
// frames named by the jitdump, "inline region(s) never found their parent's code", no inline frame.
TEST(PerfDataE2eTest, TheTraceSupersedesItsJitdumpWhenReportedFromItsDirectory) {
  TempDir tmp;
  const std::string data = RecordJitvm(tmp, "both", {"-k", "1", "-g"}, "trace,jitdump");
  const std::string dir = tmp.path() + "/both.jit";
  ASSERT_EQ(std::rename(data.c_str(), (dir + "/perf.data").c_str()), 0);
  auto report =
      RunProgram({JITSCOPE_CLI, "report", "perf.data", "--format", "folded"}, {}, {.cwd = dir});
  ASSERT_TRUE(report.ok()) << report.Describe();
  EXPECT_EQ(report.err.find("never found their parent"), std::string::npos) << report.err;
  EXPECT_NE(report.out.find("_[i]"), std::string::npos) << report.out.substr(0, 2000);
  EXPECT_EQ(report.out.find("jitvm-baseline!"), std::string::npos) << report.out.substr(0, 2000);
}

// jitscope annotate reads a perf.data as report does: the collector's trace beside it gives the
// code bytes, and series' two tiers are annotated apart, each with samples on its instructions.
TEST(PerfDataE2eTest, AnnotateShowsTheHotInstructionsOfAPerfData) {
  TempDir tmp;
  const std::string data = RecordJitvm(tmp, "annotate", {"-k", "1"}, "trace");
  const std::string moved = tmp.path() + "/annotate.jit/perf.data";
  ASSERT_EQ(std::rename(data.c_str(), moved.c_str()), 0);
  auto run = RunProgram({JITSCOPE_CLI, "annotate", moved, "series", "--sort", "offset"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("## series (jitvm-optimized), method #"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("## series (jitvm-baseline), method #"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("(bad)"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("no sample landed"), std::string::npos) << run.out;
  // Without -k 1 the times are perf's own clock: the latest code names each sample, as in report.
  const std::string nok = RecordJitvm(tmp, "nok", {}, "trace");
  const std::string nok_moved = tmp.path() + "/nok.jit/perf.data";
  ASSERT_EQ(std::rename(nok.c_str(), nok_moved.c_str()), 0);
  auto latest = RunProgram({JITSCOPE_CLI, "annotate", nok_moved, "--top", "1"});
  ASSERT_EQ(latest.exit_code, 0) << latest.err;
  EXPECT_NE(latest.out.find("## series (jitvm-"), std::string::npos) << latest.out;
  EXPECT_NE(latest.out.find("not CLOCK_MONOTONIC"), std::string::npos) << latest.out;
}

TEST(PerfDataE2eTest, CompressedRecordingGivesTheSameNames) {
  TempDir tmp;
  const std::string data = RecordJitvm(tmp, "z", {"-z", "-k", "1", "-g"}, "jitdump");
  const Profile profile = Build(data);
  ExpectSeriesIsHot(profile);
  ExpectMainCallsSeries(profile);
}

TEST(PerfDataE2eTest, WithoutMonotonicTimesTheLatestCodeNamesItAndTheReportSaysSo) {
  TempDir tmp;
  const std::string data = RecordJitvm(tmp, "nok", {"-g"}, "jitdump");
  const Profile profile = Build(data);
  ExpectSeriesIsHot(profile);
  EXPECT_EQ(std::count(profile.warnings.begin(), profile.warnings.end(), kNotMonotonic), 1)
      << Warnings(profile);
}

// Every output format, through the command as a user runs it, positional and with -i.
TEST(PerfDataE2eTest, EveryFormatIsWrittenFromAPerfData) {
  TempDir tmp;
  const std::string data = RecordJitvm(tmp, "formats", {"-k", "1", "-g"}, "jitdump");
  auto text = RunProgram({JITSCOPE_CLI, "report", data});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("series"), std::string::npos) << text.out;
  auto same = RunProgram({JITSCOPE_CLI, "report", "-i", data});
  EXPECT_EQ(same.out, text.out);
  auto folded = RunProgram({JITSCOPE_CLI, "report", "-i", data, "--format", "folded"});
  ASSERT_EQ(folded.exit_code, 0) << folded.err;
  EXPECT_NE(folded.out.find("!main_[j];jitvm-baseline!series_[j] "), std::string::npos)
      << folded.out;
  for (const char* format : {"svg", "speedscope", "pprof"}) {
    const std::string out = tmp.path() + "/out." + format;
    auto result = RunProgram({JITSCOPE_CLI, "report", "-i", data, "--format", format, "-o", out});
    EXPECT_EQ(result.exit_code, 0) << format << ": " << result.err;
    struct stat st {};
    EXPECT_EQ(::stat(out.c_str(), &st), 0) << format;
    EXPECT_GT(st.st_size, 100) << format;
  }
}

// `perf record --call-graph dwarf` of `argv`, then `jitscope report --format folded`: of the
// samples whose leaf is `leaf`, at least 95% are walked from the thread's entry through `path`.
void ExpectDwarfWalksFromTheEntry(const std::vector<std::string>& argv, const std::string& leaf,
                                  const std::vector<std::string>& path, uint64_t at_least) {
  TempDir tmp;
  const std::string data = tmp.path() + "/dwarf.data";
  // perf keeps the vDSO's image in its build-id cache, where report finds it: a HOME of the
  // test's own makes that cache this recording's, whatever earlier perf runs left in the real one.
  const std::map<std::string, std::string> home = {{"HOME", tmp.path()}};
  std::vector<std::string> record = {PERF_PROGRAM, "record",    "-q", "-k",  "1",
                                     "-e",         "cpu-clock", "-F", "999", "--call-graph",
                                     "dwarf",      "-o",        data, "--"};
  record.insert(record.end(), argv.begin(), argv.end());
  auto recorded = RunProgram(record, home);
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  auto folded = RunProgram({JITSCOPE_CLI, "report", data, "--format", "folded"}, home);
  ASSERT_EQ(folded.exit_code, 0) << folded.err;
  const WalkShare share =
      ShareWalkedThrough(ParseFolded(folded.out), leaf, path, /*from_entry=*/true);
  ASSERT_GT(share.total, at_least) << folded.out;
  EXPECT_GE(share.complete * 100, share.total * 95)
      << share.complete << " of " << share.total << "\n"
      << folded.out;
}

// perf's register and stack copies unwound by jitscope's own unwinder, through a program without
// frame pointers, up to its entry.
TEST(PerfDataE2eTest, DwarfStacksAreUnwoundToTheEntry) {
  ExpectDwarfWalksFromTheEntry({NO_FRAME_POINTERS, "0.4"}, "inner",
                               {"main", "outer", "middle", "inner"}, 100);
}

// perf's copies too small for the stacks: the report says how many walks they cut short and how
// to record more of each stack with perf.
TEST(PerfDataE2eTest, WalksCutShortByPerfsStackCopiesComeWithAdvice) {
  TempDir tmp;
  const std::string data = tmp.path() + "/dwarf.data";
  auto recorded =
      RunProgram({PERF_PROGRAM, "record", "-q", "-k", "1", "-e", "cpu-clock", "-F", "999",
                  "--call-graph", "dwarf,64", "-o", data, "--", NO_FRAME_POINTERS, "0.4"},
                 {{"HOME", tmp.path()}});
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  const Profile profile = Build(data);
  uint64_t walks = 0, short_walks = 0;
  for (const auto& [reason, count] : profile.unwind_stops) {
    walks += count;
    if (reason == "stack copy too short") short_walks = count;
  }
  ASSERT_GT(short_walks * 2, walks) << Warnings(profile);
  const std::string advice = fmt::format(
      "{} of {} walks ({:.1f}%) ran out of the 64-byte stack copies before the thread's entry: "
      "'perf record --call-graph dwarf,65528' copies more of each stack (every sample then takes "
      "up to 1024 times the disk while recording)",
      short_walks, walks, 100.0 * static_cast<double>(short_walks) / static_cast<double>(walks));
  EXPECT_NE(std::find(profile.warnings.begin(), profile.warnings.end(), advice),
            profile.warnings.end())
      << Warnings(profile);
}

// Samples in clock_gettime are in the vDSO, whose CFI comes from the image perf kept in its
// build-id cache (~/.debug/[vdso]/<build id>/vdso): the walks go on through it to the program's
// entry.
TEST(PerfDataE2eTest, DwarfStacksAreUnwoundOutOfTheVdso) {
  ExpectDwarfWalksFromTheEntry({CLOCK_LOOP, "0.3"}, "[vdso]", {"main", "spin"}, 50);
}

// Node.js --perf-prof writes and maps its own jitdump, in its working directory: found through
// the MMAP2 of jit-<pid>.dump, it names the hot JS function as V8 does (`*`: optimized code).
TEST(PerfDataE2eTest, NodePerfProfNamesTheHotJsFunction) {
  TempDir tmp;
  const std::string script = tmp.path() + "/hot.js";
  std::ofstream(script) << "function fibonacciHot(n) {\n"
                           "  return n < 2 ? n : fibonacciHot(n - 1) + fibonacciHot(n - 2);\n"
                           "}\n"
                        << test_support::kJsCpuSeconds
                        << "let total = 0;\n"
                           "while (cpuSeconds() < 1) total += fibonacciHot(30);\n"
                           "console.log(total);\n";
  const std::string data = tmp.path() + "/node.data";
  auto record = RunProgram({"/bin/sh", "-c",
                            "cd " + tmp.path() + " && " + PERF_PROGRAM +
                                " record -q -N -k 1 -g -e cpu-clock -F 999 -o " + data + " -- " +
                                NODE_PROGRAM + " --perf-prof hot.js"});
  ASSERT_EQ(record.exit_code, 0) << record.err;
  const Profile profile = Build(data);
  ASSERT_GT(profile.total_samples, 100u) << Warnings(profile);
  std::map<std::string, uint64_t> jit_self;
  for (const Stack& stack : profile.stacks) {
    const Location& leaf = profile.locations[stack.frames.front()];
    if (leaf.kind == FrameKind::kJit) jit_self[leaf.function] += stack.samples;
  }
  const auto top = std::max_element(jit_self.begin(), jit_self.end(),
                                    [](auto& a, auto& b) { return a.second < b.second; });
  ASSERT_NE(top, jit_self.end()) << Warnings(profile);
  EXPECT_TRUE(test_support::IsV8CodeOf(top->first, '*', "fibonacciHot", script, 1, 22))
      << top->first;
  // Node's start-up takes a good part of so short a run: the script runs until node has used a
  // second of CPU time, of which the function has two thirds.
  EXPECT_GT(top->second * 3, profile.total_samples) << Warnings(profile);
}

TEST(PerfDataE2eTest, PipeModeAndOtherFilesAreRefusedClearly) {
  TempDir tmp;
  const std::string pipe = tmp.path() + "/pipe.data";
  auto record =
      RunProgram({"/bin/sh", "-c",
                  std::string(PERF_PROGRAM) + " record -q -e cpu-clock -o - -- true > " + pipe});
  ASSERT_EQ(record.exit_code, 0) << record.err;
  auto result = RunProgram({JITSCOPE_CLI, "report", "-i", pipe});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err, "jitscope report: error: " + pipe +
                            ": a pipe-mode perf.data (perf record -o -, or piped); jitscope reads "
                            "files perf wrote in file mode (perf record -o FILE)\n");
  const std::string text = tmp.path() + "/notes.txt";
  std::ofstream(text) << "not a recording\n";
  result = RunProgram({JITSCOPE_CLI, "report", text});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err, "jitscope report: error: " + text +
                            ": neither a session directory (jitscope record) nor a perf.data file "
                            "(perf record)\n");
}

}  // namespace
}  // namespace jitscope::report
