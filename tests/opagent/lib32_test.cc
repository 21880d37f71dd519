// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// libopagent.so.1 for i386 (issue 10): a 32-bit engine (lib32_client.c, built here with
// `cc -m32` against build/lib32/libopagent.so.1) reports through op_*; the 64-bit `jitscope dump`
// and `jitscope resolve` read its OProfile dump, written in i386's struct layout (28-byte header,
// 4-byte line vma: fact sheet perf-jitdump-oprofile.md §4.3), and its jitscope trace, exactly.
#include <cstdio>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../support/subprocess.h"

namespace jitscope {
namespace {

using test_support::ProcessResult;
using test_support::RunProgram;
using test_support::TempDir;

#if defined(JITSCOPE_LIB32_DIR) || defined(JITSCOPE_LIB32_UNAVAILABLE)

std::string Hex(unsigned long long value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%#llx", value);
  return text;
}

// Drops what differs from run to run and is not the engine's report: times (OProfile's are
// wall-clock seconds, the trace's CLOCK_MONOTONIC ns), thread ids and the trace's start time.
std::string Normalise(const std::string& text) {
  std::string out = std::regex_replace(text, std::regex("(^|\n)[0-9]+ (tid=[0-9]+ )?"), "$1T ");
  out = std::regex_replace(out, std::regex("timestamp=[0-9]+"), "timestamp=T");
  return std::regex_replace(out, std::regex("start_monotonic_ns=[0-9]+"), "start_monotonic_ns=T");
}

class Lib32Opagent : public ::testing::Test {
 protected:
  void SetUp() override {
#ifdef JITSCOPE_LIB32_UNAVAILABLE
    GTEST_FAIL() << JITSCOPE_LIB32_UNAVAILABLE;
#else
    client_ = dir_.path() + "/opagent_client_i386";
    // As an engine links the library: -lopagent from lib32/, found at run time by its RUNPATH.
    const ProcessResult build = RunProgram(
        {JITSCOPE_PLAIN_CC, "-m32", "-std=c99", "-Wall", "-Wextra", "-Werror",
         "-I" JITSCOPE_SOURCE_DIR "/include", JITSCOPE_LIB32_CLIENT_SOURCE, "-L" JITSCOPE_LIB32_DIR,
         "-lopagent", "-Wl,-rpath," JITSCOPE_LIB32_DIR, "-o", client_});
    ASSERT_EQ(build.exit_code, 0) << build.err;
    const ProcessResult run = RunProgram({client_}, {{"JITSCOPE_OPAGENT_DIR", dir_.path()},
                                                     {"JITSCOPE_OUTPUT_DIR", dir_.path()},
                                                     {"JITSCOPE_LOG", dir_.path() + "/log"}});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    long pid = 0;
    ASSERT_EQ(std::sscanf(run.out.c_str(), "base=%llx pid=%ld", &base_, &pid), 2) << run.out;
    pid_ = std::to_string(pid);
#endif
  }

  std::string At(unsigned offset) const { return Hex(base_ + offset); }
  std::string DumpPath() const { return dir_.path() + "/" + pid_ + ".dump"; }
  std::string TracePath() const { return dir_.path() + "/jit-" + pid_ + ".jsc"; }

  // `jitscope resolve <source> -- <queries>`: stdout, after checking the exit code.
  std::string Resolve(const std::string& source, const std::vector<std::string>& queries) {
    std::vector<std::string> argv = {JITSCOPE_CLI, "resolve", source, "--"};
    argv.insert(argv.end(), queries.begin(), queries.end());
    const ProcessResult result = RunProgram(argv);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return result.out;
  }

  TempDir dir_;
  std::string client_;
  unsigned long long base_ = 0;
  std::string pid_;
};

TEST_F(Lib32Opagent, JitscopeDumpReadsTheI386OprofileDump) {
  const ProcessResult dump = RunProgram({JITSCOPE_CLI, "dump", DumpPath()});
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  EXPECT_EQ(Normalise(dump.out),
            "# oprofile jit dump v1 target=\"elf32-i386\" bfd_arch=8 bfd_mach=4 timestamp=T\n"
            "T CODE_LOAD vma=" +
                At(0) + " code_addr=" + At(0) +
                " size=32 code_bytes=32 name=\"Hot.loop()V\"\n"
                "T DEBUG_INFO code_addr=" +
                At(0) + " lines=[" + At(0) + ":10:\"Hot.java\" " + At(8) + ":12:\"Hot.java\" " +
                At(16) +
                ":20:\"util/Util.java\"]\n"
                "T CODE_LOAD vma=" +
                At(64) +
                " code_addr=0x0 size=16 code_bytes=0 name=\"interpreter_stub\"\n"
                "T CODE_LOAD vma=" +
                At(128) + " code_addr=" + At(128) +
                " size=16 code_bytes=16 name=\"Old.gone()V\"\n"
                "T UNLOAD vma=" +
                At(128) +
                "\n"
                "T CLOSE\n"
                "# 6 records\n");
}

TEST_F(Lib32Opagent, JitscopeDumpReadsTheI386ProcessTrace) {
  const ProcessResult dump = RunProgram({JITSCOPE_CLI, "dump", TracePath()});
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  EXPECT_EQ(Normalise(dump.out),
            "# jitscope trace v1 pid=" + pid_ + " exe=\"" + client_ +
                "\" start_monotonic_ns=T\n"
                "T op_open_agent agent=1\n"
                "T op_write_native_code agent=1 addr=" +
                At(0) + " size=32 code_addr=" + At(0) +
                " code_bytes=32 name=\"Hot.loop()V\"\n"
                "T op_write_debug_line_info agent=1 addr=" +
                At(0) + " size=32 code_addr=" + At(0) + " lines=[" + At(0) + ":10:\"Hot.java\" " +
                At(8) + ":12:\"Hot.java\" " + At(16) +
                ":20:\"util/Util.java\"]\n"
                "T op_write_native_code agent=1 addr=" +
                At(64) +
                " size=16 code_addr=0x0 code_bytes=0 name=\"interpreter_stub\"\n"
                "T op_write_native_code agent=1 addr=" +
                At(128) + " size=16 code_addr=" + At(128) +
                " code_bytes=16 name=\"Old.gone()V\"\n"
                "T op_unload_native_code agent=1 addr=" +
                At(128) +
                " size=16\n"
                "T op_close_agent agent=1\n"
                "# 7 records\n");
}

// Both files give the same answers: names, the line of the entry at or before the address (in
// the file that entry names), nothing past the code's end.
TEST_F(Lib32Opagent, JitscopeResolveReadsTheDumpAndTheTraceAlike) {
  const std::vector<std::string> queries = {At(0), At(9), At(31), At(32), At(70)};
  const std::string expected =
      At(0) + ": Hot.loop()V at Hot.java:10\n" + At(9) + ": Hot.loop()V at Hot.java:12\n" + At(31) +
      ": Hot.loop()V at util/Util.java:20\n" + At(32) + ": ??\n" + At(70) + ": interpreter_stub\n";
  EXPECT_EQ(Resolve(DumpPath(), queries), expected);
  EXPECT_EQ(Resolve(TracePath(), queries), expected);
}

#endif

}  // namespace
}  // namespace jitscope
