// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/record/process_memory.h"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace jitscope::record {

size_t ProcessMemory::Read(uint64_t address, std::span<uint8_t> out, int& error) {
  error = 0;
  if (out.empty()) return 0;
  if (!use_mem_file_) {
    // One remote iovec per page run: process_vm_readv stops at the first page it cannot read and
    // returns what it read before it, which is the prefix asked for.
    iovec local{out.data(), out.size()};
    iovec remote{reinterpret_cast<void*>(address), out.size()};
    const ssize_t read = ::process_vm_readv(pid_, &local, 1, &remote, 1, 0);
    if (read > 0) return static_cast<size_t>(read);
    error = errno;
    if (error != ENOSYS && error != EPERM) return 0;
    use_mem_file_ = true;  // refused as a call: a seccomp policy, not the process's memory
  }
  if (!mem_file_) {
    const std::string path = "/proc/" + std::to_string(pid_) + "/mem";
    mem_file_ = base::ScopedFd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!mem_file_) {
      error = errno;
      return 0;
    }
  }
  size_t done = 0;
  while (done < out.size()) {
    const ssize_t read = ::pread(mem_file_.get(), out.data() + done, out.size() - done,
                                 static_cast<off_t>(address + done));
    if (read < 0 && errno == EINTR) continue;
    if (read <= 0) {
      if (done == 0) error = read < 0 ? errno : EIO;
      break;
    }
    done += static_cast<size_t>(read);
  }
  return done;
}

}  // namespace jitscope::record
