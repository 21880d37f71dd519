// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// A native program built as Debian builds its libraries, without frame pointers: a frame-pointer
// walk cannot get from `inner` to its callers, a DWARF unwind can. main → outer → middle → inner,
// where inner spins; every call is used afterwards, so none is a tail call, and noipa keeps GCC
// from seeing that they are pure and calling them once.
#include <stdio.h>
#include <stdlib.h>

__attribute__((noipa)) long inner(long n) {
  long sum = 0;
  for (long i = 0; i < n; ++i) sum += (i * i) ^ (sum >> 3);
  return sum;
}

__attribute__((noipa)) long middle(long n) { return inner(n) + 1; }

__attribute__((noipa)) long outer(long n) { return middle(n) * 2; }

int main(int argc, char** argv) {
  const long rounds = argc > 1 ? atol(argv[1]) : 100;
  long total = 0;
  for (long r = 0; r < rounds; ++r) total += outer(1000000 + r);
  printf("%ld\n", total);
  return 0;
}
