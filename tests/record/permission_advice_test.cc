// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The permission messages of `record` with injected facts: each names the setting or capability
// that is missing, with its value.
#include "jitscope/record/permission_advice.h"

#include <cerrno>

#include <gtest/gtest.h>

namespace jitscope::record {
namespace {

constexpr uint64_t Cap(int capability) { return uint64_t{1} << capability; }

TEST(PermissionAdviceTest, ParanoidLevelWithoutCapabilities) {
  const PermissionFacts facts{3, 1, 0, 1000, std::nullopt};
  EXPECT_EQ(PerfEventRefusal(facts, 0),
            "sampling is not permitted: perf_event_open was refused (kernel.perf_event_paranoid "
            "= 3; jitscope has neither CAP_PERFMON nor CAP_SYS_ADMIN). Profiling your own "
            "processes needs perf_event_paranoid <= 2 (user-space only) or <= 1 (with kernel "
            "frames). Fix: 'sudo sysctl kernel.perf_event_paranoid=1', or run jitscope with "
            "CAP_PERFMON ('sudo setcap cap_perfmon+ep $(command -v jitscope)'). In a container, "
            "the runtime's seccomp profile must also allow perf_event_open.");
  const PermissionFacts unknown{std::nullopt, std::nullopt, Cap(kCapSysPtrace), 0, std::nullopt};
  EXPECT_NE(PerfEventRefusal(unknown, 0).find("(kernel.perf_event_paranoid = unknown; "),
            std::string::npos);
}

TEST(PermissionAdviceTest, EveryProcess) {
  const PermissionFacts facts{2, 1, 0, 1000, std::nullopt};
  EXPECT_EQ(PerfEventRefusal(facts, -1),
            "sampling is not permitted: perf_event_open was refused (kernel.perf_event_paranoid "
            "= 2; jitscope has neither CAP_PERFMON nor CAP_SYS_ADMIN). Sampling every process "
            "(record -a) needs perf_event_paranoid <= 0, or CAP_PERFMON. Fix: 'sudo sysctl "
            "kernel.perf_event_paranoid=0', or run jitscope with CAP_PERFMON ('sudo setcap "
            "cap_perfmon+ep $(command -v jitscope)'). In a container, the runtime's seccomp "
            "profile must also allow perf_event_open.");
}

// record --off-cpu's samples are the kernel's: level 2 refuses them, and no fallback helps.
TEST(PermissionAdviceTest, OffCpuNeedsKernelSamples) {
  const PermissionFacts facts{2, 1, 0, 1000, std::nullopt};
  EXPECT_EQ(OffCpuRefusal(facts, 0),
            "record --off-cpu is not permitted: perf_event_open was refused "
            "(kernel.perf_event_paranoid = 2; jitscope has neither CAP_PERFMON nor "
            "CAP_SYS_ADMIN). Its samples are the kernel's, taken in the scheduler as it switches "
            "a thread out, so it needs perf_event_paranoid <= 1, or CAP_PERFMON. Fix: 'sudo "
            "sysctl kernel.perf_event_paranoid=1', or run jitscope with CAP_PERFMON ('sudo "
            "setcap cap_perfmon+ep $(command -v jitscope)'). Without it, record --switch-events "
            "says when each thread was off the CPU, without its stack. In a container, the "
            "runtime's seccomp profile must also allow perf_event_open.");
  EXPECT_NE(OffCpuRefusal(facts, -1).find("needs perf_event_paranoid <= 0 (record -a), or "),
            std::string::npos);
  const PermissionFacts privileged{2, 1, Cap(kCapPerfmon), 1000, std::nullopt};
  EXPECT_EQ(OffCpuRefusal(privileged, 0),
            "record --off-cpu is not permitted: perf_event_open was refused "
            "(kernel.perf_event_paranoid = 2; jitscope has CAP_PERFMON or CAP_SYS_ADMIN). In a "
            "container, the runtime's seccomp profile must also allow perf_event_open.");
}

TEST(PermissionAdviceTest, AnotherUsersProcess) {
  const PermissionFacts facts{2, 1, Cap(kCapPerfmon), 1000, 0};
  EXPECT_EQ(PerfEventRefusal(facts, 1234),
            "sampling is not permitted: perf_event_open was refused (kernel.perf_event_paranoid "
            "= 2; jitscope has CAP_PERFMON or CAP_SYS_ADMIN). Process 1234 belongs to uid 0 and "
            "jitscope runs as uid 1000: another user's process needs CAP_SYS_PTRACE (run "
            "jitscope as that user, or with sudo). kernel.yama.ptrace_scope = 1 is not the cause: "
            "it restricts attaching debuggers, not reading a process. In a container, the "
            "runtime's seccomp profile must also allow perf_event_open.");
  EXPECT_EQ(ProcRefusal(facts, 1234, "/proc/1234/environ", EACCES),
            "/proc/1234/environ: permission denied: reading a process's memory map and "
            "environment needs the same user as the process or CAP_SYS_PTRACE. Process 1234 "
            "belongs to uid 0 and jitscope runs as uid 1000: another user's process needs "
            "CAP_SYS_PTRACE (run jitscope as that user, or with sudo). kernel.yama.ptrace_scope "
            "= 1 is not the cause: it restricts attaching debuggers, not reading a process.");
}

TEST(PermissionAdviceTest, OwnProcessThatIsNotDumpable) {
  const PermissionFacts facts{1, std::nullopt, 0, 1000, 1000};
  EXPECT_EQ(ProcRefusal(facts, 77, "/proc/77/maps", EPERM),
            "/proc/77/maps: permission denied: reading a process's memory map and environment "
            "needs the same user as the process or CAP_SYS_PTRACE. Process 77 may not be "
            "dumpable (a setuid program, or prctl(PR_SET_DUMPABLE, 0)): that needs "
            "CAP_SYS_PTRACE. kernel.yama.ptrace_scope (no Yama) is not the cause: it restricts "
            "attaching debuggers, not reading a process.");
}

TEST(PermissionAdviceTest, MissingProcessAndOtherErrors) {
  const PermissionFacts facts;
  EXPECT_EQ(ProcRefusal(facts, 99, "/proc/99/task", ENOENT), "no process 99");
  EXPECT_EQ(ProcRefusal(facts, 99, "pidfd_open(99)", ESRCH), "no process 99");
  EXPECT_EQ(ProcRefusal(facts, 99, "/proc/99/maps", EIO), "/proc/99/maps: Input/output error");
  // With CAP_SYS_PTRACE nothing of ptrace's is missing, so nothing more is said about it.
  const PermissionFacts ptrace{std::nullopt, std::nullopt, Cap(kCapSysPtrace), 1, 0};
  EXPECT_EQ(ProcRefusal(ptrace, 5, "/proc/5/maps", EACCES),
            "/proc/5/maps: permission denied: reading a process's memory map and environment "
            "needs the same user as the process or CAP_SYS_PTRACE.");
}

}  // namespace
}  // namespace jitscope::record
