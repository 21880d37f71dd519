// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// libopagent.so.1 for i386: a 32-bit engine (lib32_client.c, built here with
// `cc -m32` against build/lib32/libopagent.so.1) reports through op_*; the 64-bit `jitscope dump`
// and `jitscope resolve` read its OProfile dump, written in i386's struct layout (28-byte header,
// 4-byte line vma: OProfile's jitdump.h), and its jitscope trace, exactly.
#include <cstdio>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/hex.h"
#include "support/i386_kernel.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace jitscope {
namespace {

using test_support::ProcessResult;
using test_support::RunProgram;
using test_support::TempDir;

#if defined(JITSCOPE_LIB32_DIR) || defined(JITSCOPE_LIB32_UNAVAILABLE)

using test_support::Hex;

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
    if (!test_support::KernelRunsI386Programs()) GTEST_SKIP() << test_support::kNoI386Kernel;
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

  // `text` without what differs from run to run and is not the engine's report: times
  // (OProfile's are wall-clock seconds, the trace's CLOCK_MONOTONIC ns) become T, thread ids go,
  // and addresses in the client's code buffer (where ASLR put it) become code+OFFSET.
  std::string Symbolic(const std::string& text) const {
    std::string out = std::regex_replace(text, std::regex("(^|\n)[0-9]+ (tid=[0-9]+ )?"), "$1T ");
    out = std::regex_replace(out, std::regex("(timestamp|start_monotonic_ns)=[0-9]+"), "$1=T");
    std::string symbolic;
    const std::regex hex("0x[0-9a-f]+");
    auto last = out.cbegin();
    for (std::sregex_iterator it(out.begin(), out.end(), hex), end; it != end; ++it) {
      symbolic.append(last, (*it)[0].first);
      const unsigned long long value = std::stoull(it->str(), nullptr, 16);
      symbolic += value >= base_ && value < base_ + 256 ? "code+" + std::to_string(value - base_)
                                                        : it->str();
      last = (*it)[0].second;
    }
    return symbolic.append(last, out.cend());
  }

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
  EXPECT_EQ(Symbolic(dump.out),
            R"(# oprofile jit dump v1 target="elf32-i386" bfd_arch=8 bfd_mach=4 timestamp=T
T CODE_LOAD vma=code+0 code_addr=code+0 size=32 code_bytes=32 name="Hot.loop()V"
T DEBUG_INFO code_addr=code+0 lines=[code+0:10:"Hot.java" code+8:12:"Hot.java" code+16:20:"util/Util.java"]
T CODE_LOAD vma=code+64 code_addr=0x0 size=16 code_bytes=0 name="interpreter_stub"
T CODE_LOAD vma=code+128 code_addr=code+128 size=16 code_bytes=16 name="Old.gone()V"
T UNLOAD vma=code+128
T CLOSE
# 6 records
)");
}

TEST_F(Lib32Opagent, JitscopeDumpReadsTheI386ProcessTrace) {
  const ProcessResult dump = RunProgram({JITSCOPE_CLI, "dump", TracePath()});
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  EXPECT_EQ(Symbolic(dump.out), "# jitscope trace v2 pid=" + pid_ + " exe=\"" + client_ +
                                    "\" start_monotonic_ns=T\n" +
                                    R"(T op_open_agent agent=1
T op_write_native_code agent=1 addr=code+0 size=32 code_addr=code+0 code_bytes=32 name="Hot.loop()V"
T op_write_debug_line_info agent=1 addr=code+0 size=32 code_addr=code+0 lines=[code+0:10:"Hot.java" code+8:12:"Hot.java" code+16:20:"util/Util.java"]
T op_write_native_code agent=1 addr=code+64 size=16 code_addr=0x0 code_bytes=0 name="interpreter_stub"
T op_write_native_code agent=1 addr=code+128 size=16 code_addr=code+128 code_bytes=16 name="Old.gone()V"
T op_unload_native_code agent=1 addr=code+128 size=16
T op_close_agent agent=1
# 7 records
)");
}

// Both files give the same answers: names, the line of the entry at or before the address (in
// the file that entry names), nothing past the code's end.
TEST_F(Lib32Opagent, JitscopeResolveReadsTheDumpAndTheTraceAlike) {
  const std::vector<std::string> queries = {At(0), At(9), At(31), At(32), At(70)};
  const std::string expected = R"(code+0: Hot.loop()V at Hot.java:10
code+9: Hot.loop()V at Hot.java:12
code+31: Hot.loop()V at util/Util.java:20
code+32: ??
code+70: interpreter_stub
)";
  EXPECT_EQ(Symbolic(Resolve(DumpPath(), queries)), expected);
  EXPECT_EQ(Symbolic(Resolve(TracePath(), queries)), expected);
}

#endif

}  // namespace
}  // namespace jitscope
