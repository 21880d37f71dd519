// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/unwind/stack_memory.h"

#include <cstring>

namespace jitscope::unwind {

ReadResult StackMemory::Read(uint64_t address, int size, uint64_t& value) const {
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

}  // namespace jitscope::unwind
