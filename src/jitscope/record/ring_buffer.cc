// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/record/ring_buffer.h"

#include <linux/perf_event.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

namespace jitscope::record {

base::StatusOr<RingBuffer> RingBuffer::Map(int perf_fd, size_t data_pages) {
  if (data_pages == 0 || (data_pages & (data_pages - 1)) != 0) {
    return base::Status::Error("ring buffer: %zu data pages is not a power of two", data_pages);
  }
  const size_t page_size = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t length = (data_pages + 1) * page_size;
  // PROT_WRITE makes this a "writable" ring: the kernel honours data_tail and never overwrites
  // records we have not consumed (it counts them in PERF_RECORD_LOST instead).
  void* address = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, perf_fd, 0);
  if (address == MAP_FAILED) {
    return base::Status::Errno(errno, "mmap of the perf ring buffer (%zu KiB)", length / 1024);
  }
  return RingBuffer(base::ScopedMmap(address, length), page_size, data_pages * page_size);
}

size_t RingBuffer::Drain(const std::function<void(std::string_view record)>& consume) {
  auto* meta = static_cast<perf_event_mmap_page*>(mapping_.data());
  const char* data = static_cast<const char*>(mapping_.data()) + page_size_;
  // Memory ordering (the protocol of linux/perf_event.h, "data_head"): the kernel writes the
  // records, then data_head. Our acquire load of data_head pairs with that, so every byte below
  // head is visible. We publish data_tail with a release store after we have finished reading,
  // so the kernel (which reads data_tail before overwriting) never reuses bytes we still read.
  const uint64_t head = std::atomic_ref<__u64>(meta->data_head).load(std::memory_order_acquire);
  uint64_t tail = meta->data_tail;  // only we write it
  const size_t start_tail = tail;
  while (head - tail >= sizeof(perf_event_header)) {
    const size_t offset = tail & (data_size_ - 1);
    perf_event_header header;
    // The header itself may straddle the end of the ring.
    const size_t first = std::min(sizeof(header), data_size_ - offset);
    std::memcpy(&header, data + offset, first);
    std::memcpy(reinterpret_cast<char*>(&header) + first, data, sizeof(header) - first);
    // The kernel never writes a record shorter than its header; a zero size would loop forever,
    // so treat it as the end of what is readable.
    if (header.size < sizeof(header) || head - tail < header.size) break;
    if (offset + header.size <= data_size_) {
      consume(std::string_view(data + offset, header.size));
    } else {
      scratch_.resize(header.size);
      const size_t head_part = data_size_ - offset;
      std::memcpy(scratch_.data(), data + offset, head_part);
      std::memcpy(scratch_.data() + head_part, data, header.size - head_part);
      consume(std::string_view(scratch_.data(), header.size));
    }
    tail += header.size;
  }
  std::atomic_ref<__u64>(meta->data_tail).store(tail, std::memory_order_release);
  return tail - start_tail;
}

}  // namespace jitscope::record
