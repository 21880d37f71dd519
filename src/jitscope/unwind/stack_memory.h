// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The only memory an unwind reads: the copy of the top of the user stack the kernel took with the
// sample (PERF_SAMPLE_STACK_USER), which starts at the sampled stack pointer. A read outside it
// fails and says which way: above its end (the copy was too short to reach that far), or below its
// start or anywhere else (memory the sample does not hold).
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace jitscope::unwind {

enum class ReadResult : uint8_t { kOk, kBeyondCopy, kUnreadable };

class StackMemory {
 public:
  StackMemory() = default;
  StackMemory(uint64_t start, std::string_view bytes) : start_(start), bytes_(bytes) {}

  // Reads a little-endian word of `size` bytes (4 or 8) at `address`. Inline: every step of
  // every walk reads through it.
  ReadResult Read(uint64_t address, int size, uint64_t& value) const {
    if (size != 4 && size != 8) return ReadResult::kUnreadable;
    if (address < start_) return ReadResult::kUnreadable;
    const uint64_t offset = address - start_;
    // An address well past the copy is not stack the kernel could have copied: a wild pointer.
    constexpr uint64_t kStackReach = uint64_t{64} << 20;
    if (offset > kStackReach) return ReadResult::kUnreadable;
    if (offset > bytes_.size() || bytes_.size() - offset < static_cast<uint64_t>(size)) {
      return ReadResult::kBeyondCopy;
    }
    value = 0;
    std::memcpy(&value, bytes_.data() + offset, static_cast<size_t>(size));
    return ReadResult::kOk;
  }

  uint64_t start() const { return start_; }
  uint64_t end() const { return start_ + bytes_.size(); }

 private:
  uint64_t start_ = 0;
  std::string_view bytes_;
};

}  // namespace jitscope::unwind
