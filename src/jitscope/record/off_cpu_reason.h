// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Why a thread gave up its CPU, from the functions of the kernel's part of the call chain of its
// switch out (`record --off-cpu`, innermost first: schedule, do_nanosleep, ...,
// __x64_sys_clock_nanosleep, do_syscall_64, ...): the innermost function that says, the kernel's
// side of a kind of wait (do_nanosleep, a futex's wait, pipe_read, vfs_write, io_schedule: a block
// device's I/O, ep_poll, ...) or the entry point of the system call it waits in.
#pragma once

#include <span>
#include <string_view>

#include "jitscope/session/perf_record.h"

namespace jitscope::record {

// kUnknown when nothing in `functions` says (a page fault, a vfork, a kernel thread's wait).
session::OffCpuReason OffCpuReasonOf(std::span<const std::string_view> functions);

}  // namespace jitscope::record
