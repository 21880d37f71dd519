// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/base/file_window.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace jitscope::base {
namespace {

// Reads up to `size` bytes at `offset` into `out`; how many the file had.
size_t ReadAt(int fd, uint64_t offset, char* out, size_t size) {
  size_t done = 0;
  while (done < size) {
    const ssize_t got = ::pread(fd, out + done, size - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    done += static_cast<size_t>(got);
  }
  return done;
}

}  // namespace

std::optional<std::string_view> FileWindow::Read(uint64_t offset, size_t size) {
  if (offset > file_size_ || size > file_size_ - offset) return std::nullopt;
  const uint64_t end = offset + size;
  if (offset >= start_ && end <= start_ + held_) {
    return std::string_view(buffer_.get() + (offset - start_), size);
  }
  if (offset < start_) return ReadAside(offset, size);
  // Drop what is released (and what lies before this read, when more is released than held),
  // then read on from the end of what is kept, a read-ahead's worth past `end` at least.
  const uint64_t keep_from = std::max(start_, std::min(released_, offset));
  const size_t dropped = static_cast<size_t>(std::min<uint64_t>(keep_from - start_, held_));
  held_ -= dropped;
  if (held_ != 0) std::memmove(buffer_.get(), buffer_.get() + dropped, held_);
  start_ = keep_from;
  const uint64_t from = start_ + held_;
  const auto more =
      static_cast<size_t>(std::min(file_size_, std::max(end, from + kReadAhead)) - from);
  if (held_ + more > capacity_) {
    const size_t capacity = std::max(held_ + more, 2 * capacity_);
    auto grown = std::make_unique_for_overwrite<char[]>(capacity);
    if (held_ != 0) std::memcpy(grown.get(), buffer_.get(), held_);
    buffer_ = std::move(grown);
    capacity_ = capacity;
  }
  held_ += ReadAt(fd_, from, buffer_.get() + held_, more);
  if (end > start_ + held_) return std::nullopt;  // the file was cut short
  return std::string_view(buffer_.get() + (offset - start_), size);
}

std::optional<std::string_view> FileWindow::ReadAside(uint64_t offset, size_t size) {
  aside_.resize(size);
  if (ReadAt(fd_, offset, aside_.data(), size) != size) return std::nullopt;
  return std::string_view(aside_);
}

}  // namespace jitscope::base
