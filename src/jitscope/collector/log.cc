// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/collector/log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "jitscope/base/files.h"

namespace jitscope::collector {

Log Log::Open(const std::string& path) {
  base::ScopedFd fd(
      ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd) {
    Log fallback;
    fallback.Printf("cannot open JITSCOPE_LOG file %s (%s); logging to stderr", path.c_str(),
                    std::strerror(errno));
    return fallback;
  }
  return Log(std::move(fd));
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
  (void)base::WriteAll(fd_ ? fd_.get() : STDERR_FILENO, line, static_cast<size_t>(used));
}

}  // namespace jitscope::collector
