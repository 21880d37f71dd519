/* Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
 *
 * The library of archive_test.cc's program, built by the test: ArchivedWork does its work. Built
 * again with -DARCHIVED_VARIANT, it is another build of the same library (other code, another
 * build id), as a package upgrade leaves one at the same path. */
#ifndef ARCHIVED_VARIANT
#define ARCHIVED_VARIANT 1
#endif

__attribute__((noinline)) unsigned long ArchivedWork(unsigned long n) {
  unsigned long sum = ARCHIVED_VARIANT;
  for (unsigned long i = 0; i < n; ++i) sum += (i * i * ARCHIVED_VARIANT) ^ (sum >> 3);
  return sum;
}
