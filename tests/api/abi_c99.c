/* Copyright 2026 The jitscope Authors
 * SPDX-License-Identifier: Apache-2.0 */

/*
 * The C side of the ABI test: include/jitprofiling.h must compile as strict C99
 * (-std=c99 -pedantic-errors -Werror) and give Intel's values and layouts (abi_checks.h). The
 * sizes the C compiler sees are exported so abi_test.cc can compare them with the C++ compiler's.
 */

#include <stddef.h>

/* C99 has no _Static_assert: a negative array size is the portable compile-time failure. */
#define JITSCOPE_ABI_ASSERT(condition, name) \
  typedef char jitscope_abi_assert_##name[(condition) ? 1 : -1]
#define JITSCOPE_ABI_ALIGNOF(type) \
  offsetof(                        \
      struct {                     \
        char c;                    \
        type member;               \
      },                           \
      member)

#include "abi_checks.h"

#define JITSCOPE_ABI_SIZEOF(type) sizeof(type),
const size_t kJitscopeAbiCSizes[] = {JITSCOPE_ABI_TYPES(JITSCOPE_ABI_SIZEOF)};
const size_t kJitscopeAbiCSizeCount = sizeof kJitscopeAbiCSizes / sizeof kJitscopeAbiCSizes[0];
