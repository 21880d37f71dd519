// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/collector/log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "jitscope/base/files.h"

namespace jitscope::collector {

namespace {

// Why `st` is no file to log to, or nullptr.
const char* Unfit(const struct stat& st) {
  if (S_ISLNK(st.st_mode)) return "is a symbolic link; not following it";
  if (S_ISFIFO(st.st_mode)) return "is a FIFO, not a regular file";
  if (!S_ISREG(st.st_mode)) return "is not a regular file";
  if (st.st_uid != ::geteuid()) return "belongs to another user; not appending to it";
  return nullptr;
}

}  // namespace

Log Log::Open(const std::string& path) {
  const auto refuse = [&](const char* why) {
    Log().Printf("JITSCOPE_LOG file %s %s; logging to stderr", path.c_str(), why);
    return Log();
  };
  // Looked at before it is opened: opening a device or a FIFO can block or have effects.
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (const char* why = Unfit(st)) return refuse(why);
  }
  // O_NONBLOCK and the check after it: what was swapped in meanwhile never blocks the open, and
  // is refused all the same.
  base::ScopedFd fd(::open(
      path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600));
  if (!fd) {
    const int error = errno;
    if (error == ELOOP) return refuse("is a symbolic link; not following it");
    if (error == ENXIO) return refuse("is a FIFO, not a regular file");
    return refuse(("cannot be opened (" + std::string(std::strerror(error)) + ")").c_str());
  }
  if (::fstat(fd.get(), &st) != 0) return refuse("cannot be examined");
  if (const char* why = Unfit(st)) return refuse(why);
  const int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags >= 0) ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
  return Log(std::make_shared<const base::ScopedFd>(std::move(fd)));
}

void Log::Printf(const char* format, ...) const {
  char line[1024];
  int used = std::snprintf(line, sizeof(line), "jitscope[%d]: ", static_cast<int>(::getpid()));
  va_list args;
  va_start(args, format);
  const int message = std::vsnprintf(line + used, sizeof(line) - used - 1, format, args);
  va_end(args);
  used = message < 0 ? used : std::min<int>(used + message, sizeof(line) - 2);
  line[used++] = '\n';
  (void)base::WriteAll(fd_ ? fd_->get() : STDERR_FILENO, line, static_cast<size_t>(used));
}

}  // namespace jitscope::collector
