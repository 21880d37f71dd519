// Copyright 2026 The jitscope Authors
// SPDX-License-Identifier: Apache-2.0

// The C++ side of the ABI test: the compile-time checks of src/jitscope/api/abi_checks.h with
// static_assert, plus a run-time comparison of every payload and enum size between the C compiler
// (src/jitscope/api/abi_check.c) and the C++ compiler. Built twice: as api_abi_test and, with
// JITSCOPE_JIT_LEGACY_API, as api_abi_legacy_test (separate binaries, because the two
// iJIT_Method_Load layouts must not meet in one program).

#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#define JITSCOPE_ABI_ASSERT(condition, name) static_assert(condition, #name)
#define JITSCOPE_ABI_ALIGNOF(type) alignof(type)

#include "jitscope/api/abi_checks.h"

extern "C" const size_t kJitscopeAbiCSizes[];
extern "C" const size_t kJitscopeAbiCSizeCount;

namespace {

// Distinct suite names keep the two builds' CTest names apart.
#ifdef JITSCOPE_JIT_LEGACY_API
#define JITSCOPE_ABI_SUITE ApiAbiLegacyTest
#else
#define JITSCOPE_ABI_SUITE ApiAbiTest
#endif

struct TypeSize {
  std::string name;
  size_t size;
};

#define JITSCOPE_ABI_ENTRY(type) TypeSize{#type, sizeof(type)},
const std::vector<TypeSize> kCxxSizes = {JITSCOPE_ABI_TYPES(JITSCOPE_ABI_ENTRY)};

TEST(JITSCOPE_ABI_SUITE, CAndCxxAgreeOnEverySize) {
  ASSERT_EQ(kJitscopeAbiCSizeCount, kCxxSizes.size());
  for (size_t i = 0; i < kCxxSizes.size(); ++i) {
    EXPECT_EQ(kJitscopeAbiCSizes[i], kCxxSizes[i].size) << kCxxSizes[i].name;
  }
}

// The payloads must stay plain C data in C++ too: trivial, standard-layout, memcpy-able.
#define JITSCOPE_ABI_PLAIN(type) \
  static_assert(std::is_trivial_v<type> && std::is_standard_layout_v<type>, #type);
JITSCOPE_ABI_TYPES(JITSCOPE_ABI_PLAIN)

#if defined(__x86_64__)
TEST(JITSCOPE_ABI_SUITE, ExpectedSizesOnX86_64) {
#ifdef JITSCOPE_JIT_LEGACY_API
  EXPECT_EQ(80u, sizeof(iJIT_Method_Load));
  EXPECT_EQ(16u, sizeof(iJIT_Method_NIDS));
#else
  EXPECT_EQ(64u, sizeof(iJIT_Method_Load));
#endif
  EXPECT_EQ(8u, sizeof(LineNumberInfo));
  EXPECT_EQ(64u, sizeof(iJIT_Method_Load_V2));
  EXPECT_EQ(72u, sizeof(iJIT_Method_Load_V3));
  EXPECT_EQ(56u, sizeof(iJIT_Method_Inline_Load));
  EXPECT_EQ(24u, sizeof(iJIT_Method_Update));
}
#endif

}  // namespace
