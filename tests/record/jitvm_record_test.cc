// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// End-to-end: `jitscope record` on the example JIT's hot-spot program. The collector's trace and
// the samples land in one session directory, on one clock: most samples of the hot-spot program
// fall into JIT code the trace says was loaded at that address before the sample was taken.
#include <asm/perf_regs.h>
#include <linux/perf_event.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/session/samples_file.h"
#include "jitscope/trace/reader.h"
#include "support/process.h"
#include "support/temp_dir.h"
#include "support/traces.h"

namespace jitscope::record {
namespace {

// The session files this test reads back (session/samples_file.h, session/session_info.h).
using session::kSamplesFileName;
using session::ReadSamplesFile;
using session::Sample;
using session::SampleData;

struct Region {
  uint64_t loaded_ns, start, end;
};

TEST(JitvmRecordTest, SamplesLandInJitCodeLoadedBeforeThem) {
  test_support::TempDir tmp;
  const std::string dir = tmp.path() + "/session";
  auto result = test_support::RunProgram({JITSCOPE_CLI, "record", "-o", dir, "--", JITVM,
                                          "--repeat-for=0.4", JITVM_PROGRAMS "/hotspot.jv", "100"});
  ASSERT_EQ(result.exit_code, 0) << result.err;

  const base::StatusOr<std::string> trace_path = test_support::FindTrace(dir);
  ASSERT_TRUE(trace_path.ok()) << trace_path.status().message();
  base::StatusOr<trace::TraceFile> trace = trace::TraceFile::Open(*trace_path);
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  std::vector<Region> regions;
  for (const trace::Record& record : trace->trace().records) {
    if (const auto* code = std::get_if<trace::CodeEvent>(&record.event); code && code->size > 0) {
      regions.push_back({record.timestamp, code->address, code->address + code->size});
    }
  }
  ASSERT_FALSE(regions.empty());

  base::StatusOr<SampleData> data = ReadSamplesFile(dir + "/" + kSamplesFileName);
  ASSERT_TRUE(data.ok()) << data.status().message();
  // Of the samples in user space: the kernel's share (page faults, which cost a lot on some
  // virtual machines) and a sanitizer's start-up and leak scan vary with the build and machine;
  // JIT code runs uninstrumented, so a long enough run is mostly JIT code in every build.
  size_t total = 0, in_jit = 0;
  for (const Sample& sample : data->samples) {
    if (sample.ip >= 0xffff800000000000ull) continue;
    ++total;
    for (const Region& region : regions) {
      if (sample.ip >= region.start && sample.ip < region.end &&
          region.loaded_ns <= sample.time_ns) {
        ++in_jit;
        break;
      }
    }
  }
  ASSERT_GT(total, 100u);
  EXPECT_GT(in_jit * 2, total) << in_jit << " of " << total << " user-space samples in JIT code";
}

// --call-graph dwarf --keep-stacks: every sample of the JIT carries its user registers, the
// valid part of a 32 KiB stack copy and the kernel's call chain, and the session keeps the vDSO.
TEST(JitvmRecordTest, DwarfCallGraphSamplesCarryRegistersAndStack) {
  test_support::TempDir tmp;
  const std::string dir = tmp.path() + "/session";
  auto result = test_support::RunProgram({JITSCOPE_CLI, "record", "--call-graph", "dwarf",
                                          "--keep-stacks", "-o", dir, "--", JITVM,
                                          "--repeat-for=0.3", JITVM_PROGRAMS "/hotspot.jv", "100"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  base::StatusOr<SampleData> data = ReadSamplesFile(dir + "/" + kSamplesFileName);
  ASSERT_TRUE(data.ok()) << data.status().message();
  EXPECT_EQ(data->format,
            (session::SamplesFormat{{session::kDwarfSampleType, session::kX86_64RegsMask}, 32768}));
  size_t user = 0;
  for (const Sample& sample : data->samples) {
    ASSERT_EQ(sample.regs.abi, static_cast<uint64_t>(PERF_SAMPLE_REGS_ABI_64));
    ASSERT_EQ(sample.regs.mask, session::kX86_64RegsMask);
    // The kernel copies at most what was asked, from the user stack pointer up.
    ASSERT_LE(sample.stack.size(), 32768u);
    // The kernel's frame-pointer chain comes too, for a walk that stops (sample_walker.h).
    ASSERT_FALSE(sample.callchain.empty());
    if (sample.callchain.front().kernel)
      continue;  // sampled in the kernel: regs are its user state
    ++user;
    EXPECT_EQ(sample.callchain.front().ip, sample.ip);
    EXPECT_EQ(sample.regs.values[PERF_REG_X86_IP], sample.ip);
    EXPECT_GT(sample.stack.size(), 0u);
  }
  EXPECT_GT(user, 100u);
  struct stat st {};
  ASSERT_EQ(::stat((dir + "/" + session::kVdsoFileName).c_str(), &st), 0);
  EXPECT_GE(st.st_size, 4096);
  EXPECT_EQ(st.st_size % 4096, 0);
}

// The default, --call-graph dwarf without --keep-stacks: the samples are unwound when the
// recording ends, and the session keeps their stacks, each with how its walk ended, instead of
// their stack copies.
TEST(JitvmRecordTest, DwarfCallGraphIsTheDefaultAndUnwoundWhenTheRecordingEnds) {
  test_support::TempDir tmp;
  const std::string dir = tmp.path() + "/session";
  auto result = test_support::RunProgram({JITSCOPE_CLI, "record", "-o", dir, "--", JITVM,
                                          "--no-frame-pointers", "--repeat-for=0.3",
                                          JITVM_PROGRAMS "/hotspot.jv", "100"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  base::StatusOr<SampleData> data = ReadSamplesFile(dir + "/" + kSamplesFileName);
  ASSERT_TRUE(data.ok()) << data.status().message();
  EXPECT_TRUE(data->format.layout.unwound);
  EXPECT_EQ(data->format.stack_size, 32768u);
  size_t complete = 0;
  for (const Sample& sample : data->samples) {
    ASSERT_TRUE(sample.walk_end.has_value());
    ASSERT_TRUE(sample.stack.empty());
    if (sample.walk_end == 0) ++complete;  // unwind::StopReason::kOutermost
  }
  ASSERT_GT(data->samples.size(), 100u);
  // Most walks reach the entry (under ASan, fewer: its runtime's start-up is sampled too, and its
  // walks end in the dynamic loader); how complete they are is jit_unwind_e2e_test's subject.
  EXPECT_GT(complete * 2, data->samples.size()) << complete << " of " << data->samples.size();
  // What record says: how many samples, and how their walks ended, the same counts as the file.
  const std::string said =
      "jitscope record: unwound " + std::to_string(data->samples.size()) + " samples in ";
  EXPECT_NE(result.err.find(said), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("(" + std::to_string(complete) + " end of stack"), std::string::npos)
      << result.err;
  EXPECT_EQ(result.err.find("warning"), std::string::npos) << result.err;
}

// --keep-stacks means nothing without stack copies: a mistake, said before the command runs.
TEST(JitvmRecordTest, KeepStacksNeedsDwarf) {
  test_support::TempDir tmp;
  auto result =
      test_support::RunProgram({JITSCOPE_CLI, "record", "--call-graph", "fp", "--keep-stacks", "-o",
                                tmp.path() + "/session", "--", "true"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.err,
            "jitscope record: error: --keep-stacks applies to --call-graph dwarf: an fp session "
            "keeps no stack copies\nRun 'jitscope record --help' for usage.\n");
}

// The library is preloaded into a command record starts; a running process has long registered
// its tables.
TEST(JitvmRecordTest, RegisteredFramesNeedACommandToStart) {
  test_support::TempDir tmp;
  auto result = test_support::RunProgram({JITSCOPE_CLI, "record", "--registered-frames", "-p",
                                          std::to_string(::getpid()), "-o", tmp.path() + "/session",
                                          "--", "true"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.err,
            "jitscope record: error: --registered-frames applies to a command record starts: a "
            "running process registered its tables before the recording\nRun 'jitscope record "
            "--help' for usage.\n");
  EXPECT_FALSE(std::filesystem::exists(tmp.path() + "/session"));
}

// The library is preloaded before what the command's environment preloads already (the tables
// it keeps are read by report: jit_unwind_e2e_test.cc).
TEST(JitvmRecordTest, RegisteredFramesPreloadsTheLibraryIntoTheCommand) {
  test_support::TempDir tmp;
  const std::string dir = tmp.path() + "/session";
  auto result = test_support::RunProgram({JITSCOPE_CLI, "record", "--registered-frames", "-o", dir,
                                          "--", "/bin/sh", "-c", "echo \"$LD_PRELOAD\""},
                                         {{"LD_PRELOAD", "libm.so.6"}});
  ASSERT_EQ(result.exit_code, 0) << result.Describe();
  const std::string library = std::filesystem::canonical(JITSCOPE_FRAMES).string();
  EXPECT_EQ(result.out, library + ":libm.so.6\n");
}

}  // namespace
}  // namespace jitscope::record
