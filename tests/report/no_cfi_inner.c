// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The leaf of no_frame_pointers.c built with INNER_ELSEWHERE (native_without_cfi), compiled
// without unwind tables: code of an ELF file that its CFI does not describe (as V8's builtins in
// the node binary, or hand-written assembly), whose rules the unwinder derives from the file's
// bytes. The program is built twice: with its symbol table, and stripped (inner then is the gap
// between the code the file's .eh_frame describes).
#if defined(__clang__)
#define KEEP_CALLS __attribute__((noinline))
#else
#define KEEP_CALLS __attribute__((noipa))
#endif

volatile long g_inner_last_n;

KEEP_CALLS long inner(long n) {
  g_inner_last_n = n;
  unsigned long sum = 0;  // unsigned: the sum wraps, which UBSan rightly refuses for a long
  for (unsigned long i = 0; i < (unsigned long)n; ++i) sum += (i * i) ^ (sum >> 3);
  return (long)(sum >> 1);
}
