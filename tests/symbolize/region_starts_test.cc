// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The replay's map of valid regions by start address (region_starts.h): the same answers as a
// std::map under every operation the replay makes, whether code is loaded upwards (chunks filled
// at the end), downwards or anywhere (chunks split), and erased in ranges or by a predicate.
#include "jitscope/symbolize/region_starts.h"

#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace jitscope::symbolize {
namespace {

// Every entry, "key:value" in key order (walked down from the last).
std::string Entries(const RegionStarts& starts) {
  std::string out;
  std::optional<RegionStarts::Entry> e = starts.Last();
  std::vector<RegionStarts::Entry> reversed;
  while (e) {
    reversed.push_back(*e);
    e = starts.Before(e->key);
  }
  for (auto it = reversed.rbegin(); it != reversed.rend(); ++it) {
    out += std::to_string(it->key) + ":" + std::to_string(it->value) + " ";
  }
  return out;
}

std::string Entries(const std::map<uint64_t, uint32_t>& model) {
  std::string out;
  for (const auto& [key, value] : model)
    out += std::to_string(key) + ":" + std::to_string(value) + " ";
  return out;
}

TEST(RegionStarts, AnswersAsAnOrderedMap) {
  RegionStarts starts;
  EXPECT_TRUE(starts.empty());
  EXPECT_FALSE(starts.Find(0));
  EXPECT_FALSE(starts.AtOrBefore(UINT64_MAX));
  EXPECT_FALSE(starts.Last());
  starts.Insert(0x2000, 1);
  starts.Insert(0x1000, 2);
  starts.Insert(0x3000, 3);
  starts.Insert(0x2000, 9);  // there already: unchanged
  EXPECT_EQ(Entries(starts), "4096:2 8192:1 12288:3 ");
  EXPECT_EQ(starts.Find(0x2000), 1u);
  EXPECT_FALSE(starts.Find(0x2001));
  EXPECT_EQ(starts.AtOrBefore(0x2fff)->value, 1u);
  EXPECT_EQ(starts.AtOrBefore(0x3000)->value, 3u);
  EXPECT_FALSE(starts.AtOrBefore(0xfff));
  EXPECT_EQ(starts.Before(0x3000)->value, 1u);
  EXPECT_FALSE(starts.Before(0x1000));
  EXPECT_FALSE(starts.Before(0));
  std::vector<uint32_t> erased;
  starts.EraseRange(0x1001, 0x3001, [&](uint32_t v) { erased.push_back(v); });
  EXPECT_EQ(erased, (std::vector<uint32_t>{1, 3}));
  EXPECT_EQ(Entries(starts), "4096:2 ");
  starts.Erase(0x1000);
  EXPECT_TRUE(starts.empty());
}

// Upwards, downwards and at random, erased in ranges, one by one and by a predicate: every answer
// as std::map's, across many chunks.
TEST(RegionStarts, ManyChunksInAnyOrder) {
  for (int order = 0; order < 3; ++order) {
    RegionStarts starts;
    std::map<uint64_t, uint32_t> model;
    std::mt19937_64 random(order);
    const uint32_t n = 20 * RegionStarts::kChunk;
    for (uint32_t i = 0; i < n; ++i) {
      const uint64_t key = order == 0   ? 64 * uint64_t{i}
                           : order == 1 ? 64 * uint64_t{n - i}
                                        : 64 * (random() % (4 * n));
      starts.Insert(key, i);
      model.emplace(key, i);
    }
    ASSERT_EQ(starts.size(), model.size());
    ASSERT_EQ(Entries(starts), Entries(model));
    for (int step = 0; step < 2000; ++step) {
      const uint64_t key = random() % (64 * 4 * uint64_t{n} + 128);
      const auto found = model.find(key);
      ASSERT_EQ(starts.Find(key),
                found == model.end() ? std::nullopt : std::optional<uint32_t>(found->second));
      const auto after = model.upper_bound(key);
      const auto at_or_before = starts.AtOrBefore(key);
      ASSERT_EQ(at_or_before.has_value(), after != model.begin()) << key;
      if (at_or_before) {
        ASSERT_EQ(at_or_before->key, std::prev(after)->first);
      }
      switch (step % 4) {
        case 0: {  // a range of a few dozen entries
          const uint64_t to = key + 64 * (random() % 64);
          std::vector<uint32_t> erased, expected;
          starts.EraseRange(key, to, [&](uint32_t v) { erased.push_back(v); });
          for (auto it = model.lower_bound(key); it != model.end() && it->first < to;) {
            expected.push_back(it->second);
            it = model.erase(it);
          }
          ASSERT_EQ(erased, expected);
          break;
        }
        case 1:
          starts.Erase(key);
          model.erase(key);
          break;
        default:
          starts.Insert(key, static_cast<uint32_t>(n + step));
          model.emplace(key, static_cast<uint32_t>(n + step));
          break;
      }
    }
    ASSERT_EQ(Entries(starts), Entries(model));
    starts.EraseIf([](uint32_t v) { return v % 3 == 0; });
    std::erase_if(model, [](const auto& entry) { return entry.second % 3 == 0; });
    EXPECT_EQ(starts.size(), model.size());
    EXPECT_EQ(Entries(starts), Entries(model));
    starts.EraseRange(0, UINT64_MAX, [](uint32_t) {});
    EXPECT_TRUE(starts.empty());
  }
}

}  // namespace
}  // namespace jitscope::symbolize
