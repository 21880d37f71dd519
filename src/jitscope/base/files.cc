// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/base/files.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace jitscope::base {

StatusOr<ScopedFd> CreateExclusive(const std::string& directory, const std::string& name,
                                   mode_t mode) {
  const std::string path = directory.empty() ? name : directory + "/" + name;
  ScopedFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
  if (!fd) return Status::Errno(errno, "cannot create %s", path.c_str());
  // The umask may have removed bits from `mode`, but must never have added any; enforce exactly
  // the documented mode so consumers that need e.g. group read get it.
  if (::fchmod(fd.get(), mode) != 0) {
    return Status::Errno(errno, "cannot set mode of %s", path.c_str());
  }
  return fd;
}

StatusOr<MappedFile> MappedFile::Open(const std::string& path) {
  ScopedFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return Status::Errno(errno, "cannot open %s", path.c_str());
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) {
    return Status::Errno(errno, "cannot stat %s", path.c_str());
  }
  if (!S_ISREG(st.st_mode)) return Status::Error("%s is not a regular file", path.c_str());
  const auto size = static_cast<size_t>(st.st_size);
  if (size == 0) return MappedFile(ScopedMmap(), 0);
  void* address = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd.get(), 0);
  if (address == MAP_FAILED) {
    return Status::Errno(errno, "cannot map %s", path.c_str());
  }
  return MappedFile(ScopedMmap(address, size), size);
}

Status WriteAll(int fd, const void* data, size_t size) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  while (size > 0) {
    const ssize_t written = ::write(fd, bytes, size);
    if (written < 0) {
      if (errno == EINTR) continue;
      return Status::Errno(errno, "write failed");
    }
    bytes += written;
    size -= static_cast<size_t>(written);
  }
  return Status::Ok();
}

namespace {
constexpr char kCreatedByAttribute[] = "user.jitscope";
}  // namespace

bool TagCreatedByJitscope(int fd, std::string_view what) {
  return ::fsetxattr(fd, kCreatedByAttribute, what.data(), what.size(), 0) == 0;
}

bool IsTaggedCreatedByJitscope(const std::string& path) {
  return ::lgetxattr(path.c_str(), kCreatedByAttribute, nullptr, 0) >= 0;
}

}  // namespace jitscope::base
