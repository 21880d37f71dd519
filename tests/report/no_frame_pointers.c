// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// A native program built as Debian builds its libraries, without frame pointers: a frame-pointer
// walk cannot get from `inner` to its callers, a DWARF unwind can. main → outer → middle → inner,
// where inner spins; every call is used afterwards, so none is a tail call, and each stores to a
// volatile, so no compiler takes them for pure and calls them once. GCC's noipa also keeps it from
// cloning them under other names; clang (the sanitized builds) does not know it. Argument: seconds
// of CPU time to run (default 0.1), so a sampler takes as many samples on any machine.
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(__clang__)
#define KEEP_CALLS __attribute__((noinline))
#else
#define KEEP_CALLS __attribute__((noipa))
#endif

static volatile long g_last_n;

#if defined(INNER_ELSEWHERE)
// no_cfi_inner.c, compiled without unwind tables (native_without_cfi).
long inner(long n);
#else
KEEP_CALLS long inner(long n) {
  g_last_n = n;
  unsigned long sum = 0;  // unsigned: the sum wraps, which UBSan rightly refuses for a long
  for (unsigned long i = 0; i < (unsigned long)n; ++i) sum += (i * i) ^ (sum >> 3);
  return (long)(sum >> 1);
}
#endif

KEEP_CALLS long middle(long n) {
  g_last_n = n;
  return (long)((unsigned long)inner(n) + 1);
}

KEEP_CALLS long outer(long n) {
  g_last_n = n;
  return (long)((unsigned long)middle(n) * 2);
}

int main(int argc, char** argv) {
  const clock_t end = (clock_t)((argc > 1 ? atof(argv[1]) : 0.1) * CLOCKS_PER_SEC);
  unsigned long total = 0;
  for (long r = 0; clock() < end; ++r) total += (unsigned long)outer(1000000 + r);
  printf("%lu\n", total);
  return 0;
}
