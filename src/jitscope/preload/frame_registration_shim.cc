// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// libjitscope-frames.so, which `jitscope record --registered-frames` preloads into the command:
// it stands in front of libgcc's __register_frame and __deregister_frame, through which LLVM's
// RuntimeDyld (MCJIT, ORC), Wasmtime and others hand the unwinder the .eh_frame of the code they
// generate, and writes each call, with the section's bytes, to frames-<pid>.jsf in
// JITSCOPE_OUTPUT_DIR (formats/registered_frames.h) before it passes the call on. Those tables
// are the engine's own account of its frames; `report` walks JIT code by them before it derives
// rules from the code's bytes.
//
// The section is read as libgcc reads it: from the address given through its zero terminator.
// A registration is rare (LLVM makes one per object it loads), so each is one write() under a
// mutex. A forked child writes a file of its own. Nothing here fails the host: a file that
// cannot be written drops the records, never the call.
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <mutex>
#include <span>
#include <string>

#include "jitscope/formats/eh_frame_ranges.h"
#include "jitscope/formats/registered_frames.h"

namespace jitscope::preload {
namespace {

using FrameFunction = void (*)(void*);

// The function libgcc defines: the next definition after this library's, else libgcc_s's own
// (a program that calls __register_frame without linking libgcc_s still gets the unwinder's).
FrameFunction Next(const char* name) {
  void* function = ::dlsym(RTLD_NEXT, name);
  if (function == nullptr) {
    if (void* libgcc = ::dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_GLOBAL)) {
      function = ::dlsym(libgcc, name);
    }
  }
  return reinterpret_cast<FrameFunction>(function);
}

uint64_t MonotonicNs() {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(now.tv_nsec);
}

bool WriteAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

class FramesFile {
 public:
  void Lock() { mutex_.lock(); }
  void Unlock() { mutex_.unlock(); }

  void Append(const std::string& record) {
    std::lock_guard lock(mutex_);
    const pid_t pid = ::getpid();
    if (pid != pid_) {
      // A forked child's copy of its parent's descriptor is not its file.
      if (fd_ >= 0) ::close(fd_);
      fd_ = Create(pid);
      pid_ = pid;
    }
    if (fd_ >= 0 && !WriteAll(fd_, record)) {
      ::close(fd_);
      fd_ = -1;  // a full disk: the rest is dropped, not half-written
    }
  }

 private:
  // frames-<pid>.jsf, or frames-<pid>.<n>.jsf when a recycled pid left one in the directory.
  static int Create(pid_t pid) {
    const char* dir = std::getenv("JITSCOPE_OUTPUT_DIR");
    const std::string directory = dir != nullptr && *dir != '\0' ? dir : ".";
    // Another user's directory is refused, as the collector refuses it (base/files.h).
    struct stat st {};
    if (::stat(directory.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) ||
        (st.st_uid != ::geteuid() && st.st_uid != 0)) {
      return -1;
    }
    const std::string base = directory + "/frames-" + std::to_string(pid);
    for (int n = 0; n < 1000; ++n) {
      const std::string path = base + (n == 0 ? "" : "." + std::to_string(n)) + ".jsf";
      const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
      if (fd >= 0) {
        if (WriteAll(fd, formats::EncodeRegisteredFramesHeader(static_cast<uint32_t>(pid)))) {
          return fd;
        }
        ::close(fd);
        ::unlink(path.c_str());  // a full disk: no empty file left behind
        return -1;
      }
      if (errno != EEXIST) return -1;
    }
    return -1;
  }

  std::mutex mutex_;
  int fd_ = -1;
  pid_t pid_ = 0;
};

FramesFile& File() {
  // Never destroyed: registrations outlive exit(). A fork while another thread appends must not
  // leave the child a mutex no thread of it will unlock: fork waits for the append to end.
  static FramesFile* file = [] {
    auto* created = new FramesFile;
    ::pthread_atfork([] { File().Lock(); }, [] { File().Unlock(); }, [] { File().Unlock(); });
    return created;
  }();
  return *file;
}

void Record(uint32_t kind, const void* begin) {
  if (begin == nullptr) return;
  const uint64_t now = MonotonicNs();
  std::span<const uint8_t> eh_frame;
  if (kind == formats::kFramesRegistered) {
    // Only the length words are read, up to the terminator the caller promises libgcc.
    const std::span<const uint8_t> most(static_cast<const uint8_t*>(begin),
                                        formats::kMaxRegisteredEhFrame);
    const uint64_t length = formats::EhFrameLength(most);
    if (length <= 4) return;  // empty, or no terminator within bounds: libgcc keeps nothing
    eh_frame = most.first(length);
  }
  File().Append(
      formats::EncodeFrameRecord(kind, now, reinterpret_cast<uintptr_t>(begin), eh_frame));
}

}  // namespace
}  // namespace jitscope::preload

extern "C" {

__attribute__((visibility("default"))) void __register_frame(void* begin) {
  static const jitscope::preload::FrameFunction next = jitscope::preload::Next("__register_frame");
  jitscope::preload::Record(jitscope::formats::kFramesRegistered, begin);
  if (next != nullptr) next(begin);
}

__attribute__((visibility("default"))) void __deregister_frame(void* begin) {
  static const jitscope::preload::FrameFunction next =
      jitscope::preload::Next("__deregister_frame");
  jitscope::preload::Record(jitscope::formats::kFramesDeregistered, begin);
  if (next != nullptr) next(begin);
}

}  // extern "C"
