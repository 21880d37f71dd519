// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/collector/live_records.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace jitscope::collector {
namespace {

using trace::Record;

Record Load(uint64_t time, uint32_t id, uint64_t address, uint32_t size, uint32_t tid = 1) {
  trace::CodeEvent code;
  code.api_event = trace::kEventMethodLoadFinishedV2;
  code.method_id = id;
  code.address = address;
  code.size = size;
  code.name = "m";
  return {time, tid, code};
}

Record Inline(uint64_t time, uint32_t id, uint32_t parent, uint64_t address) {
  trace::CodeEvent code;
  code.api_event = trace::kEventMethodInlineLoadFinished;
  code.method_id = id;
  code.parent_method_id = parent;
  code.address = address;
  code.size = 4;
  code.name = "i";
  return {time, 1, code};
}

Record Bytes(uint64_t time, uint64_t address, uint32_t size, uint32_t tid = 1) {
  return {time, tid, trace::CodeBytesEvent{address, size, {}}};
}

TEST(LiveRecordsTest, UnloadedMethodsGoWithTheirInlinesAndBytes) {
  const std::vector<Record> records = {
      Load(1, 10, 0x1000, 64),
      Bytes(1, 0x1000, 64),  // 0, 1: method 10
      Inline(2, 11, 10, 0x1008),
      Inline(3, 12, 11, 0x1008),  // 2, 3: its inline tree
      Load(4, 20, 0x2000, 64),
      Bytes(4, 0x2000, 64),                                              // 4, 5: method 20
      {5, 1, trace::UnloadEvent{10}},                                    // 6
      {6, 1, trace::ShutdownEvent{}},                                    // 7
      {7, 1, trace::RejectedEvent{13, trace::RejectReason::kNullName}},  // 8
  };
  EXPECT_EQ(LiveRecords(records), (std::vector<size_t>{4, 5}));
}

TEST(LiveRecordsTest, SplitRegionsUpdatesAndRangeUpdatesStayWithTheirMethod) {
  trace::CodeEvent update;
  update.api_event = trace::kEventMethodUpdate;
  update.method_id = 10;
  update.address = 0x1000;
  update.size = 64;
  const std::vector<Record> records = {
      Load(1, 10, 0x1000, 64),                            // 0
      Load(2, 10, 0x9000, 32),                            // 1: its cold region
      {3, 1, update},                                     // 2
      {4, 1, trace::RangeUpdateEvent{0x9010, 8, 1, {}}},  // 3: inside the cold region
      {5, 1, trace::RangeUpdateEvent{0x5000, 8, 1, {}}},  // 4: inside no code: kept
      Load(6, 30, 0x3000, 16),                            // 5
      {7, 1, trace::UnloadEvent{30}},                     // 6
  };
  EXPECT_EQ(LiveRecords(records), (std::vector<size_t>{0, 1, 2, 3, 4}));
}

TEST(LiveRecordsTest, CodeCoveredWhollyByLaterLoadsIsGoneAndPartlyCoveredStays) {
  const std::vector<Record> records = {
      Load(1, 10, 0x1000, 64),  // 0: covered by 2 and 3 together
      Load(1, 11, 0x2000, 64),  // 1: covered in part by 4
      Load(2, 20, 0x1000, 32),  // 2
      Load(3, 21, 0x1020, 32),  // 3
      Load(4, 22, 0x2020, 64),  // 4
  };
  EXPECT_EQ(LiveRecords(records), (std::vector<size_t>{1, 2, 3, 4}));
}

TEST(LiveRecordsTest, AMethodIdLoadedAgainAfterItsUnloadIsANewMethod) {
  const std::vector<Record> records = {
      Load(1, 10, 0x1000, 64),         // 0
      {2, 1, trace::UnloadEvent{10}},  // 1
      Load(3, 10, 0x4000, 64),         // 2
      Inline(4, 11, 10, 0x4000),       // 3
  };
  EXPECT_EQ(LiveRecords(records), (std::vector<size_t>{2, 3}));
}

TEST(LiveRecordsTest, CodeBytesFollowTheRecordBeforeThemOnTheirThread) {
  const std::vector<Record> records = {
      Load(1, 10, 0x1000, 64, /*tid=*/1),  // 0
      Load(1, 20, 0x2000, 64, /*tid=*/2),  // 1
      Bytes(1, 0x2000, 64, /*tid=*/2),     // 2: method 20's
      Bytes(1, 0x1000, 64, /*tid=*/1),     // 3: method 10's
      {2, 1, trace::UnloadEvent{20}},      // 4
  };
  EXPECT_EQ(LiveRecords(records), (std::vector<size_t>{0, 3}));
}

TEST(LiveRecordsTest, OprofileLoadsLiveUntilUnloadedOrLoadedOver) {
  constexpr trace::OprofileLineEntry kLines[] = {{0x1000, 3, 0}};
  const std::vector<Record> records = {
      {1, 1, trace::OprofileOpenEvent{1}},                                   // 0
      {2, 1, trace::OprofileCodeLoadEvent{1, 0x1000, 0, 16, "a", {}}},       // 1
      {3, 1, trace::OprofileDebugLinesEvent{1, 0, 0x1000, 16, kLines, {}}},  // 2
      {4, 1, trace::OprofileCodeLoadEvent{1, 0x2000, 0, 16, "b", {}}},       // 3
      {5, 1, trace::OprofileUnloadEvent{1, 0x2000, 16}},                     // 4
      {6, 1, trace::OprofileCodeLoadEvent{1, 0x3000, 0, 16, "c", {}}},       // 5
      {7, 1, trace::OprofileCodeLoadEvent{1, 0x3000, 0, 16, "d", {}}},       // 6: over c
      {8, 1, trace::OprofileCloseEvent{1}},                                  // 7
  };
  EXPECT_EQ(LiveRecords(records), (std::vector<size_t>{0, 1, 2, 6, 7}));
}

}  // namespace
}  // namespace jitscope::collector
