// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/record/file_copies.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "jitscope/base/files.h"

namespace jitscope::record {

base::StatusOr<base::ScopedFd> OpenRegularFileAt(int dir, const std::string& name) {
  // O_NONBLOCK lets the open of a FIFO return, to be refused as not a regular file.
  base::ScopedFd source(
      ::openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (!source) return base::Status::Errno(errno, "%s", name.c_str());
  RETURN_IF_ERROR(CheckRegularFile(source.get(), name));
  return source;
}

base::Status CheckRegularFile(int fd, const std::string& name) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return base::Status::Errno(errno, "%s", name.c_str());
  if (!S_ISREG(st.st_mode)) return base::Status::Error("%s: not a regular file", name.c_str());
  return base::Status::Ok();
}

base::StatusOr<uint64_t> CopyOpenFile(int source, const std::string& name,
                                      const std::string& to_dir, const std::string& to_name) {
  uint64_t bytes = 0;
  RETURN_IF_ERROR(base::ReplaceFile(to_dir, to_name, [&](int out) -> base::Status {
    char buffer[65536];
    for (;;) {
      const ssize_t n = ::read(source, buffer, sizeof(buffer));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return base::Status::Errno(errno, "reading %s", name.c_str());
      if (n == 0) return base::Status::Ok();
      RETURN_IF_ERROR(base::WriteAll(out, buffer, static_cast<size_t>(n)));
      bytes += static_cast<uint64_t>(n);
    }
  }));
  return bytes;
}

base::StatusOr<uint64_t> CopyRegularFile(int dir, const std::string& name,
                                         const std::string& to_dir, const std::string& to_name) {
  ASSIGN_OR_RETURN(base::ScopedFd source, OpenRegularFileAt(dir, name));
  return CopyOpenFile(source.get(), name, to_dir, to_name);
}

base::StatusOr<std::string> MakeDirectories(const std::string& top, const std::string& relative) {
  base::ScopedFd dir(::open(top.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir) return base::Status::Errno(errno, "%s", top.c_str());
  std::string path = top;
  for (size_t start = 0; start < relative.size();) {
    const size_t end = std::min(relative.find('/', start), relative.size());
    const std::string name = relative.substr(start, end - start);
    path += "/" + name;
    ASSIGN_OR_RETURN(dir, base::OpenOrCreateDirectoryAt(dir.get(), name, 0700, path));
    start = end + 1;
  }
  return path;
}

}  // namespace jitscope::record
