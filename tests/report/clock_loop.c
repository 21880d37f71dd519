// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Spends its time in the vDSO: clock_gettime(CLOCK_MONOTONIC) in a loop, for unwinding out of it.
// Argument: seconds of CPU time to run (default 0.1), so a sampler takes as many samples on any
// machine.
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

/* Read at run time, so no compiler specialises spin for it (GCC's spin.constprop.0). */
static volatile long g_rounds = 100000;

int main(int argc, char** argv) {
  const clock_t end = (clock_t)((argc > 1 ? atof(argv[1]) : 0.1) * CLOCKS_PER_SEC);
  unsigned long odd = 0;
  while (clock() < end) odd += spin(g_rounds);
  printf("%lu\n", odd);
  return 0;
}
