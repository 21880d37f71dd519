/* Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
 *
 * Passes an arbitrary event number to iJIT_NotifyEvent. In C an enum parameter may hold any
 * int value; in C++ a value outside the enum's range is undefined behaviour, so the C++ tests
 * send undefined event types through here. */
#include "jitprofiling.h"

int NotifyRaw(unsigned int event_type, void* data) {
  return iJIT_NotifyEvent((iJIT_JVM_EVENT)event_type, data);
}
