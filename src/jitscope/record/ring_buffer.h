// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The kernel's ring buffer of one perf event: one metadata page (struct perf_event_mmap_page)
// followed by 2^n data pages (perf_event_open(2), "MMAP layout"). The kernel writes records at
// data_head; we consume up to it and publish data_tail so the kernel may reuse the space.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "jitscope/base/scoped_resource.h"
#include "jitscope/base/status.h"

namespace jitscope::record {

class RingBuffer {
 public:
  // Maps the ring of `perf_fd` with `data_pages` data pages (a power of two).
  static base::StatusOr<RingBuffer> Map(int perf_fd, size_t data_pages);

  // Hands every complete record now in the ring to `consume` as one contiguous byte range (a
  // record that wraps around the end is copied into a scratch buffer first), then frees the
  // space. Returns the number of bytes consumed.
  size_t Drain(const std::function<void(std::string_view record)>& consume);

 private:
  RingBuffer(base::ScopedMmap mapping, size_t page_size, size_t data_size)
      : mapping_(std::move(mapping)), page_size_(page_size), data_size_(data_size) {}

  base::ScopedMmap mapping_;
  size_t page_size_ = 0;
  size_t data_size_ = 0;
  std::vector<char> scratch_;
};

}  // namespace jitscope::record
