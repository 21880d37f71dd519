// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// An allocator for large arrays that asks for transparent huge pages: the symbol index's, and the
// readers' of large files. Random lookups over 1,000,000 methods touch ~100 MB at random: with
// 4 KiB pages nearly every access is also a TLB miss and a page walk; with 2 MiB pages the whole
// index fits the TLB. Filling a new array pays a page fault per page: 512 times fewer with huge
// pages. Debian (and this project's machines) enable THP only on request (`madvise` mode), hence
// MADV_HUGEPAGE. Blocks
// under 2 MiB come from operator new as usual. If the kernel gives no huge pages, the memory is
// still ordinary, correct memory.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>
#include <vector>

namespace jitscope::base {

template <typename T>
class HugePageAllocator {
 public:
  using value_type = T;
  static constexpr size_t kHugePage = size_t{2} << 20;

  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) {}  // NOLINT: rebinding

  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kHugePage) return static_cast<T*>(::operator new(bytes));
    // Map one huge page more than needed and trim, so the block starts on a 2 MiB boundary.
    const size_t size = Rounded(bytes);
    void* raw = ::mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) throw std::bad_alloc();
    const auto start = reinterpret_cast<uintptr_t>(raw);
    const uintptr_t aligned = (start + kHugePage - 1) & ~(kHugePage - 1);
    if (aligned > start) ::munmap(raw, aligned - start);
    const uintptr_t tail = start + size + kHugePage - (aligned + size);
    if (tail > 0) ::munmap(reinterpret_cast<void*>(aligned + size), tail);
    ::madvise(reinterpret_cast<void*>(aligned), size, MADV_HUGEPAGE);
    return reinterpret_cast<T*>(aligned);
  }

  void deallocate(T* p, size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kHugePage) {
      ::operator delete(p);
    } else {
      ::munmap(p, Rounded(bytes));
    }
  }

  template <typename U>
  bool operator==(const HugePageAllocator<U>&) const {
    return true;
  }

 private:
  static size_t Rounded(size_t bytes) { return (bytes + kHugePage - 1) & ~(kHugePage - 1); }
};

template <typename T>
using HugeVector = std::vector<T, HugePageAllocator<T>>;

// Gives back the memory of the room `vector` reserved past its last element, without moving it:
// the whole pages there are dropped (MADV_DONTNEED) and read as zeros again if it grows into
// them. shrink_to_fit would copy every element into a new block and, for a moment, hold both: at
// the end of building a large index, that copy was the peak. Blocks under 2 MiB came from
// operator new and are left as they are.
template <typename T>
void ReleaseUnused(HugeVector<T>& vector) {
  static_assert(std::is_trivially_copyable_v<T>);
  const size_t bytes = vector.capacity() * sizeof(T);
  if (bytes < HugePageAllocator<T>::kHugePage) return;
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<uintptr_t>(vector.data());
  const uintptr_t used = (begin + vector.size() * sizeof(T) + page - 1) & ~(page - 1);
  const uintptr_t end = begin + bytes;
  if (used < end) ::madvise(reinterpret_cast<void*>(used), end - used, MADV_DONTNEED);
}

}  // namespace jitscope::base
