// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "stack_limit.h"

#include <pthread.h>

namespace jitscope::jitvm {

uintptr_t CurrentThreadStackLimit() {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return 0;
  void* low = nullptr;
  size_t size = 0;
  const int rc = pthread_attr_getstack(&attr, &low, &size);
  pthread_attr_destroy(&attr);
  if (rc != 0 || size <= 2 * kStackMargin) return 0;
  return reinterpret_cast<uintptr_t>(low) + kStackMargin;
}

}  // namespace jitscope::jitvm
