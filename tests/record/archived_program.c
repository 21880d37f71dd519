/* Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
 *
 * archive_test.cc's program, built by the test against its library (archived_library.c): main
 * calls ArchivedOuter, which calls the library's ArchivedWork, until it has used SECONDS (its
 * argument) of CPU time. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

unsigned long ArchivedWork(unsigned long n);

__attribute__((noinline)) unsigned long ArchivedOuter(unsigned long n) {
  return ArchivedWork(n) + 1;
}

int main(int argc, char** argv) {
  const clock_t end = (clock_t)((argc > 1 ? atof(argv[1]) : 0.1) * CLOCKS_PER_SEC);
  unsigned long total = 0;
  while (clock() < end) total += ArchivedOuter(100000);
  printf("%lu\n", total);
  return 0;
}
