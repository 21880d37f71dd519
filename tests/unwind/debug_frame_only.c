// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// A function whose only call-frame information is in .debug_frame (built with -g and without
// unwind tables), so that once the debug sections are split off into a separate debug file, the
// file itself has no CFI at all (cfi_module_test.cc).
int debug_frame_only_callee(int x);

__attribute__((noinline)) int debug_frame_only_callee(int x) { return x * 3 + 1; }

__attribute__((noinline)) int debug_frame_only_function(int n) {
  int sum = 0;
  for (int i = 0; i < n; ++i) sum += debug_frame_only_callee(i);
  return sum;
}
