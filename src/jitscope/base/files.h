// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Safe file creation and reading. Output files are created exclusively (O_CREAT|O_EXCL, which
// never follows a link planted at the final path component) with owner-only permissions, so a
// profiled process never clobbers or appends to a file it did not create.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "jitscope/base/scoped_resource.h"
#include "jitscope/base/status.h"

namespace jitscope::base {

// Creates `directory`/`name` for reading and writing. Fails if anything exists at that path.
StatusOr<ScopedFd> CreateExclusive(const std::string& directory, const std::string& name,
                                   mode_t mode = 0600);

// An unnamed file for scratch data, gone when its descriptor is closed (O_TMPFILE): in $TMPDIR if
// set, else /var/tmp, else /tmp (/var/tmp first because /tmp is often memory, and what a reader
// spools there is to take page cache the kernel can reclaim).
StatusOr<ScopedFd> CreateTemporaryFile();

// Opens the directory `name` inside the directory `parent` (AT_FDCWD: the current directory),
// first creating it with exactly `mode` (whatever the umask) if it is missing. Never follows a
// symbolic link at `name`: a link or a file there is an error (ENOTDIR). `path` names it in errors.
StatusOr<ScopedFd> OpenOrCreateDirectoryAt(int parent, const std::string& name, mode_t mode,
                                           const std::string& path);

// Opens the existing directory `path` for files of this user: it must belong to this user or to
// root (another user could replace what it holds). A link to it is the caller's choice.
StatusOr<ScopedFd> OpenOwnDirectory(const std::string& path);

// Opens the directory `path` for files of this user, creating it and its missing parents with
// exactly `mode`. An existing `path` is used as it is (a link to it is the caller's choice); a
// missing one is made one component at a time from its first (or the current directory), never
// following a symbolic link, so a link planted at any component is refused. Every directory opened
// must belong to this user or to root: another user could replace what it holds.
StatusOr<ScopedFd> OpenOrMakeOwnDirectory(const std::string& path, mode_t mode);

// Memory that copies of files (MappedFile::Copy) are read into, kept from one reading to the next.
// A reader that copies the same growing files again and again (record's unwinding while it
// records copies the JIT files a few times a second) then reads them into pages it has touched
// before. Fresh memory costs more than the reading itself: the kernel zeroes each page at its first
// touch, and unmapping it afterwards takes as long again. A buffer is reused once no copy holds it
// any more; none is ever shared by two copies. For one thread at a time.
class CopyBuffers {
 public:
  // Memory for a copy of `size` bytes (> 0): the smallest buffer no copy holds that is large
  // enough, else a new one with room to grow, which takes the place of the largest buffer held by
  // none (too small), so the buffers stay as many as the copies held at once. `path` names the
  // file to copy in errors.
  StatusOr<std::shared_ptr<ScopedMmap>> Take(size_t size, const std::string& path);
  // How many buffers are kept (held or not).
  size_t count() const { return buffers_.size(); }

 private:
  std::vector<std::shared_ptr<ScopedMmap>> buffers_;
};

// A whole file mapped read-only; an empty file maps to an empty span.
class MappedFile {
 public:
  static StatusOr<MappedFile> Open(const std::string& path);
  // The file's bytes as they are now, read into memory of this process's own rather than mapped:
  // for a file its writer may still cut short (the collector truncates its trace at exit), where
  // reading a mapping's cut-off pages would raise SIGBUS. With `buffers`, read into one of theirs,
  // held until this copy is destroyed. The file is read whole every time: a file written through
  // a shared mapping (the collector's trace) can change anywhere without a change of size or
  // modification time, so neither tells whether an earlier copy still holds its bytes.
  static StatusOr<MappedFile> Copy(const std::string& path, CopyBuffers* buffers = nullptr);
  // Maps the regular file open as `fd` (which stays the caller's); `name` is for messages.
  static StatusOr<MappedFile> FromFd(int fd, const std::string& name);

  const uint8_t* data() const {
    return static_cast<const uint8_t*>(buffer_ ? buffer_->data() : mapping_.data());
  }
  size_t size() const { return size_; }
  std::string_view bytes() const { return {reinterpret_cast<const char*>(data()), size_}; }
  // Whether `p` points into the file's bytes.
  bool Holds(const char* p) const {
    const auto* begin = reinterpret_cast<const char*>(data());
    return size_ > 0 && p >= begin && p < begin + size_;
  }

  // For a reader done with every byte before `end`, which evicted those before `begin` already:
  // takes the pages from `begin`'s to `end`'s (not that one: it holds bytes still to be read) out
  // of this process's memory. They still read the same: a later read maps them again from the page
  // cache. A reader that passes over a large file once calls it behind itself, so its resident
  // memory stays a window of the file, not all of it (madvise(2) MADV_DONTNEED: the mapping is
  // private and read-only, so no page has changes to lose). A Copy keeps its pages: they hold the
  // only copy of what was read.
  void Evict(size_t begin, size_t end) const;
  // How far such a reader gets between evictions: few calls, and a small window.
  static constexpr size_t kEvictEvery = 4 << 20;

 private:
  MappedFile(ScopedMmap mapping, size_t size, bool copied = false)
      : mapping_(std::move(mapping)), size_(size), copied_(copied) {}
  MappedFile(std::shared_ptr<ScopedMmap> buffer, size_t size)
      : buffer_(std::move(buffer)), size_(size), copied_(true) {}
  ScopedMmap mapping_;
  std::shared_ptr<ScopedMmap> buffer_;  // a CopyBuffers' buffer, in place of mapping_
  size_t size_ = 0;
  bool copied_ = false;  // Copy's: anonymous memory, not the file's pages
};

// Writes `directory`/`name` whole or not at all: `fill` writes `directory`/`name`.partial (made
// afresh, owner-only), which then replaces `name` (an earlier copy, say). A file a reader finds
// there is always complete.
Status ReplaceFile(const std::string& directory, const std::string& name,
                   const std::function<Status(int fd)>& fill);

// `path` absolute, with its symbolic links, "." and ".." resolved (realpath(3)); "" when it
// cannot be (it does not exist, say).
std::string RealPath(const std::string& path);
// Whether `path` is, or links to, a regular file.
bool IsRegularFile(const std::string& path);

// Reads `fd` from its offset into `out`, until `out` is full or the file ends, retrying on EINTR
// and short reads; how many bytes it read. `name` is for messages.
StatusOr<size_t> ReadUpTo(int fd, std::span<char> out, const std::string& name);

// Writes all of `data` to `fd`, retrying on EINTR and short writes.
Status WriteAll(int fd, const void* data, size_t size);

// Tags a file jitscope created with an extended attribute (user.jitscope), so `jitscope clean`
// can tell its own leftovers from other writers' files of the same name (a perf map oneDNN or a
// JVM agent wrote). Best effort: returns false where the filesystem keeps no user attributes.
bool TagCreatedByJitscope(int fd, std::string_view what);
// True when `path` itself (never a link's target) carries that tag.
bool IsTaggedCreatedByJitscope(const std::string& path);

}  // namespace jitscope::base
