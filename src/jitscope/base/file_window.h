// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Reads a large file in passes that go mostly forward, through a buffer of the reader's own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace jitscope::base {

// The bytes of a file, read with pread(2) into a buffer that is reused from one read to the
// next, for a pass over a file of any size that goes mostly forward: the passes a report makes
// over a samples file, in file order and then in time order (which interleaves a recorder's
// drain rounds). Why not the file's mapping alone: every page a mapping makes present costs a
// page fault, and more in a virtual machine whose host keeps shadow page tables, each time again
// after the reader gives the page back to keep its memory small; reading copies the same bytes
// at several times the speed (docs/performance.md, "How fast DWARF-mode reports unwind").
class FileWindow {
 public:
  // `fd` stays the caller's and must outlive the window; `file_size` is how far it reads.
  FileWindow(int fd, uint64_t file_size) : fd_(fd), file_size_(file_size) {}
  FileWindow(const FileWindow&) = delete;
  FileWindow& operator=(const FileWindow&) = delete;

  // The `size` bytes at `offset`, valid until the next call; nullopt when they are not all in
  // the file, or it cannot be read. Reading past the buffer's end reads on from there, keeping
  // what was not released.
  std::optional<std::string_view> Read(uint64_t offset, size_t size);
  // Nothing before `offset` is read again (a read that is, is served, but by a read of its own):
  // the buffer gives up their room.
  void Release(uint64_t offset) {
    if (offset > released_) released_ = offset;
  }

  // The room the buffer takes: what is not released, and a read-ahead.
  size_t capacity() const { return capacity_; }
  // How much a read that goes past the buffer reads at least.
  static constexpr size_t kReadAhead = 1 << 20;

 private:
  std::optional<std::string_view> ReadAside(uint64_t offset, size_t size);

  int fd_;
  uint64_t file_size_;
  std::unique_ptr<char[]> buffer_;  // held_ bytes of the file from start_ on, in capacity_
  size_t capacity_ = 0;
  size_t held_ = 0;
  uint64_t start_ = 0;
  uint64_t released_ = 0;
  std::string aside_;  // what a read before start_ was served from
};

}  // namespace jitscope::base
