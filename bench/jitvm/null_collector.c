/* Copyright 2026 The jitscope Authors
 * SPDX-License-Identifier: Apache-2.0 */

/*
 * A collector that declines to collect: Initialize returns 0 (iJIT_NOTHING_RUNNING), so the stub
 * reports "no profiler" to the JIT, and NotifyEvent drops everything. It is the baseline that
 * bench/jitvm_api_overhead compares "INTEL_JIT_PROFILER64 unset" with: the same process with a
 * collector present but inactive (Intel's stub).
 */

unsigned int Initialize(void) { return 0; }

unsigned int NotifyEvent(unsigned int event_type, void* data) {
  (void)event_type;
  (void)data;
  return 0;
}
