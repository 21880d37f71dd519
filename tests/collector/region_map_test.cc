// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Live code regions: overwriting makes a method's region invalid (seeds 000_*.txt, Usage Tips).
#include "jitscope/collector/region_map.h"

#include <gtest/gtest.h>

namespace jitscope::collector {
namespace {

using Map = RegionMap<int>;

std::vector<uint32_t> Methods(const std::vector<Map::Region>& regions) {
  std::vector<uint32_t> ids;
  for (const auto& region : regions) ids.push_back(region.method_id);
  return ids;
}

TEST(RegionMap, PlacingDropsEveryOverlappedRegion) {
  Map map;
  EXPECT_TRUE(map.Place({0x100, 0x20, 1, 10}).empty());
  EXPECT_TRUE(map.Place({0x120, 0x10, 2, 20}).empty());
  EXPECT_TRUE(map.Place({0x200, 0x10, 1, 11}).empty());  // a second region of method 1
  // [0x110, 0x128) reaches into both of the first two regions.
  EXPECT_EQ((std::vector<uint32_t>{1, 2}), Methods(map.Place({0x110, 0x18, 3, 30})));
  EXPECT_TRUE(map.Contains(1));  // its other region lives on
  EXPECT_FALSE(map.Contains(2));
  EXPECT_EQ(2u, map.size());
  EXPECT_EQ(nullptr, map.FindEnclosing(0x100));
  ASSERT_NE(nullptr, map.FindEnclosing(0x127));
  EXPECT_EQ(30, map.FindEnclosing(0x127)->payload);
  EXPECT_EQ(nullptr, map.FindEnclosing(0x128));
  EXPECT_EQ(11, map.FindEnclosing(0x200)->payload);
}

TEST(RegionMap, AdjacentRegionsDoNotOverlap) {
  Map map;
  map.Place({0x100, 0x10, 1, 0});
  EXPECT_TRUE(map.Place({0x110, 0x10, 2, 0}).empty());
  EXPECT_TRUE(map.Place({0xf0, 0x10, 3, 0}).empty());
  EXPECT_EQ(3u, map.size());
}

TEST(RegionMap, ReloadingOverItselfKeepsTheMethod) {
  Map map;
  map.Place({0x100, 0x10, 1, 0});
  EXPECT_EQ((std::vector<uint32_t>{1}), Methods(map.Place({0x100, 0x10, 1, 0})));
  EXPECT_TRUE(map.Contains(1));
  EXPECT_EQ(1u, map.size());
}

TEST(RegionMap, RemoveDropsAllOfAMethodsRegions) {
  Map map;
  map.Place({0x100, 0x10, 1, 0});
  map.Place({0x200, 0x10, 1, 0});
  map.Place({0x300, 0x10, 2, 0});
  EXPECT_EQ(2u, map.Remove(1).size());
  EXPECT_TRUE(map.Remove(1).empty());
  EXPECT_FALSE(map.Contains(1));
  EXPECT_EQ(1u, map.size());
  EXPECT_EQ(nullptr, map.FindEnclosing(0x200));
}

}  // namespace
}  // namespace jitscope::collector
