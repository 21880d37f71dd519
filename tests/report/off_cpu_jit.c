// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Ground truth for off-CPU time through JIT code: main calls two JIT functions, jit_compute and
// jit_wait, that it writes into executable memory and reports through jitprofiling.h, in turns;
// each calls back into a native function, Compute (spins for CPU_MS of this process's CPU time)
// or WaitHere (sleeps WAIT_MS of wall time; with "lock", waits as long on a condition variable).
// Each JIT function keeps a frame pointer and no unwind table, as a simple JIT's code does. So
// the program computes CPU_MS and waits WAIT_MS in each of ROUNDS rounds, every wait in main ->
// jit_wait -> WaitHere, and prints the CPU time it computed and the wall time it waited, as it
// measured them: "computed 0.200123 s, waited 0.301456 s".
//   off_cpu_jit CPU_MS WAIT_MS ROUNDS [lock]
// Without a collector it runs the same, its JIT functions unreported.
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "jitprofiling.h"

#if defined(__clang__)
#define KEEP_CALLS __attribute__((noinline))
#else
#define KEEP_CALLS __attribute__((noipa))
#endif

typedef void (*Native)(uint64_t milliseconds);
typedef void (*Trampoline)(Native native, uint64_t milliseconds);

static volatile uint64_t g_sink;

static double CpuSeconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

// What the program did, measured as it did it: the CPU time Compute used and the wall time
// WaitHere took (its sleeps, and the wait for a CPU once they ended).
static double g_computed;
static double g_waited;

static double WallSeconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

KEEP_CALLS void Compute(uint64_t milliseconds) {
  const double begin = CpuSeconds();
  const double end = begin + (double)milliseconds / 1e3;
  double now = begin;
  while (now < end) {
    for (int i = 0; i < 10000; ++i) g_sink = g_sink * 7 + 1;
    now = CpuSeconds();
  }
  g_computed += now - begin;
}

// With "lock", WaitHere waits on a condition variable nobody signals, until its time is up: a
// futex, as a thread waiting for a lock or for work does.
static int g_lock;
static pthread_mutex_t g_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_condition;

KEEP_CALLS void WaitHere(uint64_t milliseconds) {
  const double begin = WallSeconds();
  struct timespec ts = {(time_t)(milliseconds / 1000), (long)(milliseconds % 1000) * 1000000L};
  if (g_lock) {
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += ts.tv_sec + (until.tv_nsec + ts.tv_nsec) / 1000000000L;
    until.tv_nsec = (until.tv_nsec + ts.tv_nsec) % 1000000000L;
    pthread_mutex_lock(&g_mutex);
    while (pthread_cond_timedwait(&g_condition, &g_mutex, &until) == 0) {
    }
    pthread_mutex_unlock(&g_mutex);
  } else {
    while (nanosleep(&ts, &ts) != 0) {
    }
  }
  g_waited += WallSeconds() - begin;
}

// push rbp; mov rbp, rsp; mov rax, rdi; mov rdi, rsi; call rax; pop rbp; ret: calls its first
// argument with its second.
static const uint8_t kTrampoline[] = {0x55, 0x48, 0x89, 0xe5, 0x48, 0x89, 0xf8,
                                      0x48, 0x89, 0xf7, 0xff, 0xd0, 0x5d, 0xc3};

static int Report(uint8_t* code, const char* name) {
  iJIT_Method_Load load;
  memset(&load, 0, sizeof load);
  load.method_id = iJIT_GetNewMethodID();
  load.method_name = (char*)name;
  load.method_load_address = code;
  load.method_size = sizeof kTrampoline;
  return iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &load) == 1;
}

int main(int argc, char** argv) {
  if (argc != 4 && !(argc == 5 && strcmp(argv[4], "lock") == 0)) {
    fprintf(stderr, "usage: off_cpu_jit CPU_MS WAIT_MS ROUNDS [lock]\n");
    return 2;
  }
  g_lock = argc == 5;
  pthread_condattr_t attributes;
  pthread_condattr_init(&attributes);
  pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
  pthread_cond_init(&g_condition, &attributes);
  const uint64_t cpu_ms = strtoull(argv[1], NULL, 10);
  const uint64_t wait_ms = strtoull(argv[2], NULL, 10);
  const long rounds = atol(argv[3]);
  uint8_t* code =
      mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED) {
    perror("off_cpu_jit: mmap");
    return 1;
  }
  memcpy(code, kTrampoline, sizeof kTrampoline);
  memcpy(code + 64, kTrampoline, sizeof kTrampoline);
  // Without a collector (an unprofiled run) it runs the same,
  // its JIT functions unreported.
  if (iJIT_IsProfilingActive() == iJIT_SAMPLING_ON &&
      (!Report(code, "jit_compute") || !Report(code + 64, "jit_wait"))) {
    fprintf(stderr, "off_cpu_jit: the collector refused a load\n");
    return 2;
  }
  const Trampoline jit_compute = (Trampoline)(void*)code;
  const Trampoline jit_wait = (Trampoline)(void*)(code + 64);
  for (long i = 0; i < rounds; ++i) {
    jit_compute(Compute, cpu_ms);
    jit_wait(WaitHere, wait_ms);
  }
  printf("computed %.6f s, waited %.6f s\n", g_computed, g_waited);
  return 0;
}
