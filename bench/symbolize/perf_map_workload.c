/* Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
 *
 * Workload for perf_report_compare.sh: 1,000,000 "JIT methods" (64 bytes apart in an anonymous
 * executable mapping, each a `ret`), described by /tmp/perf-<pid>.map exactly as
 * symbol_index_bench describes them, then called at random for SECONDS seconds so that
 * `perf record` samples land all over them. Prints the map's path. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

enum { kMethods = 1000000, kStride = 64 };

static unsigned size_of(uint64_t i) { return (unsigned)(kStride - (i * 7919) % 16); }

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? atof(argv[1]) : 2.0;
  unsigned char* code = mmap(NULL, (size_t)kMethods * kStride, PROT_READ | PROT_WRITE | PROT_EXEC,
                             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED) return 1;
  memset(code, 0xc3, (size_t)kMethods * kStride); /* ret */
  char path[64];
  snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
  FILE* map = fopen(path, "w");
  if (map == NULL) return 1;
  for (uint64_t i = 0; i < kMethods; ++i) {
    fprintf(map, "%llx %x JS:*method_%llu app/module_%llu.js:%llu\n",
            (unsigned long long)(uintptr_t)(code + i * kStride), size_of(i), (unsigned long long)i,
            (unsigned long long)(i % 1000), (unsigned long long)(i % 5000 + 1));
  }
  fclose(map);
  printf("%s\n", path);
  fflush(stdout);
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  uint64_t x = 88172645463325252ull;
  for (;;) {
    for (int k = 0; k < 100000; ++k) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift */
      ((void (*)(void))(code + (x % kMethods) * kStride))();
    }
    clock_gettime(CLOCK_MONOTONIC, &now);
    if ((double)(now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9 > seconds) break;
  }
  return 0;
}
