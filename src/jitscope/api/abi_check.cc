// Copyright 2026 The jitscope Authors
// SPDX-License-Identifier: Apache-2.0

// The ABI checks (abi_checks.h) as C++: the collector is C++ and reads the callers' structs with
// the C++ compiler's idea of their layout, which must be Intel's too.

#define JITSCOPE_ABI_ASSERT(condition, name) static_assert(condition, #name)
#define JITSCOPE_ABI_ALIGNOF(type) alignof(type)

#include "abi_checks.h"
