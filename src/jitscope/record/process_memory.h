// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Reads another process's memory while it runs: process_vm_readv, else /proc/PID/mem (where a
// seccomp policy refuses the system call). Both need the access ptrace's attach needs (the same
// user and a dumpable process, or CAP_SYS_PTRACE), and neither stops the process: the bytes are
// what the memory held during the read, which another thread may be writing (code_capture.h says
// why that is safe for code).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <span>

#include "jitscope/base/scoped_resource.h"

namespace jitscope::record {

class ProcessMemory {
 public:
  explicit ProcessMemory(pid_t pid) : pid_(pid) {}

  // Reads [address, address + out.size()) into `out`; the bytes read, from the start (fewer when
  // a page on the way is not mapped or not readable; 0 and `error` set when none is).
  size_t Read(uint64_t address, std::span<uint8_t> out, int& error);

 private:
  pid_t pid_;
  base::ScopedFd mem_file_;  // /proc/PID/mem, opened when process_vm_readv is refused
  bool use_mem_file_ = false;
};

}  // namespace jitscope::record
