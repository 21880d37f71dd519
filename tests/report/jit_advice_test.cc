// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/report/jit_advice.h"

#include <gtest/gtest.h>

namespace jitscope::report {
namespace {

std::vector<session::Mapping> Mapped(std::vector<std::string> files) {
  std::vector<session::Mapping> mappings;
  for (std::string& file : files) mappings.push_back({.filename = std::move(file), .build_id = {}});
  return mappings;
}

TEST(JitAdviceTest, TheEngineIsJudgedByTheProgramAndItsLibraries) {
  EXPECT_EQ(HowToReportJitCode("/usr/bin/node", {}),
            "run node with --perf-prof (or --perf-basic-prof)");
  EXPECT_EQ(HowToReportJitCode("./app", Mapped({"/usr/lib/x86_64-linux-gnu/libnode.so.108"})),
            "run node with --perf-prof (or --perf-basic-prof)");
  const std::string java =
      "start java with -agentpath:<jitscope>/lib/libjvmti_opagent.so (jitscope's JVMTI agent), or "
      "with -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit; a running JVM: jitscope "
      "record -p PID --jvm-agent (or --jvm-perf-map)";
  EXPECT_EQ(HowToReportJitCode("java", {}), java);
  EXPECT_EQ(HowToReportJitCode("/opt/app/bin/server",
                               Mapped({"/usr/lib/jvm/java-17/lib/server/libjvm.so"})),
            java);
  const std::string postgres =
      "set jit_profiling_support = on in PostgreSQL (LLVM engines: register LLVM's perf or "
      "Intel JIT event listener)";
  EXPECT_EQ(HowToReportJitCode("/usr/lib/postgresql/15/bin/postgres", {}), postgres);
  EXPECT_EQ(HowToReportJitCode("psql-runner", Mapped({"/usr/lib/postgresql/15/lib/llvmjit.so"})),
            postgres);
  EXPECT_EQ(HowToReportJitCode("./bench", Mapped({"/usr/lib/libdnnl.so.3"})),
            "set DNNL_JIT_PROFILE=1 (or ONEDNN_JIT_PROFILE=1) for oneDNN");
  EXPECT_EQ(HowToReportJitCode("./my-vm", Mapped({"/usr/lib/x86_64-linux-gnu/libc.so.6"})),
            "switch on the engine's JIT reporting (an engine that uses the Intel JIT Profiling "
            "API needs no switch: jitscope record sets INTEL_JIT_PROFILER64; others write a perf "
            "map or jitdump when asked)");
}

TEST(JitAdviceTest, UnnamedJitCodeAboveOnePercentIsOneLine) {
  EXPECT_EQ(DescribeUnnamedJitCode(0, 0, "node", {}), "");
  EXPECT_EQ(DescribeUnnamedJitCode(1, 100, "node", {}), "");  // exactly 1%: not more
  EXPECT_EQ(DescribeUnnamedJitCode(2, 100, "node", {}),
            "2.0% of samples (2) are in anonymous executable memory that no JIT file names: "
            "code a JIT did not report; to name it, run node with --perf-prof (or "
            "--perf-basic-prof)");
}

// A JIT that wrote its jitdump did report its code: what the line says is that the file is gone.
TEST(JitAdviceTest, UnnamedJitCodeOfAJitdumpThatIsGoneSaysSo) {
  EXPECT_EQ(DescribeUnnamedJitCode(518, 1000, "node", {}, {"/home/me/app/jit-4321.dump"}),
            "51.8% of samples (518) are in anonymous executable memory that no JIT file names: "
            "the JIT wrote /home/me/app/jit-4321.dump, which is no longer there and not kept in "
            "the session (moved or deleted since the recording); to name its code, give the "
            "jitdump's new place with --jit PATH");
  EXPECT_EQ(DescribeUnnamedJitCode(2, 100, "lli", {}, {"/a/jit-1.dump", "/b/jit-2.dump"}),
            "2.0% of samples (2) are in anonymous executable memory that no JIT file names: the "
            "JIT wrote /a/jit-1.dump and 1 other jitdump, which are no longer there and not kept "
            "in the session (moved or deleted since the recording); to name its code, give the "
            "jitdump's new place with --jit PATH");
}

}  // namespace
}  // namespace jitscope::report
