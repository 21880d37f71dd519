// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Spends its time in the vDSO: clock_gettime(CLOCK_MONOTONIC) in a loop, for unwinding out of it.
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) static unsigned long spin(long n) {
  unsigned long odd = 0;
  for (long i = 0; i < n; ++i) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    odd += (unsigned long)ts.tv_nsec & 1;
  }
  return odd;
}

int main(int argc, char** argv) {
  printf("%lu\n", spin(argc > 1 ? atol(argv[1]) : 1000000));
  return 0;
}
