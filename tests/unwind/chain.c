// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "chain.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

// Stores the registers as they are at its own entry (rsp pointing at the return address, rip =
// chain_capture), then copies the stack from there up to the stack's end or 64 KiB. Its CFI is
// the entry state of any function: CFA = rsp + 8, return address at CFA - 8.
__asm__(
    ".text\n"
    ".globl chain_capture\n"
    ".type chain_capture, @function\n"
    "chain_capture:\n"
    ".cfi_startproc\n"
    "  movq %rax, 0(%rdi)\n"
    "  movq %rbx, 8(%rdi)\n"
    "  movq %rcx, 16(%rdi)\n"
    "  movq %rdx, 24(%rdi)\n"
    "  movq %rsi, 32(%rdi)\n"
    "  movq %rdi, 40(%rdi)\n"
    "  movq %rbp, 48(%rdi)\n"
    "  movq %rsp, 56(%rdi)\n"
    "  leaq chain_capture(%rip), %rax\n"
    "  movq %rax, 64(%rdi)\n"
    "  movq %r8, 128(%rdi)\n"
    "  movq %r9, 136(%rdi)\n"
    "  movq %r10, 144(%rdi)\n"
    "  movq %r11, 152(%rdi)\n"
    "  movq %r12, 160(%rdi)\n"
    "  movq %r13, 168(%rdi)\n"
    "  movq %r14, 176(%rdi)\n"
    "  movq %r15, 184(%rdi)\n"
    "  movq 0(%rdi), %rax\n"
    "  jmp chain_copy_stack\n"
    ".cfi_endproc\n"
    ".size chain_capture, .-chain_capture\n");

// The stack's end: the top of the [stack] mapping that holds `sp`.
static uint64_t StackEnd(uint64_t sp) {
  FILE* maps = fopen("/proc/self/maps", "r");
  uint64_t end = sp;
  char line[512];
  while (maps != NULL && fgets(line, sizeof(line), maps) != NULL) {
    unsigned long long lo = 0, hi = 0;
    if (sscanf(line, "%llx-%llx", &lo, &hi) == 2 && sp >= lo && sp < hi) end = hi;
  }
  if (maps != NULL) fclose(maps);
  return end;
}

// Copies raw stack bytes, as the kernel does: sanitizers' redzones between locals are part of
// the stack too, so this read is not instrumented (and volatile, so it stays a byte loop rather
// than an intercepted memcpy).
__attribute__((no_sanitize("address"), noinline)) static void CopyRaw(
    unsigned char* to, const volatile unsigned char* from, size_t size) {
  for (size_t i = 0; i < size; ++i) to[i] = from[i];
}

__attribute__((used, noinline)) void chain_copy_stack(struct CapturedStack* out) {
  const uint64_t sp = out->regs[7];
  uint64_t size = StackEnd(sp) - sp;
  if (size > sizeof(out->stack)) size = sizeof(out->stack);
  out->stack_start = sp;
  out->stack_size = (size_t)size;
  CopyRaw(out->stack, (const volatile unsigned char*)(uintptr_t)sp, (size_t)size);
}

volatile int chain_sink;

__attribute__((noinline)) int chain_leaf(struct CapturedStack* out, int depth) {
  chain_capture(out);
  return chain_sink + depth;
}

__attribute__((noinline)) int chain_inner(struct CapturedStack* out, int depth) {
  volatile char pad[40];  // a frame of its own, so the CFA rule differs from the entry's
  pad[0] = (char)depth;
  return chain_leaf(out, depth + 1) + pad[0];
}

__attribute__((noinline)) int chain_middle(struct CapturedStack* out, int depth) {
  return chain_inner(out, depth + 1) * 3;
}

__attribute__((noinline)) int chain_outer(struct CapturedStack* out, int depth) {
  return chain_middle(out, depth + 1) + 1;
}

static struct CapturedStack* g_signal_out;
static volatile sig_atomic_t g_signalled;

__attribute__((noinline)) void chain_handler(int signal_number) {
  (void)signal_number;
  chain_capture(g_signal_out);
  g_signalled = 1;
}

__attribute__((noinline)) int chain_spin(void) {
  int turns = 0;
  while (!g_signalled) ++turns;
  return turns;
}

__attribute__((noinline)) int chain_signal_outer(struct CapturedStack* out) {
  g_signal_out = out;
  g_signalled = 0;
  struct sigaction action, old;
  memset(&action, 0, sizeof(action));
  action.sa_handler = chain_handler;
  sigaction(SIGALRM, &action, &old);
  struct itimerval timer;
  memset(&timer, 0, sizeof(timer));
  timer.it_value.tv_usec = 20000;
  setitimer(ITIMER_REAL, &timer, NULL);
  const int turns = chain_spin();
  sigaction(SIGALRM, &old, NULL);
  return turns > 0 ? 1 : 0;
}
