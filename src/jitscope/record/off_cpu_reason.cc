// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/record/off_cpu_reason.h"

#include <array>
#include <utility>

namespace jitscope::record {
namespace {

using session::OffCpuReason;

// The system calls a thread waits in, by their name in the kernel's entry points
// (__x64_sys_NAME, __ia32_sys_NAME for 32-bit processes, __ia32_compat_sys_NAME).
constexpr std::pair<std::string_view, OffCpuReason> kSystemCalls[] = {
    {"nanosleep", OffCpuReason::kSleep},
    {"clock_nanosleep", OffCpuReason::kSleep},
    {"clock_nanosleep_time32", OffCpuReason::kSleep},
    {"nanosleep_time32", OffCpuReason::kSleep},
    {"futex", OffCpuReason::kLock},
    {"futex_time32", OffCpuReason::kLock},
    {"futex_waitv", OffCpuReason::kLock},
    {"futex_wait", OffCpuReason::kLock},
    {"read", OffCpuReason::kIo},
    {"write", OffCpuReason::kIo},
    {"pread64", OffCpuReason::kIo},
    {"pwrite64", OffCpuReason::kIo},
    {"readv", OffCpuReason::kIo},
    {"writev", OffCpuReason::kIo},
    {"preadv", OffCpuReason::kIo},
    {"pwritev", OffCpuReason::kIo},
    {"preadv2", OffCpuReason::kIo},
    {"pwritev2", OffCpuReason::kIo},
    {"fsync", OffCpuReason::kIo},
    {"fdatasync", OffCpuReason::kIo},
    {"sync_file_range", OffCpuReason::kIo},
    {"sendfile64", OffCpuReason::kIo},
    {"splice", OffCpuReason::kIo},
    {"recvfrom", OffCpuReason::kIo},
    {"recvmsg", OffCpuReason::kIo},
    {"recvmmsg", OffCpuReason::kIo},
    {"sendto", OffCpuReason::kIo},
    {"sendmsg", OffCpuReason::kIo},
    {"accept", OffCpuReason::kIo},
    {"accept4", OffCpuReason::kIo},
    {"connect", OffCpuReason::kIo},
    {"io_getevents", OffCpuReason::kIo},
    {"io_uring_enter", OffCpuReason::kIo},
    {"poll", OffCpuReason::kPoll},
    {"ppoll", OffCpuReason::kPoll},
    {"select", OffCpuReason::kPoll},
    {"pselect6", OffCpuReason::kPoll},
    {"epoll_wait", OffCpuReason::kPoll},
};

constexpr std::array<std::string_view, 3> kEntryPrefixes = {"__x64_sys_", "__ia32_compat_sys_",
                                                            "__ia32_sys_"};

OffCpuReason SystemCallReason(std::string_view function) {
  for (std::string_view prefix : kEntryPrefixes) {
    if (!function.starts_with(prefix)) continue;
    std::string_view name = function.substr(prefix.size());
    if (name == "epoll_pwait" || name == "epoll_pwait2") return OffCpuReason::kPoll;
    for (const auto& [call, reason] : kSystemCalls) {
      if (call == name) return reason;
    }
    return OffCpuReason::kUnknown;
  }
  return OffCpuReason::kUnknown;
}

// Kernel functions that say why on their own, wherever they are in a chain: a system call's
// entry is often a tail call (__x64_sys_read jumps to ksys_read) and missing from the chain.
constexpr std::pair<std::string_view, OffCpuReason> kWaits[] = {
    {"do_nanosleep", OffCpuReason::kSleep},
    {"hrtimer_nanosleep", OffCpuReason::kSleep},
    {"futex_wait_queue", OffCpuReason::kLock},
    {"futex_wait_queue_me", OffCpuReason::kLock},
    {"__futex_wait", OffCpuReason::kLock},
    {"futex_wait", OffCpuReason::kLock},
    {"futex_wait_multiple", OffCpuReason::kLock},
    {"futex_lock_pi", OffCpuReason::kLock},
    {"do_futex", OffCpuReason::kLock},
    // A block device's I/O, whatever the call: a read, a page fault that reads a file's page, a
    // sync, a direct write.
    {"io_schedule", OffCpuReason::kIo},
    {"io_schedule_timeout", OffCpuReason::kIo},
    {"pipe_read", OffCpuReason::kIo},
    {"pipe_write", OffCpuReason::kIo},
    {"vfs_read", OffCpuReason::kIo},
    {"vfs_write", OffCpuReason::kIo},
    {"ksys_read", OffCpuReason::kIo},
    {"ksys_write", OffCpuReason::kIo},
    {"ksys_pread64", OffCpuReason::kIo},
    {"ksys_pwrite64", OffCpuReason::kIo},
    {"do_readv", OffCpuReason::kIo},
    {"do_writev", OffCpuReason::kIo},
    {"vfs_fsync_range", OffCpuReason::kIo},
    {"sock_recvmsg", OffCpuReason::kIo},
    {"sock_sendmsg", OffCpuReason::kIo},
    {"__sys_recvfrom", OffCpuReason::kIo},
    {"__sys_sendto", OffCpuReason::kIo},
    {"__sys_accept4", OffCpuReason::kIo},
    {"__sys_connect", OffCpuReason::kIo},
    {"n_tty_read", OffCpuReason::kIo},
    {"do_sys_poll", OffCpuReason::kPoll},
    {"do_select", OffCpuReason::kPoll},
    {"core_sys_select", OffCpuReason::kPoll},
    {"ep_poll", OffCpuReason::kPoll},
    {"do_epoll_wait", OffCpuReason::kPoll},
};

}  // namespace

OffCpuReason OffCpuReasonOf(std::span<const std::string_view> functions) {
  // Innermost first: the first that says why is the closest to the wait.
  for (std::string_view function : functions) {
    for (const auto& [wait, reason] : kWaits) {
      if (function == wait) return reason;
    }
    if (function.starts_with("__x64_sys_") || function.starts_with("__ia32_")) {
      return SystemCallReason(function);
    }
  }
  return OffCpuReason::kUnknown;
}

}  // namespace jitscope::record
