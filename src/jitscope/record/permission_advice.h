// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// What a refusal by the kernel means and how to fix it, as perf explains its own: which setting
// or capability is missing. The facts are read once (ReadPermissionFacts) and the messages are
// pure functions of them, so every message is unit-tested with injected values.
//
// The rules (linux/kernel/events/core.c, fs/proc/base.c,
// Documentation/admin-guide/perf-security.rst):
//  - perf_event_open of a user-space event needs kernel.perf_event_paranoid <= 2 (<= 1 for
//    kernel frames; Debian's 3 refuses it entirely) or CAP_PERFMON (CAP_SYS_ADMIN before 5.8).
//  - On another process it also needs ptrace "read" access: the same real uid and gid as the
//    process, or CAP_SYS_PTRACE. So do /proc/PID/maps and /proc/PID/environ, and a process that
//    is not dumpable (a setuid program, prctl(PR_SET_DUMPABLE, 0)) needs CAP_SYS_PTRACE always.
//  - kernel.yama.ptrace_scope restricts ptrace *attaching* only; reading /proc/PID/maps and
//    perf_event_open are read access, which it does not restrict.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

namespace jitscope::record {

// Bits of the capability sets (linux/capability.h).
inline constexpr int kCapSysPtrace = 19;
inline constexpr int kCapSysAdmin = 21;
inline constexpr int kCapPerfmon = 38;

struct PermissionFacts {
  std::optional<int> paranoid_level;   // kernel.perf_event_paranoid; nullopt: unreadable
  std::optional<int> ptrace_scope;     // kernel.yama.ptrace_scope; nullopt: no Yama
  uint64_t capabilities = 0;           // this process's effective set
  uint32_t uid = 0;                    // this process's real uid
  std::optional<uint32_t> target_uid;  // the process attached to, when known
};

// The facts of this process, and of `target` (0: none).
PermissionFacts ReadPermissionFacts(pid_t target);

// perf_event_open refused (EACCES/EPERM) while sampling a command jitscope started
// (`target` 0), process `target` (record -p) or every process (`target` -1, record -a).
std::string PerfEventRefusal(const PermissionFacts& facts, pid_t target);

// The same for `record --off-cpu`, whose context-switch samples the kernel takes in the scheduler:
// they are kernel samples, with no user-space-only fallback.
std::string OffCpuRefusal(const PermissionFacts& facts, pid_t target);

// `path` (/proc/PID/...) of process `pid` could not be read: EACCES/EPERM say what is missing,
// ENOENT/ESRCH that there is no such process.
std::string ProcRefusal(const PermissionFacts& facts, pid_t pid, const std::string& path,
                        int error);

}  // namespace jitscope::record
