// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Why a thread stopped, from the kernel functions of its switch's call chain, and the kernel's
// symbols that name them.
#include "jitscope/record/off_cpu_reason.h"

#include <optional>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/record/kernel_symbols.h"

namespace jitscope::record {
namespace {

using session::OffCpuReason;

OffCpuReason ReasonOf(std::vector<std::string_view> functions) { return OffCpuReasonOf(functions); }

// The chains as the kernel gives them, innermost first (perf script of a context-switches event).
TEST(OffCpuReasonTest, TheSystemCallItWaitsInSaysWhy) {
  EXPECT_EQ(
      ReasonOf({"schedule", "do_nanosleep", "hrtimer_nanosleep", "common_nsleep",
                "__x64_sys_clock_nanosleep", "do_syscall_64", "entry_SYSCALL_64_after_hwframe"}),
      OffCpuReason::kSleep);
  EXPECT_EQ(ReasonOf({"schedule", "futex_wait_queue", "__futex_wait", "futex_wait", "do_futex",
                      "__x64_sys_futex", "do_syscall_64"}),
            OffCpuReason::kLock);
  EXPECT_EQ(ReasonOf({"schedule", "pipe_read", "vfs_read", "ksys_read", "__x64_sys_read"}),
            OffCpuReason::kIo);
  // __x64_sys_read jumps to ksys_read: the entry is often missing.
  EXPECT_EQ(ReasonOf({"schedule", "pipe_write", "vfs_write", "ksys_write", "do_syscall_64"}),
            OffCpuReason::kIo);
  EXPECT_EQ(ReasonOf({"schedule", "unix_stream_read_generic", "unix_stream_recvmsg", "sock_recvmsg",
                      "__sys_recvfrom", "do_syscall_64"}),
            OffCpuReason::kIo);
  EXPECT_EQ(ReasonOf({"schedule", "do_nanosleep", "hrtimer_nanosleep", "do_syscall_64"}),
            OffCpuReason::kSleep);
  EXPECT_EQ(ReasonOf({"schedule", "schedule_hrtimeout_range_clock", "do_epoll_wait",
                      "__x64_sys_epoll_pwait"}),
            OffCpuReason::kPoll);
  EXPECT_EQ(ReasonOf({"schedule", "do_nanosleep", "__ia32_compat_sys_nanosleep_time32"}),
            OffCpuReason::kSleep)
      << "a 32-bit process's";
  // A block device's I/O, whatever the call (here a page fault's read of a file's page).
  EXPECT_EQ(ReasonOf({"schedule", "io_schedule", "folio_wait_bit_common", "filemap_fault",
                      "__do_fault", "handle_mm_fault", "exc_page_fault"}),
            OffCpuReason::kIo);
  // Other waits: a vfork's, a child's (wait4), a kernel thread's, none at all.
  EXPECT_EQ(ReasonOf({"schedule", "schedule_timeout", "__wait_for_common", "kernel_clone",
                      "__x64_sys_vfork"}),
            OffCpuReason::kUnknown);
  EXPECT_EQ(ReasonOf({"schedule", "do_wait", "kernel_wait4", "__x64_sys_wait4"}),
            OffCpuReason::kUnknown);
  EXPECT_EQ(ReasonOf({"schedule", "worker_thread", "kthread", "ret_from_fork"}),
            OffCpuReason::kUnknown);
  EXPECT_EQ(ReasonOf({}), OffCpuReason::kUnknown);
}

TEST(KernelSymbolsTest, TextSymbolsNameTheAddressesFromThemOn) {
  const std::optional<KernelSymbols> symbols = KernelSymbols::Parse(
      "ffffffff81000000 T _stext\n"
      "ffffffff8100a000 D some_data\n"
      "ffffffff82202560 T do_nanosleep\n"
      "ffffffff821fb620 T schedule\n"
      "ffffffffc0a01000 t xfs_read\t[xfs]\n"
      "not a line\n"
      "ffffffff8142db10 W __x64_sys_clock_nanosleep");
  ASSERT_TRUE(symbols);
  EXPECT_EQ(symbols->Find(0xffffffff821fb643), "schedule");
  EXPECT_EQ(symbols->Find(0xffffffff822025be), "do_nanosleep");
  EXPECT_EQ(symbols->Find(0xffffffff8142dbde), "__x64_sys_clock_nanosleep");
  EXPECT_EQ(symbols->Find(0xffffffffc0a01010), "xfs_read");
  EXPECT_EQ(symbols->Find(0xffffffff8100a008), "_stext") << "data is no function";
  EXPECT_EQ(symbols->Find(0x1000), "");
  // kernel.kptr_restrict shows every address as 0: nothing to name by.
  EXPECT_FALSE(KernelSymbols::Parse("0000000000000000 T _stext\n0000000000000000 T schedule\n"));
}

}  // namespace
}  // namespace jitscope::record
