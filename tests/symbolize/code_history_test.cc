// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// CodeHistory: which regions make up the version of JIT code at an address at a time. Split
// functions make one version of several regions; unloads, loads over the code and code updates
// end a version; inline loads add nothing.
#include "jitscope/symbolize/code_history.h"

#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/formats/captured_code.h"
#include "jitscope/symbolize/symbol_index.h"

namespace jitscope::symbolize {
namespace {

using trace::CodeEvent;
using trace::Record;

Record Load(uint64_t time, uint32_t id, uint64_t address, uint32_t size,
            uint32_t api_event = trace::kEventMethodLoadFinishedV2) {
  CodeEvent code;
  code.api_event = api_event;
  code.method_id = id;
  code.address = address;
  code.size = size;
  return {time, 1, code};
}

TEST(CodeHistoryTest, ASplitFunctionIsOneVersionOfItsRegions) {
  const std::vector<Record> records = {
      Load(100, 7, 0x1000, 16),
      Load(101, 7, 0x5000, 8),
      // An inline load inside the hot region adds no code of its own.
      Load(102, 8, 0x1004, 4, trace::kEventMethodInlineLoadFinished),
  };
  CodeHistory history;
  history.Add(records);
  EXPECT_EQ(history.version_count(), 1u);
  const CodeVersion* hot = history.Find(0x100f, 200);
  ASSERT_NE(hot, nullptr);
  EXPECT_EQ(hot->method_id, 7u);
  EXPECT_EQ(hot->loaded_ns, 100u);
  ASSERT_EQ(hot->regions.size(), 2u);
  EXPECT_EQ(hot->regions[0].address, 0x1000u);
  EXPECT_EQ(hot->regions[0].size, 16u);
  EXPECT_EQ(hot->regions[1].address, 0x5000u);
  EXPECT_EQ(hot->regions[1].loaded_ns, 101u);
  EXPECT_EQ(history.Find(0x5007, 200), hot);
  EXPECT_EQ(history.Find(0x1000, 99), nullptr) << "before the load";
  EXPECT_EQ(history.Find(0x1010, 200), nullptr) << "past the region";
  EXPECT_EQ(history.Find(0x4fff, 200), nullptr);
}

TEST(CodeHistoryTest, UnloadsLoadsOverTheCodeAndUpdatesEndAVersion) {
  const std::vector<Record> records = {
      Load(100, 1, 0x1000, 16),
      Load(110, 2, 0x2000, 16),
      Load(120, 3, 0x3000, 16),
      {200, 1, trace::UnloadEvent{1}},
      // Other code loaded over the second half of method 2.
      Load(300, 4, 0x2008, 16),
      // A range update inside method 3, a METHOD_UPDATE of method 4.
      {400, 1, trace::RangeUpdateEvent{0x3004, 2, 0, std::nullopt}},
      Load(500, 4, 0x2010, 4, trace::kEventMethodUpdate),
  };
  CodeHistory history;
  history.Add(records);
  EXPECT_NE(history.Find(0x1000, 199), nullptr);
  EXPECT_EQ(history.Find(0x1000, 200), nullptr);
  EXPECT_EQ(history.Find(0x2000, 299)->method_id, 2u);
  EXPECT_EQ(history.Find(0x2000, 300), nullptr) << "overwritten in part: the whole version ends";
  EXPECT_EQ(history.Find(0x2010, 300)->method_id, 4u);
  EXPECT_EQ(history.Find(0x3000, 399)->method_id, 3u);
  EXPECT_EQ(history.Find(0x3000, 400), nullptr);
  EXPECT_EQ(history.Find(0x2010, 500), nullptr);
  // The latest code at an address, whatever its end (sessions whose clock the traces' cannot be
  // compared with).
  EXPECT_EQ(history.Find(0x2008, kLatest)->method_id, 4u);
  EXPECT_EQ(history.Find(0x2000, kLatest)->method_id, 2u);
  EXPECT_EQ(history.Find(0x1000, kLatest)->method_id, 1u);
  EXPECT_EQ(history.Find(0x4000, kLatest), nullptr);
}

// A jitdump: each CODE_LOAD a version of its own region, ended by a load over it or by a
// CODE_MOVE of it (the code store has no bytes at the new address, so nothing is found there).
TEST(CodeHistoryTest, JitdumpLoadsAndMoves) {
  formats::ParsedJitdump dump;
  auto record = [](formats::JitdumpRecordKind kind, uint64_t time, uint64_t index, uint64_t address,
                   uint64_t size, uint64_t old_address = 0) {
    return formats::JitdumpRecord{.kind = kind,
                                  .timestamp = time,
                                  .code_addr = address,
                                  .old_code_addr = old_address,
                                  .code_size = size,
                                  .code_index = index,
                                  .name = {},
                                  .code = {},
                                  .eh_frame = {}};
  };
  using formats::JitdumpRecordKind;
  dump.records.push_back(record(JitdumpRecordKind::kCodeLoad, 100, 1, 0x1000, 0x40));
  dump.records.push_back(record(JitdumpRecordKind::kCodeLoad, 110, 2, 0x2000, 0x40));
  dump.records.push_back(record(JitdumpRecordKind::kCodeLoad, 200, 3, 0x1020, 0x40));
  dump.records.push_back(record(JitdumpRecordKind::kCodeMove, 300, 2, 0x5000, 0x40, 0x2000));
  CodeHistory history;
  history.Add(dump);
  EXPECT_EQ(history.version_count(), 3u);
  ASSERT_NE(history.Find(0x1010, 150), nullptr);
  EXPECT_EQ(history.Find(0x1010, 150)->method_id, 1u);
  EXPECT_EQ(history.Find(0x1010, 200), nullptr) << "loaded over";
  EXPECT_EQ(history.Find(0x1030, 200)->method_id, 3u);
  EXPECT_EQ(history.Find(0x2000, 299)->method_id, 2u);
  EXPECT_EQ(history.Find(0x2000, 300), nullptr) << "moved away";
  EXPECT_EQ(history.Find(0x5000, 300), nullptr);
  EXPECT_TRUE(history.Find(0x1030, 200)->eh_frame.empty());
}

// A load with the engine's unwind tables (V8's UNWINDING_INFO) keeps them, with the address their
// pointers take them to lie at: after the code, rounded up to 8 bytes.
TEST(CodeHistoryTest, AJitdumpLoadKeepsItsUnwindTables) {
  const uint8_t tables[] = {1, 2, 3, 4};
  formats::ParsedJitdump dump;
  formats::JitdumpRecord load;
  load.kind = formats::JitdumpRecordKind::kCodeLoad;
  load.timestamp = 100;
  load.code_index = 7;
  load.code_addr = 0x1000;
  load.code_size = 0x3d;
  load.eh_frame = tables;
  dump.records.push_back(load);
  CodeHistory history;
  history.Add(dump);
  const CodeVersion* version = history.Find(0x1010, 150);
  ASSERT_NE(version, nullptr);
  EXPECT_EQ(version->eh_frame.data(), tables);
  EXPECT_EQ(version->eh_frame.size(), 4u);
  EXPECT_EQ(version->eh_frame_address, 0x1040u);
}

// OProfile's agent API (HotSpot through a JVMTI agent): each load a version of its own region,
// ended by its unload or by code loaded over it; from the trace and from an OProfile dump.
TEST(CodeHistoryTest, OprofileLoadsAndUnloads) {
  auto load = [](uint64_t time, uint64_t address, uint32_t size) {
    trace::OprofileCodeLoadEvent event;
    event.agent = 1;
    event.address = address;
    event.size = size;
    event.name = "HotLoop.mix(JI)J";
    return Record{time, 1, event};
  };
  const std::vector<Record> records = {
      load(100, 0x1000, 0x40),
      load(110, 0x2000, 0x40),
      {200, 1, trace::OprofileUnloadEvent{1, 0x1000, 0x40}},
      load(300, 0x2020, 0x40),  // over the second half of the code at 0x2000
      load(400, 0x1000, 0x10),  // a new load where the unloaded code was
  };
  CodeHistory history;
  history.Add(records);
  EXPECT_EQ(history.version_count(), 4u);
  ASSERT_NE(history.Find(0x1030, 150), nullptr);
  EXPECT_EQ(history.Find(0x1030, 150)->loaded_ns, 100u);
  EXPECT_EQ(history.Find(0x1030, 150)->regions.size(), 1u);
  EXPECT_EQ(history.Find(0x1030, 200), nullptr) << "unloaded";
  EXPECT_EQ(history.Find(0x2000, 299)->loaded_ns, 110u);
  EXPECT_EQ(history.Find(0x2000, 300), nullptr) << "loaded over";
  EXPECT_EQ(history.Find(0x2050, 300)->loaded_ns, 300u);
  EXPECT_EQ(history.Find(0x1000, 400)->loaded_ns, 400u);
  EXPECT_EQ(history.Find(0x1030, 400), nullptr) << "past the new, shorter load";

  formats::ParsedOprofileDump dump;
  auto dump_load = [](uint64_t seconds, uint64_t vma, uint32_t size) {
    formats::OprofileDumpCodeLoad code;
    code.vma = vma;
    code.code_size = size;
    return formats::OprofileDumpRecord{0, seconds, code};
  };
  dump.records.push_back(dump_load(1, 0x7000, 0x20));
  dump.records.push_back(formats::OprofileDumpRecord{0, 3, formats::OprofileDumpUnload{0x7000}});
  CodeHistory from_dump;
  from_dump.Add(dump);
  ASSERT_NE(from_dump.Find(0x7010, 2'000'000'000), nullptr) << "dump times are seconds";
  EXPECT_EQ(from_dump.Find(0x7010, 2'000'000'000)->loaded_ns, 1'000'000'000u);
  EXPECT_EQ(from_dump.Find(0x7010, 3'000'000'000), nullptr);
}

// Code record read from a running process: a perf map's functions made versions by the reads that
// hold them whole. A read answers for the samples up to it from the read before it (it was made
// for samples taken before it), the last one for every sample after; reads of the same bytes are
// one version; a read of exactly one function's range is of that function only.
TEST(CodeHistoryTest, ReadsOfAProcessAreVersionsOfThePerfMapsFunctions) {
  const std::vector<uint8_t> old_code(0x40, 0x90), new_code(0x40, 0xcc), window(0x100, 0x90);
  const std::vector<formats::CodeRead> reads = {
      {100, 0x1000, old_code},               // f, as a function
      {200, 0x1000, old_code},               // the same bytes again
      {300, 0x1000, new_code},               // f replaced
      {150, 0x2000, {window.data(), 0x80}},  // a window holding g whole and h in part
  };
  const std::vector<formats::CodeRange> functions = {
      {0x1000, 0x1040},  // f
      {0x2010, 0x2020},  // g
      {0x2070, 0x20a0},  // h: past the window's end
      {0x1000, 0x1010},  // listed too, overlapping f: not f's reads' function
      {0x5000, 0x5010},  // never read
  };
  CodeHistory history;
  history.AddCaptured(functions, reads);
  EXPECT_EQ(history.version_count(), 3u);
  const CodeVersion* first = history.Find(0x1008, 50);
  ASSERT_NE(first, nullptr);
  EXPECT_TRUE(first->captured);
  EXPECT_EQ(first->loaded_ns, 0u);
  EXPECT_EQ(first->invalidated_ns, 201u);
  ASSERT_EQ(first->regions.size(), 1u);
  EXPECT_EQ(first->regions[0].address, 0x1000u);
  EXPECT_EQ(first->regions[0].size, 0x40u);
  EXPECT_EQ(first->regions[0].loaded_ns, 100u) << "its bytes are the first read's";
  EXPECT_EQ(history.Find(0x1008, 200), first);
  const CodeVersion* replaced = history.Find(0x1008, 201);
  ASSERT_NE(replaced, nullptr);
  EXPECT_NE(replaced, first);
  EXPECT_EQ(replaced->regions[0].loaded_ns, 300u);
  EXPECT_EQ(history.Find(0x1008, 900), replaced) << "the last read answers for what follows";
  const CodeVersion* g = history.Find(0x2018, 10);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->regions[0].address, 0x2010u);
  EXPECT_EQ(g->regions[0].loaded_ns, 150u);
  EXPECT_EQ(history.Find(0x2080, 150), nullptr) << "h is not held whole";
  EXPECT_EQ(history.Find(0x5000, 150), nullptr);
  EXPECT_EQ(history.Find(0x1008, kLatest), replaced);
}

}  // namespace
}  // namespace jitscope::symbolize
