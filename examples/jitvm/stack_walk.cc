// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "stack_walk.h"

namespace jitscope::jitvm {

std::vector<uintptr_t> WalkJitFrames(const uint64_t* frame, const CodeHeap& heap) {
  std::vector<uintptr_t> return_addresses;
  while (frame != nullptr) {
    const uintptr_t return_address = frame[1];
    if (!heap.Contains(return_address)) break;
    return_addresses.push_back(return_address);
    frame = reinterpret_cast<const uint64_t*>(frame[0]);  // the caller's saved rbp
  }
  return return_addresses;
}

// A conservative scan reads whatever the stack holds, the redzones AddressSanitizer puts between
// the locals of Vm::Run too.
__attribute__((no_sanitize("address"))) std::vector<uintptr_t> ScanJitReturnAddresses(
    const uint64_t* from, const uint64_t* to, const CodeHeap& heap) {
  std::vector<uintptr_t> return_addresses;
  for (const uint64_t* word = from; word != nullptr && word < to; ++word) {
    if (heap.Contains(*word)) return_addresses.push_back(*word);
  }
  return return_addresses;
}

}  // namespace jitscope::jitvm
