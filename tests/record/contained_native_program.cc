// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// A native program that spins forever in two functions called from a third, for container_test:
// run as /prog in a root directory of its own, it exists nowhere on the host. The names are C
// names, so report shows them as they are.
#include <cstdint>

extern "C" {

__attribute__((noinline)) uint64_t ContainedSquares(uint64_t n) {
  volatile uint64_t sum = 0;
  for (uint64_t i = 0; i < n; ++i) sum = sum + i * i;
  return sum;
}

__attribute__((noinline)) uint64_t ContainedCubes(uint64_t n) {
  volatile uint64_t sum = 0;
  for (uint64_t i = 0; i < n; ++i) sum = sum + i * i * i;
  return sum;
}

__attribute__((noinline)) uint64_t ContainedOuter() {
  uint64_t total = 0;
  for (;;) total += ContainedSquares(3000000) + ContainedCubes(1000000);
  return total;
}

}  // extern "C"

int main() { return static_cast<int>(ContainedOuter()); }
