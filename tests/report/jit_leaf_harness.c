// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Ground truth for unwinding into JIT code from native code that keeps no frame pointer:
// main → harness_outer → harness_middle, C built as Debian builds its libraries (-O2
// -fomit-frame-pointer), call a JIT function `jit_leaf` that it writes into executable memory and
// reports through jitprofiling.h. Every function has one caller, so every sample taken in
// jit_leaf has one true stack. jit_leaf keeps no frame pointer either: it saves rbx, moves rsp and
// spins on dependent multiplies. Argument: seconds of CPU time to run. It runs only under a
// collector (exit status 3 otherwise).
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

typedef uint64_t (*Leaf)(uint64_t iterations);

static volatile uint64_t g_sink;

// push rbx; sub rsp, 0x20; mov rcx, rdi; mov eax, 1; loop: 8 x imul rax, rax, 7; dec rcx;
// jnz loop; add rsp, 0x20; pop rbx; ret.
static size_t EmitLeaf(uint8_t* code) {
  size_t at = 0;
  static const uint8_t kPrologue[] = {0x53, 0x48, 0x83, 0xec, 0x20, 0x48, 0x89,
                                      0xf9, 0xb8, 0x01, 0x00, 0x00, 0x00};
  memcpy(code + at, kPrologue, sizeof kPrologue);
  at += sizeof kPrologue;
  const size_t loop = at;
  for (int i = 0; i < 8; ++i) {
    static const uint8_t kImul[] = {0x48, 0x6b, 0xc0, 0x07};
    memcpy(code + at, kImul, sizeof kImul);
    at += sizeof kImul;
  }
  static const uint8_t kDec[] = {0x48, 0xff, 0xc9, 0x0f, 0x85};
  memcpy(code + at, kDec, sizeof kDec);
  at += sizeof kDec;
  const int32_t back = (int32_t)loop - (int32_t)(at + 4);
  memcpy(code + at, &back, 4);
  at += 4;
  static const uint8_t kEpilogue[] = {0x48, 0x83, 0xc4, 0x20, 0x5b, 0xc3};
  memcpy(code + at, kEpilogue, sizeof kEpilogue);
  return at + sizeof kEpilogue;
}

KEEP_CALLS uint64_t harness_middle(Leaf leaf, uint64_t n) {
  g_sink = n;
  return leaf(n) + 1;
}

KEEP_CALLS uint64_t harness_outer(Leaf leaf, uint64_t n) {
  g_sink = n;
  return harness_middle(leaf, n) * 3;
}

static double CpuSeconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? atof(argv[1]) : 1.0;
  uint8_t* code =
      mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED) {
    perror("jit_leaf_harness: mmap");
    return 1;
  }
  iJIT_Method_Load load;
  memset(&load, 0, sizeof load);
  load.method_id = iJIT_GetNewMethodID();
  load.method_name = (char*)"jit_leaf";
  load.method_load_address = code;
  load.method_size = (unsigned)EmitLeaf(code);
  // Unreported, the leaf would be [anonymous] and the test's failure would say only that no
  // sample was in it; the stub has already said why profiling is off.
  if (iJIT_IsProfilingActive() != iJIT_SAMPLING_ON) {
    fprintf(stderr, "jit_leaf_harness: profiling is off; run it under jitscope record\n");
    return 3;
  }
  if (iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &load) != 1) {
    fprintf(stderr, "jit_leaf_harness: the collector refused the load\n");
    return 2;
  }
  const Leaf leaf = (Leaf)(void*)code;
  uint64_t total = 0;
  const double end = CpuSeconds() + seconds;
  while (CpuSeconds() < end) total += harness_outer(leaf, 200000);
  printf("%llu\n", (unsigned long long)(total & 0xff));
  return 0;
}
