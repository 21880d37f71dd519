// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/record/permission_advice.h"

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "jitscope/record/proc_files.h"

namespace jitscope::record {
namespace {

std::optional<int> ReadSysctl(const char* path) {
  base::StatusOr<std::string> text = ReadProcFile(path, 64);
  if (!text.ok()) return std::nullopt;
  std::string_view value = *text;
  while (!value.empty() && (value.back() == '\n' || value.back() == ' ')) value.remove_suffix(1);
  int level = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), level);
  if (value.empty() || error != std::errc() || end != value.data() + value.size()) {
    return std::nullopt;
  }
  return level;
}

bool Has(const PermissionFacts& facts, int capability) {
  return ((facts.capabilities >> capability) & 1) != 0;
}

bool Privileged(const PermissionFacts& facts) {
  return Has(facts, kCapPerfmon) || Has(facts, kCapSysAdmin);
}

std::string Level(const std::optional<int>& level) {
  return level ? std::to_string(*level) : std::string("unknown");
}

// Why another process is out of reach, when its owner is known to differ, or else the cases
// left: a process that is not dumpable.
std::string PtraceReadAdvice(const PermissionFacts& facts, pid_t pid) {
  if (Has(facts, kCapSysPtrace)) {
    return "";  // nothing of ptrace's is missing: the refusal comes from elsewhere
  }
  std::string text;
  if (facts.target_uid && *facts.target_uid != facts.uid) {
    text = " Process " + std::to_string(pid) + " belongs to uid " +
           std::to_string(*facts.target_uid) + " and jitscope runs as uid " +
           std::to_string(facts.uid) +
           ": another user's process needs CAP_SYS_PTRACE (run jitscope as that user, or with "
           "sudo).";
  } else {
    text = " Process " + std::to_string(pid) +
           " may not be dumpable (a setuid program, or prctl(PR_SET_DUMPABLE, 0)): that needs "
           "CAP_SYS_PTRACE.";
  }
  text += " kernel.yama.ptrace_scope";
  text += facts.ptrace_scope ? " = " + std::to_string(*facts.ptrace_scope) : " (no Yama)";
  text += " is not the cause: it restricts attaching debuggers, not reading a process.";
  return text;
}

}  // namespace

PermissionFacts ReadPermissionFacts(pid_t target) {
  PermissionFacts facts;
  facts.paranoid_level = ReadSysctl("/proc/sys/kernel/perf_event_paranoid");
  facts.ptrace_scope = ReadSysctl("/proc/sys/kernel/yama/ptrace_scope");
  facts.uid = ::getuid();
  if (base::StatusOr<std::string> status = ReadProcFile("/proc/self/status", 1 << 16);
      status.ok()) {
    facts.capabilities = StatusEffectiveCapabilities(*status).value_or(0);
  }
  if (target > 0) {
    // The status file of any process is readable by anyone: its owner is known even when its
    // maps are not.
    const std::string path = ProcPath(target, "status");
    if (base::StatusOr<std::string> status = ReadProcFile(path, 1 << 16); status.ok()) {
      facts.target_uid = StatusRealUid(*status);
    }
  }
  return facts;
}

namespace {

// "WHAT is not permitted: perf_event_open was refused (kernel.perf_event_paranoid = 2; jitscope
// has neither CAP_PERFMON nor CAP_SYS_ADMIN)."
std::string Refused(const PermissionFacts& facts, const char* what) {
  return std::string(what) +
         " is not permitted: perf_event_open was refused (kernel.perf_event_paranoid = " +
         Level(facts.paranoid_level) + "; jitscope " +
         (Privileged(facts) ? "has CAP_PERFMON or CAP_SYS_ADMIN"
                            : "has neither CAP_PERFMON nor CAP_SYS_ADMIN") +
         ").";
}

constexpr char kCapPerfmonFix[] =
    "run jitscope with CAP_PERFMON ('sudo setcap cap_perfmon+ep $(command -v jitscope)').";
constexpr char kContainerAdvice[] =
    " In a container, the runtime's seccomp profile must also allow perf_event_open.";

}  // namespace

std::string PerfEventRefusal(const PermissionFacts& facts, pid_t target) {
  const bool privileged = Privileged(facts);
  std::string text = Refused(facts, "sampling");
  if (!privileged && target < 0) {
    text += std::string(
                " Sampling every process (record -a) needs perf_event_paranoid <= 0, or "
                "CAP_PERFMON. Fix: 'sudo sysctl kernel.perf_event_paranoid=0', or ") +
            kCapPerfmonFix;
  } else if (!privileged) {
    text += std::string(
                " Profiling your own processes needs perf_event_paranoid <= 2 (user-space only) "
                "or <= 1 (with kernel frames). Fix: 'sudo sysctl kernel.perf_event_paranoid=1', "
                "or ") +
            kCapPerfmonFix;
  }
  if (target > 0) text += PtraceReadAdvice(facts, target);
  return text + kContainerAdvice;
}

std::string OffCpuRefusal(const PermissionFacts& facts, pid_t target) {
  std::string text = Refused(facts, "record --off-cpu");
  if (!Privileged(facts)) {
    const char* level = target < 0 ? "0" : "1";
    text += std::string(
                " Its samples are the kernel's, taken in the scheduler as it switches a thread "
                "out, so it needs perf_event_paranoid <= ") +
            level + (target < 0 ? " (record -a)" : "") +
            ", or CAP_PERFMON. Fix: 'sudo sysctl kernel.perf_event_paranoid=" + level + "', or " +
            kCapPerfmonFix +
            " Without it, record --switch-events says when each thread was off the CPU, "
            "without its stack.";
  }
  if (target > 0) text += PtraceReadAdvice(facts, target);
  return text + kContainerAdvice;
}

std::string ProcRefusal(const PermissionFacts& facts, pid_t pid, const std::string& path,
                        int error) {
  if (error == ENOENT || error == ESRCH) return "no process " + std::to_string(pid);
  if (error != EACCES && error != EPERM) return path + ": " + std::strerror(error);
  return path +
         ": permission denied: reading a process's memory map and environment needs the "
         "same user as the process or CAP_SYS_PTRACE." +
         PtraceReadAdvice(facts, pid);
}

}  // namespace jitscope::record
