// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/opagent/dump_directory.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "jitscope/base/files.h"

namespace jitscope::opagent {
namespace {

constexpr mode_t kSharedDirectoryMode = 01777;
constexpr mode_t kDumpMode = 0600;

bool IsWritableDirectory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode) &&
         ::access(path.c_str(), W_OK | X_OK) == 0;
}

// Opens `name` inside `parent` (or the absolute `name` when parent is AT_FDCWD) as a directory,
// creating it with kSharedDirectoryMode if it is missing; never follows a symbolic link.
base::StatusOr<base::ScopedFd> OpenSharedDirectory(int parent, const std::string& name,
                                                   const std::string& path) {
  ASSIGN_OR_RETURN(base::ScopedFd fd,
                   base::OpenOrCreateDirectoryAt(parent, name, kSharedDirectoryMode, path));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0)
    return base::Status::Errno(errno, "cannot stat %s", path.c_str());
  const bool trusted_owner = st.st_uid == ::geteuid() || st.st_uid == 0;
  if (!trusted_owner && (st.st_mode & S_ISVTX) == 0) {
    return base::Status::Errno(EACCES,
                               "%s belongs to another user and is not sticky; refusing to put "
                               "dumps there (set JITSCOPE_OPAGENT_DIR)",
                               path.c_str());
  }
  return fd;
}

}  // namespace

base::StatusOr<std::string> ChooseDumpDirectory(collector::GetEnvFunction getenv,
                                                const DumpLocations& locations) {
  if (const char* dir = getenv("JITSCOPE_OPAGENT_DIR"); dir != nullptr && *dir != '\0') {
    // This user's or root's, as JITSCOPE_OUTPUT_DIR must be. The message names the variable;
    // op_open_agent returns the errno.
    if (auto own = base::OpenOwnDirectory(dir); !own.ok()) {
      return own.status().WithContext("JITSCOPE_OPAGENT_DIR");
    }
    return std::string(dir);
  }
  if (IsWritableDirectory(locations.seed_directory)) return locations.seed_directory;
  ASSIGN_OR_RETURN(base::ScopedFd root,
                   OpenSharedDirectory(AT_FDCWD, locations.shared_root, locations.shared_root));
  const std::string path = locations.shared_root + "/jitdump";
  ASSIGN_OR_RETURN(base::ScopedFd jitdump, OpenSharedDirectory(root.get(), "jitdump", path));
  return path;
}

base::StatusOr<base::ScopedFd> CreateDumpFile(const std::string& directory, uint32_t pid) {
  base::ScopedFd dir(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir) return base::Status::Errno(errno, "cannot open directory %s", directory.c_str());
  const std::string name = std::to_string(pid) + ".dump";
  const std::string path = directory + "/" + name;
  for (int attempt = 0; attempt < 2; ++attempt) {
    base::ScopedFd fd(::openat(dir.get(), name.c_str(),
                               O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, kDumpMode));
    if (fd) {
      if (::fchmod(fd.get(), kDumpMode) != 0) {
        return base::Status::Errno(errno, "cannot set the mode of %s", path.c_str());
      }
      return fd;
    }
    if (errno != EEXIST || attempt > 0) {
      return base::Status::Errno(errno, "cannot create %s", path.c_str());
    }
    struct stat st {};
    if (::fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;  // gone
    if (!S_ISREG(st.st_mode) || st.st_uid != ::geteuid()) {
      return base::Status::Errno(EEXIST, "%s exists and is not a dump of ours; not replacing it",
                                 path.c_str());
    }
    if (::unlinkat(dir.get(), name.c_str(), 0) != 0 && errno != ENOENT) {
      return base::Status::Errno(errno, "cannot replace the stale %s", path.c_str());
    }
  }
  return base::Status::Errno(EEXIST, "cannot create %s", path.c_str());
}

}  // namespace jitscope::opagent
