// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "code_heap.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <iterator>

namespace jitscope::jitvm {

base::StatusOr<std::unique_ptr<CodeHeap>> CodeHeap::Create(size_t capacity) {
  // MAP_NORESERVE: the reservation is address space, not memory; untouched pages cost nothing.
  void* memory = ::mmap(nullptr, capacity, PROT_READ | PROT_WRITE | PROT_EXEC,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (memory == MAP_FAILED) {
    return base::Status::Errno(errno, "cannot map %zu bytes of executable memory", capacity);
  }
  return std::unique_ptr<CodeHeap>(new CodeHeap(base::ScopedMmap(memory, capacity)));
}

base::StatusOr<uint8_t*> CodeHeap::Allocate(size_t size) {
  size = Round(size == 0 ? 1 : size);
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second < size) continue;
    const size_t offset = it->first;
    const size_t rest = it->second - size;
    free_.erase(it);
    if (rest != 0) free_.emplace(offset + size, rest);
    in_use_ += size;
    ++reused_;  // every free block lies below the high-water mark
    return reinterpret_cast<uint8_t*>(base_ + offset);
  }
  if (size > mapping_.size() - top_) {
    return base::Status::Error("the code heap is full (%zu bytes); cannot place %zu more",
                               mapping_.size(), size);
  }
  const size_t offset = top_;
  if (offset < high_water_) ++reused_;
  top_ += size;
  if (top_ > high_water_) high_water_ = top_;
  in_use_ += size;
  return reinterpret_cast<uint8_t*>(base_ + offset);
}

void CodeHeap::Free(uint8_t* block, size_t size) {
  size = Round(size == 0 ? 1 : size);
  std::memset(block, 0xcc, size);  // int3
  in_use_ -= size;
  size_t offset = reinterpret_cast<uintptr_t>(block) - base_;
  // Coalesce with the free neighbours on both sides, then give the top back if it touches it.
  auto next = free_.lower_bound(offset);
  if (next != free_.end() && next->first == offset + size) {
    size += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto previous = std::prev(next);
    if (previous->first + previous->second == offset) {
      offset = previous->first;
      size += previous->second;
      free_.erase(previous);
    }
  }
  if (offset + size == top_) {
    top_ = offset;
  } else {
    free_.emplace(offset, size);
  }
}

}  // namespace jitscope::jitvm
