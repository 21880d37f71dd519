// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Move-only owners for OS resources (after Perfetto's scoped_file.h): every fd and mapping in
// jitscope has exactly one owner that releases it in its destructor.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <utility>

namespace jitscope::base {

template <typename T, int (*CloseFunction)(T), T kInvalid>
class ScopedResource {
 public:
  ScopedResource() = default;
  explicit ScopedResource(T handle) : handle_(handle) {}
  ~ScopedResource() { reset(); }

  ScopedResource(const ScopedResource&) = delete;
  ScopedResource& operator=(const ScopedResource&) = delete;
  ScopedResource(ScopedResource&& other) noexcept : handle_(other.release()) {}
  ScopedResource& operator=(ScopedResource&& other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
  }

  T get() const { return handle_; }
  explicit operator bool() const { return handle_ != kInvalid; }

  T release() { return std::exchange(handle_, kInvalid); }
  void reset(T handle = kInvalid) {
    if (handle_ != kInvalid) CloseFunction(handle_);
    handle_ = handle;
  }

 private:
  T handle_ = kInvalid;
};

using ScopedFd = ScopedResource<int, ::close, -1>;

// Owns one mmap()ed range; unmaps it on destruction.
class ScopedMmap {
 public:
  ScopedMmap() = default;
  ScopedMmap(void* address, size_t size) : address_(address), size_(size) {}
  ~ScopedMmap() { reset(); }

  ScopedMmap(const ScopedMmap&) = delete;
  ScopedMmap& operator=(const ScopedMmap&) = delete;
  ScopedMmap(ScopedMmap&& other) noexcept
      : address_(std::exchange(other.address_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  ScopedMmap& operator=(ScopedMmap&& other) noexcept {
    if (this != &other) {
      reset();
      address_ = std::exchange(other.address_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }

  void* data() const { return address_; }
  size_t size() const { return size_; }
  explicit operator bool() const { return address_ != nullptr; }

  // Gives up ownership without unmapping (for intentional leaks at process exit).
  void release() {
    address_ = nullptr;
    size_ = 0;
  }
  void reset() {
    if (address_ != nullptr) ::munmap(address_, size_);
    address_ = nullptr;
    size_ = 0;
  }

 private:
  void* address_ = nullptr;
  size_t size_ = 0;
};

}  // namespace jitscope::base
