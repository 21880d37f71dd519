/* Copyright 2026 The jitscope Authors
 * SPDX-License-Identifier: Apache-2.0 */

/*
 * The ABI checks (abi_checks.h) as strict C99 (-std=c99 -pedantic-errors -Werror): the header must
 * compile that way and give Intel's values and layouts. The sizes the C compiler sees are exported
 * so tests/api/abi_test.cc can compare them with the C++ compiler's.
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
