// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/record/session_directory.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <string>
#include <utility>

namespace jitscope::record {

namespace {

// The directory `path` names: "DIR/" names DIR.
std::string DirectoryNamed(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

// Moves what is at `dir` (no recorder holds it) to the first free name of `dir`.old, `dir`.1, ...
base::StatusOr<std::string> MoveAside(const std::string& dir) {
  for (int n = 0; n <= 10000; ++n) {
    std::string candidate = dir + (n == 0 ? std::string(".old") : "." + std::to_string(n));
    struct stat st {};
    if (::lstat(candidate.c_str(), &st) == 0 || errno != ENOENT) continue;
    // renameat2(RENAME_NOREPLACE) refuses to overwrite a name created since we looked.
    if (::renameat2(AT_FDCWD, dir.c_str(), AT_FDCWD, candidate.c_str(), RENAME_NOREPLACE) == 0) {
      return candidate;
    }
    if (errno != EEXIST) {
      return base::Status::Errno(errno, "moving the previous session %s to %s", dir.c_str(),
                                 candidate.c_str());
    }
  }
  return base::Status::Error("%s: no free name to move it to", dir.c_str());
}

}  // namespace

base::StatusOr<PreparedSession> PrepareSessionDirectory(const std::string& path) {
  // "DIR/" names DIR, whose parent holds the private name.
  const std::string dir = DirectoryNamed(path);
  // Made and locked under a private name beside `dir`, then renamed into place: two recorders of
  // one directory could otherwise each move the other's fresh session aside, and write into one
  // directory (both said they had written it; one of them had not).
  const size_t slash = dir.rfind('/');
  const std::string parent =
      slash == std::string::npos ? "." : dir.substr(0, std::max<size_t>(slash, 1));
  std::string fresh = parent + "/.jitscope-record-XXXXXX";
  if (::mkdtemp(fresh.data()) == nullptr) {
    return base::Status::Errno(errno, "creating the session directory %s", dir.c_str());
  }
  PreparedSession prepared;
  prepared.lock = base::ScopedFd(::open(fresh.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  const auto give_up = [&](base::Status status) {
    ::rmdir(fresh.c_str());
    return status;
  };
  if (!prepared.lock || ::flock(prepared.lock.get(), LOCK_EX | LOCK_NB) != 0) {
    return give_up(base::Status::Errno(errno, "locking the session directory %s", dir.c_str()));
  }
  for (int attempt = 0; attempt < 100; ++attempt) {
    if (::renameat2(AT_FDCWD, fresh.c_str(), AT_FDCWD, dir.c_str(), RENAME_NOREPLACE) == 0) {
      return prepared;
    }
    if (errno != EEXIST) {
      return give_up(base::Status::Errno(errno, "creating the session directory %s", dir.c_str()));
    }
    // Something is at `dir`. A session directory a recorder holds stays its; anything else (an
    // earlier session, a planted link, a file) is moved aside, while it is locked here so that no
    // one else decides the same of it.
    base::ScopedFd existing(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (existing) {
      if (::flock(existing.get(), LOCK_EX | LOCK_NB) != 0) {
        if (errno == EWOULDBLOCK) {
          return give_up(base::Status::Error(
              "%s is being recorded into by another jitscope record; record into another "
              "directory (-o), or wait for it to end",
              dir.c_str()));
        }
        return give_up(base::Status::Errno(errno, "locking %s", dir.c_str()));
      }
      // Still the directory locked, not one renamed into its place meanwhile.
      struct stat locked {
      }, named{};
      if (::fstat(existing.get(), &locked) != 0 || ::lstat(dir.c_str(), &named) != 0 ||
          locked.st_ino != named.st_ino || locked.st_dev != named.st_dev) {
        continue;
      }
    }
    base::StatusOr<std::string> moved = MoveAside(dir);
    if (!moved.ok()) return give_up(moved.status());
    prepared.rotated_to = std::move(moved).value();
  }
  return give_up(base::Status::Error("%s: kept changing while it was created", dir.c_str()));
}

namespace {

// Removes every entry of the open directory `dir`, and of the directories in it, through their
// descriptors: a link is removed, never followed. Returns false if anything stayed.
bool RemoveEntries(int dir) {
  base::ScopedFd listing_fd(::dup(dir));
  if (!listing_fd) return false;
  DIR* listing = ::fdopendir(listing_fd.get());
  if (listing == nullptr) return false;
  listing_fd.release();  // closedir closes it
  bool all = true;
  while (const dirent* entry = ::readdir(listing)) {
    const std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    if (::unlinkat(dir, name.c_str(), 0) == 0) continue;
    if (errno != EISDIR) {
      all = false;
      continue;
    }
    base::ScopedFd inner(
        ::openat(dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!inner || !RemoveEntries(inner.get()) || ::unlinkat(dir, name.c_str(), AT_REMOVEDIR) != 0) {
      all = false;
    }
  }
  ::closedir(listing);
  return all;
}

}  // namespace

base::Status AbandonSessionDirectory(PreparedSession prepared, const std::string& path,
                                     base::Status why) {
  const std::string dir = DirectoryNamed(path);
  // Only the directory this recorder made and still holds is removed, and only if `dir` still
  // names it.
  struct stat held {
  }, named{};
  const bool ours = prepared.lock && ::fstat(prepared.lock.get(), &held) == 0 &&
                    ::lstat(dir.c_str(), &named) == 0 && held.st_ino == named.st_ino &&
                    held.st_dev == named.st_dev;
  bool removed = ours && RemoveEntries(prepared.lock.get()) && ::rmdir(dir.c_str()) == 0;
  prepared.lock.reset();
  if (prepared.rotated_to.empty()) return why;
  if (removed && ::renameat2(AT_FDCWD, prepared.rotated_to.c_str(), AT_FDCWD, dir.c_str(),
                             RENAME_NOREPLACE) == 0) {
    return why;
  }
  return base::Status::Error("%s (the earlier session in %s was moved to %s, and is still there)",
                             why.message().c_str(), dir.c_str(), prepared.rotated_to.c_str());
}

}  // namespace jitscope::record
