/* Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
 *
 * A JIT that re-execs itself: each program image generates one function, gen_<GEN>, reports it
 * through the Intel API (its method id is the image's first, the same in every image), runs it
 * for CPU_MS milliseconds of CPU time, prints "gen_<GEN> <address> <start ns> <end ns>" (the
 * function's address, and when it ran, CLOCK_MONOTONIC), then execs itself into GEN + 1 until
 * GEN is LAST.
 *   exec_jit GEN LAST CPU_MS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "jitprofiling.h"

static unsigned long long Now(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: exec_jit GEN LAST CPU_MS\n");
    return 2;
  }
  const int gen = atoi(argv[1]);
  const int last = atoi(argv[2]);
  const unsigned long long cpu_ns = strtoull(argv[3], NULL, 10) * 1000000ull;
  /* mov ecx, 100000; 1: dec ecx; jnz 1b; ret */
  static const unsigned char kCode[] = {0xB9, 0xA0, 0x86, 0x01, 0x00, 0xFF, 0xC9, 0x75, 0xFC, 0xC3};
  unsigned char* code =
      (unsigned char*)mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED) return 1;
  memcpy(code, kCode, sizeof kCode);
  if (mprotect(code, 4096, PROT_READ | PROT_EXEC) != 0) return 1;

  char name[32];
  snprintf(name, sizeof name, "gen_%d", gen);
  if (iJIT_IsProfilingActive() == iJIT_SAMPLING_ON) {
    iJIT_Method_Load method;
    memset(&method, 0, sizeof method);
    method.method_id = iJIT_GetNewMethodID();
    method.method_name = name;
    method.method_load_address = code;
    method.method_size = sizeof kCode;
    iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &method);
  }

  void (*run)(void);
  memcpy(&run, &code, sizeof run);
  const unsigned long long start = Now(CLOCK_MONOTONIC);
  const unsigned long long cpu_start = Now(CLOCK_PROCESS_CPUTIME_ID);
  while (Now(CLOCK_PROCESS_CPUTIME_ID) - cpu_start < cpu_ns) run();
  printf("%s %p %llu %llu\n", name, (void*)code, start, Now(CLOCK_MONOTONIC));
  fflush(stdout);
  if (gen == last) return 0;
  char next[16];
  snprintf(next, sizeof next, "%d", gen + 1);
  execl("/proc/self/exe", argv[0], next, argv[2], argv[3], (char*)NULL);
  perror("exec_jit: execl");
  return 1;
}
