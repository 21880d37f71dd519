// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/collector/itt_static_part.h"

#include <vector>

#include <gtest/gtest.h>

#include "fake_static_part.h"

namespace jitscope::collector::itt {
namespace {

int marker_a = 0, marker_b = 0;
void* const kFunctionA = &marker_a;
void* const kFunctionB = &marker_b;

const Implementation kImplementations[] = {
    {"__itt_task_begin", kFunctionA},
    {"__itt_task_end", kFunctionB},
    {"__itt_not_in_the_list", kFunctionB},
};

Global* GlobalOf(FakeItt& itt) { return reinterpret_cast<Global*>(&itt.global); }

void ExpectWired(bool before_20101001) {
  FakeItt itt;
  fake_itt_init(&itt, before_20101001);
  auto wiring = WireStaticPart(GlobalOf(itt), kImplementations);
  ASSERT_TRUE(wiring.ok()) << wiring.status().message();
  EXPECT_EQ(wiring->entries, 27u);
  EXPECT_EQ(wiring->wired, 2u);
  EXPECT_EQ(wiring->without_null_func, before_20101001);
  EXPECT_EQ(reinterpret_cast<void*>(itt.task_begin), kFunctionA);
  EXPECT_EQ(reinterpret_cast<void*>(itt.task_end), kFunctionB);
  // What the collector does not implement stays the static part's.
  EXPECT_EQ(itt.task_begin_overlapped, nullptr);
  EXPECT_EQ(itt.sync_prepare, nullptr);
}

TEST(IttStaticPartTest, WiresEveryFunctionItImplementsAndLeavesTheRest) { ExpectWired(false); }

TEST(IttStaticPartTest, ACopyOfBuild20101001OrBeforeHasNoNullFunc) { ExpectWired(true); }

// ittnotify lists the fsync functions under the sync ones' names: both entries call the collector.
TEST(IttStaticPartTest, EntriesSharingANameAreAllWired) {
  void* first = nullptr;
  void* second = nullptr;
  std::vector<ApiInfo> list = {{"__itt_task_begin", &first, nullptr, nullptr, 0x10},
                               {"__itt_task_begin", &second, nullptr, nullptr, 0x20},
                               {nullptr, nullptr, nullptr, nullptr, 0}};
  FakeItt itt;
  fake_itt_init(&itt, 0);
  itt.global.api_list = list.data();
  auto wiring = WireStaticPart(GlobalOf(itt), kImplementations);
  ASSERT_TRUE(wiring.ok());
  EXPECT_EQ(wiring->wired, 2u);
  EXPECT_EQ(first, kFunctionA);
  EXPECT_EQ(second, kFunctionA);
}

TEST(IttStaticPartTest, AGlobalWithoutTheMagicIsLeftAlone) {
  FakeItt itt;
  fake_itt_init(&itt, 0);
  itt.global.magic[7] = 0;
  EXPECT_EQ(WireStaticPart(GlobalOf(itt), kImplementations).status().message(),
            "the ITT global has no ittnotify magic");
  EXPECT_EQ(itt.task_begin, nullptr);
  EXPECT_EQ(WireStaticPart(nullptr, kImplementations).status().message(), "no ITT global");
}

// A list of a layout this collector does not know reads as entries that are not functions': no
// entry is wired, not even those before the first bad one.
TEST(IttStaticPartTest, AListOfAnotherLayoutIsLeftUntouched) {
  void* wired = nullptr;
  std::vector<ApiInfo> list = {{"__itt_task_begin", &wired, nullptr, nullptr, 0},
                               {"task_end", &wired, nullptr, nullptr, 0},
                               {nullptr, nullptr, nullptr, nullptr, 0}};
  FakeItt itt;
  fake_itt_init(&itt, 0);
  itt.global.api_list = list.data();
  EXPECT_EQ(WireStaticPart(GlobalOf(itt), kImplementations).status().message(),
            "entry 1 of the ITT API list is not a function's");
  EXPECT_EQ(wired, nullptr);
  list[1] = {"__itt_task_end", nullptr, nullptr, nullptr, 0};
  EXPECT_FALSE(WireStaticPart(GlobalOf(itt), kImplementations).ok());
  EXPECT_EQ(wired, nullptr);
}

TEST(IttStaticPartTest, AListWithoutAnEndIsLeftUntouched) {
  void* wired = nullptr;
  std::vector<ApiInfo> list(kMaxApiEntries + 1,
                            ApiInfo{"__itt_task_begin", &wired, nullptr, nullptr, 0});
  FakeItt itt;
  fake_itt_init(&itt, 0);
  itt.global.api_list = list.data();
  EXPECT_EQ(WireStaticPart(GlobalOf(itt), kImplementations).status().message(),
            "the ITT API list has no end within 4096 entries");
  EXPECT_EQ(wired, nullptr);
}

}  // namespace
}  // namespace jitscope::collector::itt
