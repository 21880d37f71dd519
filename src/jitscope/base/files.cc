// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/base/files.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

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

StatusOr<ScopedFd> CreateTemporaryFile() {
  std::vector<std::string> directories;
  if (const char* tmpdir = std::getenv("TMPDIR"); tmpdir != nullptr && *tmpdir != '\0') {
    directories.push_back(tmpdir);
  }
  directories.insert(directories.end(), {"/var/tmp", "/tmp"});
  Status last = Status::Ok();
  for (const std::string& directory : directories) {
    ScopedFd fd(::open(directory.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600));
    if (fd) return fd;
    last = Status::Errno(errno, "cannot create a temporary file in %s", directory.c_str());
  }
  return last;
}

Status ReplaceFile(const std::string& directory, const std::string& name,
                   const std::function<Status(int fd)>& fill) {
  const std::string partial = name + ".partial";
  const std::string partial_path = directory + "/" + partial;
  ::unlink(partial_path.c_str());
  ASSIGN_OR_RETURN(ScopedFd fd, CreateExclusive(directory, partial));
  if (Status filled = fill(fd.get()); !filled.ok()) {
    ::unlink(partial_path.c_str());
    return filled;
  }
  const std::string path = directory + "/" + name;
  if (::rename(partial_path.c_str(), path.c_str()) != 0) {
    return Status::Errno(errno, "%s", path.c_str());
  }
  return Status::Ok();
}

StatusOr<ScopedFd> OpenOrCreateDirectoryAt(int parent, const std::string& name, mode_t mode,
                                           const std::string& path) {
  if (::mkdirat(parent, name.c_str(), mode) == 0) {
    // The umask has cleared bits of the mode; set it exactly (on the name just created, which
    // only its owner, or the owner of a sticky parent, can replace in between).
    if (::fchmodat(parent, name.c_str(), mode, 0) != 0) {
      return Status::Errno(errno, "cannot set the mode of %s", path.c_str());
    }
  } else if (errno != EEXIST) {
    return Status::Errno(errno, "cannot create %s", path.c_str());
  }
  ScopedFd fd(::openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd) {
    return Status::Errno(errno == ELOOP ? ENOTDIR : errno,
                         "cannot open %s as a directory (a link or a file is there?)",
                         path.c_str());
  }
  return fd;
}

namespace {

// Refuses a directory that belongs to neither this user nor root.
Status CheckOwnDirectory(int fd, const std::string& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return Status::Errno(errno, "cannot stat %s", path.c_str());
  if (st.st_uid != ::geteuid() && st.st_uid != 0) {
    return Status::Errno(EACCES, "%s belongs to another user (uid %u); not writing there",
                         path.c_str(), static_cast<unsigned>(st.st_uid));
  }
  return Status::Ok();
}

}  // namespace

StatusOr<ScopedFd> OpenOwnDirectory(const std::string& path) {
  if (path.empty()) return Status::Errno(ENOENT, "no directory named");
  ScopedFd existing(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!existing) return Status::Errno(errno, "cannot open directory %s", path.c_str());
  RETURN_IF_ERROR(CheckOwnDirectory(existing.get(), path));
  return existing;
}

StatusOr<ScopedFd> OpenOrMakeOwnDirectory(const std::string& path, mode_t mode) {
  auto existing = OpenOwnDirectory(path);
  if (existing.ok() || existing.status().errno_value() != ENOENT || path.empty()) return existing;

  const bool absolute = path.front() == '/';
  std::string walked = absolute ? "/" : ".";
  ScopedFd current(::open(walked.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!current) return Status::Errno(errno, "cannot open directory %s", walked.c_str());
  walked.clear();
  for (size_t start = 0; start < path.size();) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    const std::string name = path.substr(start, end - start);
    start = end + 1;
    if (name.empty() || name == ".") continue;
    if (absolute || !walked.empty()) walked += '/';
    walked += name;
    ASSIGN_OR_RETURN(ScopedFd next, OpenOrCreateDirectoryAt(current.get(), name, mode, walked));
    RETURN_IF_ERROR(CheckOwnDirectory(next.get(), walked));
    current = std::move(next);
  }
  return current;
}

StatusOr<MappedFile> MappedFile::Open(const std::string& path) {
  ScopedFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return Status::Errno(errno, "cannot open %s", path.c_str());
  return FromFd(fd.get(), path);
}

StatusOr<MappedFile> MappedFile::FromFd(int fd, const std::string& name) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    return Status::Errno(errno, "cannot stat %s", name.c_str());
  }
  if (!S_ISREG(st.st_mode)) return Status::Error("%s is not a regular file", name.c_str());
  const auto size = static_cast<size_t>(st.st_size);
  if (size == 0) return MappedFile(ScopedMmap(), 0);
  void* address = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (address == MAP_FAILED) {
    return Status::Errno(errno, "cannot map %s", name.c_str());
  }
  return MappedFile(ScopedMmap(address, size), size);
}

StatusOr<size_t> ReadUpTo(int fd, std::span<char> out, const std::string& name) {
  size_t size = 0;
  while (size < out.size()) {
    const ssize_t got = ::read(fd, out.data() + size, out.size() - size);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return Status::Errno(errno, "cannot read %s", name.c_str());
    if (got == 0) break;
    size += static_cast<size_t>(got);
  }
  return size;
}

namespace {

// `size` bytes of memory, for a copy of `path`.
StatusOr<ScopedMmap> AnonymousMemory(size_t size, const std::string& path) {
  void* address = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (address == MAP_FAILED) {
    return Status::Errno(errno, "cannot take %zu bytes of memory for %s", size, path.c_str());
  }
  return ScopedMmap(address, size);
}

}  // namespace

StatusOr<std::shared_ptr<ScopedMmap>> CopyBuffers::Take(size_t size, const std::string& path) {
  std::shared_ptr<ScopedMmap>* best = nullptr;     // the smallest free one that fits
  std::shared_ptr<ScopedMmap>* largest = nullptr;  // the largest free one, too small
  for (std::shared_ptr<ScopedMmap>& buffer : buffers_) {
    if (buffer.use_count() > 1) continue;  // a copy holds it
    if (buffer->size() >= size) {
      if (best == nullptr || buffer->size() < (*best)->size()) best = &buffer;
    } else if (largest == nullptr || buffer->size() > (*largest)->size()) {
      largest = &buffer;
    }
  }
  if (best != nullptr) return *best;
  // A quarter more: the files copied again are the ones still being written.
  ASSIGN_OR_RETURN(ScopedMmap memory, AnonymousMemory(size + size / 4, path));
  auto buffer = std::make_shared<ScopedMmap>(std::move(memory));
  if (largest != nullptr) {
    *largest = buffer;
  } else {
    buffers_.push_back(buffer);
  }
  return buffer;
}

StatusOr<MappedFile> MappedFile::Copy(const std::string& path, CopyBuffers* buffers) {
  ScopedFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return Status::Errno(errno, "cannot open %s", path.c_str());
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return Status::Errno(errno, "cannot stat %s", path.c_str());
  if (!S_ISREG(st.st_mode)) return Status::Error("%s is not a regular file", path.c_str());
  const auto room = static_cast<size_t>(st.st_size);
  if (room == 0) return MappedFile(ScopedMmap(), 0);
  // Up to the size it had: a file that grows meanwhile is read as it was, one cut short as it is.
  if (buffers != nullptr) {
    ASSIGN_OR_RETURN(std::shared_ptr<ScopedMmap> buffer, buffers->Take(room, path));
    ASSIGN_OR_RETURN(const size_t size,
                     ReadUpTo(fd.get(), {static_cast<char*>(buffer->data()), room}, path));
    return MappedFile(std::move(buffer), size);
  }
  ASSIGN_OR_RETURN(ScopedMmap memory, AnonymousMemory(room, path));
  ASSIGN_OR_RETURN(const size_t size,
                   ReadUpTo(fd.get(), {static_cast<char*>(memory.data()), room}, path));
  return MappedFile(std::move(memory), size, /*copied=*/true);
}

void MappedFile::Evict(size_t begin, size_t end) const {
  if (copied_) return;
  const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  // `begin`'s page was `end`'s in the call before, which kept it.
  begin = begin / page * page;
  end = std::min(end, size_) / page * page;
  if (begin >= end) return;
  // Advice only: if it fails, the pages stay resident and read the same.
  (void)::madvise(const_cast<uint8_t*>(data()) + begin, end - begin, MADV_DONTNEED);
}

std::string RealPath(const std::string& path) {
  char resolved[PATH_MAX];
  return ::realpath(path.c_str(), resolved) != nullptr ? std::string(resolved) : std::string();
}

bool IsRegularFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
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
