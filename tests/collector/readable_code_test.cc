// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/collector/readable_code.h"

#include <sys/mman.h>

#include <string>

#include <gtest/gtest.h>

namespace jitscope::collector {
namespace {

constexpr char kMaps[] =
    "1000-3000 r-xp 00000000 08:01 12 /usr/bin/engine\n"
    "3000-4000 rw-p 00002000 08:01 12 /usr/bin/engine\n"
    "5000-6000 ---p 00000000 00:00 0 \n"
    "6000-8000 rwxp 00000000 00:00 0 \n"
    "7fff0000-7fff1000 r--p 00000000 00:00 0 [vvar]";  // no final newline

Area Find(uint64_t address, uint64_t size) {
  return FindReadableArea(kMaps, sizeof(kMaps) - 1, address, size);
}

TEST(ReadableCodeTest, AdjacentReadableMappingsAreOneArea) {
  EXPECT_EQ(Find(0x2ff0, 0x20).start, 0x1000u);
  EXPECT_EQ(Find(0x2ff0, 0x20).end, 0x4000u);
  EXPECT_EQ(Find(0x6000, 0x2000).end, 0x8000u);
  EXPECT_EQ(Find(0x7fff0800, 8).start, 0x7fff0000u);
}

TEST(ReadableCodeTest, GapsAndUnreadableMappingsHoldNoCode) {
  EXPECT_EQ(Find(0x3ff0, 0x20).end, 0u);  // runs into the gap at 0x4000
  EXPECT_EQ(Find(0x5000, 1).end, 0u);     // ---p
  EXPECT_EQ(Find(0x4000, 1).end, 0u);     // nothing mapped
  EXPECT_EQ(FindReadableArea("garbage\n1-\n-\nzz-yy r\n", 21, 1, 1).end, 0u);
}

TEST(ReadableCodeTest, AnswersForThisProcess) {
  static const char kData[64] = "code";
  EXPECT_TRUE(IsReadableCode(reinterpret_cast<uintptr_t>(kData), sizeof(kData)));
  EXPECT_TRUE(IsReadableCode(reinterpret_cast<uintptr_t>(kData), 1));  // from the cache
  EXPECT_FALSE(IsReadableCode(0x10, 4));
  EXPECT_FALSE(IsReadableCode(reinterpret_cast<uintptr_t>(kData), 0));
  EXPECT_FALSE(IsReadableCode(~uint64_t{0} - 1, 4));  // wraps around
  void* none = ::mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(none, MAP_FAILED);
  EXPECT_FALSE(IsReadableCode(reinterpret_cast<uintptr_t>(none), 16));
  ::munmap(none, 4096);
}

}  // namespace
}  // namespace jitscope::collector
