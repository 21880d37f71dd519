// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// One table-driven test per rule of the symbolizer (docs/symbol-index.md), including Intel's
// guide's own examples: the line table (000_*.txt, LineNumberInfo), the split function at
// 0x100/0x200 and the a/b/c/d inline tree ("Exploring Inline Functions"). They check the replay's
// regions (region_history.h) without the index's layout; index_layout_test.cc checks the layout.
#include <algorithm>
#include <functional>

#include <gtest/gtest.h>

#include "jitscope/symbolize/importers.h"
#include "symbolize/index_test_util.h"

namespace jitscope::symbolize {
namespace {

using testing::Check;
using testing::Describe;
using testing::ExpectAll;
using testing::History;
using testing::Load;
using testing::Report;

// Intel's guide's example: 1→2, 12→4, 15→2, 18→1, 21→30 means 0-1:2, 1-12:4, 12-15:2, 15-18:1,
// 18-21:30. Past the last entry but inside the method: the method, with no line.
TEST(IndexRules, LineTableUsesEndOffsets) {
  IndexBuilder b;
  b.AddLoad(Report({.time = 1,
                    .id = 7,
                    .name = "m",
                    .address = 0x1000,
                    .size = 0x20,
                    .lines = {{1, 2}, {12, 4}, {15, 2}, {18, 1}, {21, 30}}}));
  const History history(std::move(b));
  ExpectAll(history, {{0x1000, 5, "m:2"},
                      {0x1001, 5, "m:4"},
                      {0x100b, 5, "m:4"},
                      {0x100c, 5, "m:2"},
                      {0x100e, 5, "m:2"},
                      {0x100f, 5, "m:1"},
                      {0x1011, 5, "m:1"},
                      {0x1012, 5, "m:30"},
                      {0x1014, 5, "m:30"},
                      {0x1015, 5, "m"},
                      {0x101f, 5, "m"},
                      {0x1020, 5, "-"},
                      {0x0fff, 5, "-"}});
}

// "Multiple source lines for the same code location: the first line number wins", whatever
// order the entries come in; a method without a table has no lines.
TEST(IndexRules, FirstLineWinsForOneLocation) {
  IndexBuilder b;
  b.AddLoad(Report({.time = 1,
                    .id = 1,
                    .name = "dup",
                    .address = 0x100,
                    .size = 0x10,
                    .lines = {{5, 7}, {5, 9}, {10, 11}, {10, 12}}}));
  b.AddLoad(Report({.time = 1,
                    .id = 2,
                    .name = "unsorted",
                    .address = 0x200,
                    .size = 0x10,
                    .lines = {{10, 11}, {5, 7}, {5, 9}}}));
  b.AddLoad(Report({.time = 1, .id = 3, .name = "none", .address = 0x300, .size = 0x10}));
  std::vector<AddressLine> rows = {{0x404, 8, "x.c"}, {0x400, 3, "x.c"}, {0x404, 9, "x.c"}};
  CodeReport absolute = Report({.time = 1, .id = 4, .name = "abs", .address = 0x400, .size = 8});
  absolute.address_lines = rows;
  b.AddLoad(absolute);
  const History history(std::move(b));
  ExpectAll(history, {{0x100, 2, "dup:7"},
                      {0x104, 2, "dup:7"},
                      {0x105, 2, "dup:11"},
                      {0x109, 2, "dup:11"},
                      {0x10a, 2, "dup"},
                      {0x200, 2, "unsorted:7"},
                      {0x205, 2, "unsorted:11"},
                      {0x305, 2, "none"},
                      {0x400, 2, "abs:3"},
                      {0x403, 2, "abs:3"},
                      {0x404, 2, "abs:8"},
                      {0x407, 2, "abs:8"}});
}

// Split functions: Intel's guide's regions at 0x100 (0x20 bytes) and 0x200 (0x30 bytes) under one
// method id. Name and file come from the first notification; a NULL file uses the first's; a
// different file is kept as reported, with a warning; each region keeps its own line table.
TEST(IndexRules, SplitFunctionRegionsShareTheFirstNotification) {
  IndexBuilder b;
  b.AddLoad(Report({.time = 1,
                    .id = 9,
                    .name = "split",
                    .address = 0x100,
                    .size = 0x20,
                    .file = "a.c",
                    .lines = {{0x20, 10}}}));
  b.AddLoad(Report({.time = 2,
                    .id = 9,
                    .name = "renamed",
                    .address = 0x200,
                    .size = 0x30,
                    .lines = {{0x10, 20}, {0x30, 21}}}));
  b.AddLoad(Report({.time = 3,
                    .id = 9,
                    .name = "again",
                    .address = 0x300,
                    .size = 0x10,
                    .file = "a.c",
                    .lines = {{0x10, 30}}}));
  b.AddLoad(Report({.time = 4,
                    .id = 9,
                    .name = "other",
                    .address = 0x400,
                    .size = 0x10,
                    .file = "b.c",
                    .lines = {{0x10, 40}}}));
  const History history(std::move(b));
  ExpectAll(history,
            {{0x100, 5, "split:10 @a.c #9"},
             {0x11f, 5, "split:10 @a.c #9"},
             {0x120, 5, "-"},
             {0x200, 5, "split:20 @a.c #9"},
             {0x210, 5, "split:21 @a.c #9"},
             {0x22f, 5, "split:21 @a.c #9"},
             {0x230, 5, "-"},
             {0x305, 5, "split:30 @a.c #9"},
             {0x405, 5, "split:40 @b.c #9"},
             {0x405, 3, "-"}},
            true);
  ASSERT_EQ(history.warnings().size(), 1u);
  EXPECT_NE(history.warnings()[0].find("\"b.c\""), std::string::npos) << history.warnings()[0];
}

// Module names: the first module registered for a method id wins; 32- and 64-bit code of one
// module name are two modules, the 64-bit one shown as "NAME (64)"; native means this process's.
TEST(IndexRules, ModulesFirstWinsAndArchitecturesSeparate) {
  IndexBuilder b(CodeArch::k64);
  b.AddLoad(Report({.time = 1, .id = 1, .name = "plain", .address = 0x100, .size = 0x10}));
  b.AddLoad(Report(
      {.time = 2, .id = 1, .name = "plain", .address = 0x110, .size = 0x10, .module = "late"}));
  b.AddLoad(Report(
      {.time = 3, .id = 1, .name = "plain", .address = 0x120, .size = 0x10, .module = "later"}));
  b.AddLoad(Report({.time = 1,
                    .id = 2,
                    .name = "x32",
                    .address = 0x200,
                    .size = 0x10,
                    .module = "engine",
                    .arch = CodeArch::k32}));
  b.AddLoad(Report({.time = 1,
                    .id = 3,
                    .name = "x64",
                    .address = 0x300,
                    .size = 0x10,
                    .module = "engine",
                    .arch = CodeArch::k64}));
  b.AddLoad(Report(
      {.time = 1, .id = 4, .name = "native", .address = 0x400, .size = 0x10, .module = "engine"}));
  b.AddLoad(Report({.time = 1,
                    .id = 5,
                    .name = "alone",
                    .address = 0x500,
                    .size = 0x10,
                    .module = "solo",
                    .arch = CodeArch::k64}));
  const History history(std::move(b));
  ExpectAll(history,
            {{0x100, 9, "plain #1 {late}"},
             {0x125, 9, "plain #1 {late}"},
             {0x200, 9, "x32 #2 {engine}"},
             {0x300, 9, "x64 #3 {engine (64)}"},
             {0x400, 9, "native #4 {engine (64)}"},
             {0x500, 9, "alone #5 {solo}"}},
            true);
}

// Intel's guide's inline tree: a (1000) contains b (2000, parent 1000) and d (2001, parent 1000);
// b contains c (3000, parent 2000). Every arrival order gives the same frames, including
// children before their parents.
TEST(IndexRules, NestedInlinesInAnyOrder) {
  const Load a{
      .time = 10, .id = 1000, .name = "a", .address = 0x1000, .size = 0x100, .lines = {{0x100, 1}}};
  const Load b{
      .time = 11, .id = 2000, .name = "b", .address = 0x1010, .size = 0x40, .lines = {{0x40, 2}}};
  const Load c{
      .time = 12, .id = 3000, .name = "c", .address = 0x1020, .size = 0x10, .lines = {{0x10, 3}}};
  const Load d{
      .time = 13, .id = 2001, .name = "d", .address = 0x1080, .size = 0x20, .lines = {{0x20, 4}}};
  const std::vector<Check> expected = {
      {0x1000, 20, "a:1"},
      {0x1010, 20, "b:2 (i) < a:1"},
      {0x1024, 20, "c:3 (i) < b:2 (i) < a:1"},
      {0x1030, 20, "b:2 (i) < a:1"},
      {0x1050, 20, "a:1"},
      {0x109f, 20, "d:4 (i) < a:1"},
      {0x10ff, 20, "a:1"},
  };
  struct Step {
    const Load* load;
    uint64_t parent;  // 0: top level
  };
  std::vector<Step> steps = {{&a, 0}, {&b, 1000}, {&c, 2000}, {&d, 1000}};
  std::sort(steps.begin(), steps.end(),
            [](const Step& x, const Step& y) { return x.load < y.load; });
  int orders = 0;
  do {
    IndexBuilder builder;
    uint64_t time = 10;
    for (const Step& step : steps) {
      CodeReport report = Report(*step.load);
      report.time = time++;  // arrival order is the order of this permutation
      if (step.parent == 0) {
        builder.AddLoad(report);
      } else {
        builder.AddInlineLoad(report, step.parent);
      }
    }
    const History history(std::move(builder));
    SCOPED_TRACE(Describe(history, 0x1024, 20));
    ExpectAll(history, expected);
    EXPECT_TRUE(history.warnings().empty());
    ++orders;
  } while (std::next_permutation(steps.begin(), steps.end(),
                                 [](const Step& x, const Step& y) { return x.load < y.load; }));
  EXPECT_EQ(orders, 24);
}

// Inline depth is not limited.
TEST(IndexRules, DeepInlineChains) {
  IndexBuilder b;
  constexpr int kDepth = 40;
  for (int level = kDepth; level >= 0; --level) {  // deepest first
    const Load load{.time = 1,
                    .id = static_cast<uint64_t>(100 + level),
                    .name = "f",
                    .address = 0x1000u + level,
                    .size = 0x100u - 2u * level,
                    .lines = {{0x100u - 2u * level, static_cast<uint32_t>(level + 1)}}};
    const CodeReport r = Report(load);  // points into `load`
    if (level == 0) {
      b.AddLoad(r);
    } else {
      b.AddInlineLoad(r, 100 + level - 1);
    }
  }
  const History history(std::move(b));
  Resolution r;
  ASSERT_TRUE(history.Resolve(0x1080, 5, r));
  ASSERT_EQ(r.frames.size(), kDepth + 1u);
  EXPECT_EQ(r.frames.front().line, kDepth + 1u);
  EXPECT_TRUE(r.frames.front().inlined);
  EXPECT_EQ(r.frames.back().line, 1u);
  EXPECT_FALSE(r.frames.back().inlined);
  ASSERT_TRUE(history.Resolve(0x1001, 5, r));
  EXPECT_EQ(r.frames.size(), 2u);
}

// A load overlapping an already reported method ends it at the load's time, with its inline
// children; before that time the old code still resolves ("metrics until it is overwritten").
TEST(IndexRules, OverwriteEndsOldCodeAndItsInlines) {
  IndexBuilder b;
  b.AddLoad(Report({.time = 10, .id = 1, .name = "old", .address = 0x100, .size = 0x40}));
  b.AddInlineLoad(Report({.time = 10, .id = 2, .name = "kid", .address = 0x100, .size = 0x10}), 1);
  b.AddLoad(Report({.time = 20, .id = 3, .name = "new", .address = 0x130, .size = 0x40}));
  const History history(std::move(b));
  ExpectAll(history, {{0x105, 9, "-"},
                      {0x105, 10, "kid (i) < old"},
                      {0x105, 19, "kid (i) < old"},
                      {0x105, 20, "-"},
                      {0x135, 19, "old"},
                      {0x135, 20, "new"},
                      {0x16f, 25, "new"},
                      {0x105, kLatest, "kid (i) < old"},
                      {0x135, kLatest, "new"}});
}

// A re-JIT of the same method at the same address: the new version replaces the old one and
// its inline tree, from its time on.
TEST(IndexRules, RejitReplacesTheWholeTree) {
  IndexBuilder b;
  b.AddLoad(Report(
      {.time = 10, .id = 1, .name = "f", .address = 0x100, .size = 0x40, .lines = {{0x40, 1}}}));
  b.AddInlineLoad(Report({.time = 10, .id = 2, .name = "g", .address = 0x110, .size = 0x10}), 1);
  b.AddLoad(Report(
      {.time = 20, .id = 1, .name = "f", .address = 0x100, .size = 0x40, .lines = {{0x40, 5}}}));
  const History history(std::move(b));
  ExpectAll(history, {{0x115, 15, "g (i) < f:1"}, {0x115, 20, "f:5"}, {0x115, kLatest, "f:5"}});
}

// METHOD_UPDATE: the updated range has new content (and the update's lines) from its time on;
// the rest of the method continues unchanged, as a new version.
TEST(IndexRules, UpdateEndsTheUpdatedRange) {
  IndexBuilder b;
  b.AddLoad(Report({.time = 10,
                    .id = 1,
                    .name = "f",
                    .address = 0x100,
                    .size = 0x40,
                    .lines = {{0x20, 1}, {0x40, 2}}}));
  b.AddInlineLoad(Report({.time = 10, .id = 2, .name = "low", .address = 0x100, .size = 0x8}), 1);
  b.AddInlineLoad(Report({.time = 10, .id = 3, .name = "mid", .address = 0x118, .size = 0x8}), 1);
  b.AddUpdate(Report({.time = 20, .id = 1, .address = 0x110, .size = 0x10, .lines = {{0x10, 9}}}));
  const History history(std::move(b));
  // The method ends at the update; its parts before and after the updated range continue as new
  // versions, with the inline regions that lie in them.
  EXPECT_EQ(history.Regions(),
            "f 0x100+0x40 [10,20)\n"
            "f 0x100+0x10 [20,)\n"
            "f 0x120+0x20 [20,)\n"
            "f 0x110+0x10 [20,)\n"
            "low 0x100+0x8 in #0\n"
            "mid 0x118+0x8 in #0\n"
            "low 0x100+0x8 in #1\n");
  ExpectAll(history, {{0x104, 15, "low (i) < f:1"},
                      {0x104, 25, "low (i) < f:1"},
                      {0x114, 15, "f:1"},
                      {0x114, 25, "f:9"},
                      {0x11a, 15, "mid (i) < f:1"},
                      {0x11a, 25, "f:9"},
                      {0x130, 15, "f:2"},
                      {0x130, 25, "f:2"}});
  Resolution r;
  ASSERT_TRUE(history.Resolve(0x130, 25, r));
  EXPECT_EQ(r.region.start, 0x120u);
  EXPECT_EQ(r.region.loaded, 20u);
  ASSERT_TRUE(history.Resolve(0x130, 15, r));
  EXPECT_EQ(r.region.start, 0x100u);
  EXPECT_EQ(r.region.size, 0x40u);
  EXPECT_EQ(r.region.loaded, 10u);
}

// A partial METHOD_UPDATE of a method with a long line table (checkpointed: 300 rows): the part
// after the updated range keeps every line of the original table, at its original offsets.
TEST(IndexRules, TheCodeAfterAnUpdatedRangeKeepsItsLongLineTable) {
  IndexBuilder b;
  std::vector<trace::LineEntry> lines;
  for (uint32_t i = 1; i <= 300; ++i) lines.push_back({4 * i, 1000 + i});
  b.AddLoad(
      Report({.time = 10, .id = 1, .name = "f", .address = 0x1000, .size = 1200, .lines = lines}));
  b.AddUpdate(Report({.time = 20, .id = 1, .address = 0x1000 + 400, .size = 4, .lines = {{4, 7}}}));
  const History history(std::move(b));
  // Offset 4k..4k+3 is line 1000 + k + 1 (end offsets); the update covers offsets 400..403.
  ExpectAll(history, {{0x1000 + 401, 15, "f:1101"},
                      {0x1000 + 401, 25, "f:7"},
                      {0x1000 + 404, 25, "f:1102"},
                      {0x1000 + 407, 25, "f:1102"},
                      {0x1000 + 800, 25, "f:1201"},
                      {0x1000 + 1199, 25, "f:1300"},
                      {0x1000 + 3, 25, "f:1001"}});
}

// METHOD_UPDATE_V2 changes code bytes, not symbols: a new version of the region from then on.
TEST(IndexRules, RangeUpdateStartsANewVersion) {
  IndexBuilder b;
  b.AddLoad(Report(
      {.time = 10, .id = 1, .name = "f", .address = 0x100, .size = 0x40, .lines = {{0x40, 3}}}));
  b.AddInlineLoad(Report({.time = 10, .id = 2, .name = "g", .address = 0x110, .size = 0x10}), 1);
  b.AddRangeUpdate(30, 0x120, 0x8);
  const History history(std::move(b));
  ExpectAll(history, {{0x115, 20, "g (i) < f:3"}, {0x115, 40, "g (i) < f:3"}});
  Resolution r;
  ASSERT_TRUE(history.Resolve(0x105, 40, r));
  EXPECT_EQ(r.region.loaded, 30u);
  ASSERT_TRUE(history.Resolve(0x105, 29, r));
  EXPECT_EQ(r.region.loaded, 10u);
}

// UNLOAD_START ends every region of the method (split regions and inline trees included);
// op_unload_native_code ends the code starting at its address.
TEST(IndexRules, UnloadEndsValidity) {
  IndexBuilder b;
  b.AddLoad(Report({.time = 10, .id = 1, .name = "f", .address = 0x100, .size = 0x10}));
  b.AddLoad(Report({.time = 11, .id = 1, .name = "f", .address = 0x200, .size = 0x10}));
  b.AddInlineLoad(Report({.time = 11, .id = 5, .name = "i", .address = 0x204, .size = 0x4}), 1);
  b.AddLoad(Report({.time = 12, .id = 2, .name = "keep", .address = 0x300, .size = 0x10}));
  b.AddUnloadMethod(30, 0, 1);
  b.AddUnloadMethod(31, 0, 77);  // never loaded: nothing happens
  CodeReport anonymous = Report({.time = 13, .name = "anon", .address = 0x400, .size = 0x10});
  anonymous.method_id.reset();
  b.AddLoad(anonymous);
  b.AddUnloadAddress(40, 0x400);
  b.AddUnloadAddress(41, 0x300 + 1);  // not the start of any code: nothing happens
  const History history(std::move(b));
  ExpectAll(history, {{0x105, 29, "f"},
                      {0x105, 30, "-"},
                      {0x205, 29, "i (i) < f"},
                      {0x205, 30, "-"},
                      {0x305, 99, "keep"},
                      {0x405, 39, "anon"},
                      {0x405, 40, "-"},
                      {0x105, kLatest, "f"}});
}

// A later load at a reused address is a different symbol from then on.
TEST(IndexRules, ReusedAddressIsANewSymbol) {
  IndexBuilder b;
  b.AddLoad(Report({.time = 10, .id = 1, .name = "first", .address = 0x100, .size = 0x20}));
  b.AddUnloadMethod(20, 0, 1);
  b.AddLoad(Report({.time = 30, .id = 2, .name = "second", .address = 0x100, .size = 0x10}));
  b.AddLoad(Report({.time = 40, .id = 3, .name = "third", .address = 0x108, .size = 0x10}));
  const History history(std::move(b));
  ExpectAll(history, {{0x104, 15, "first"},
                      {0x104, 25, "-"},
                      {0x104, 35, "second"},
                      {0x104, 45, "-"},
                      {0x10c, 35, "second"},
                      {0x10c, 45, "third"},
                      {0x118, 15, "first"},
                      {0x118, 45, "-"},
                      {0x110, 45, "third"},
                      {0x104, kLatest, "second"},
                      {0x11c, kLatest, "first"}});
}

// Events are replayed in time order whatever order they were added in (several sources).
TEST(IndexRules, ArrivalOrderDoesNotMatterOnlyTime) {
  IndexBuilder b;
  b.AddLoad(Report({.time = 30, .id = 2, .name = "second", .address = 0x100, .size = 0x10}));
  b.AddUnloadMethod(20, 0, 1);
  b.AddLoad(Report({.time = 10, .id = 1, .name = "first", .address = 0x100, .size = 0x20}));
  const History history(std::move(b));
  ExpectAll(history, {{0x104, 15, "first"}, {0x104, 25, "-"}, {0x104, 35, "second"}});
}

// A jitdump CODE_MOVE: the code (and its lines) continues at the new address from then on.
TEST(IndexRules, MoveRelocatesCode) {
  IndexBuilder b;
  const uint32_t space = b.NewIdSpace();
  CodeReport load = Report({.time = 10, .id = 7, .name = "moved", .address = 0x100, .size = 0x10});
  load.id_space = space;
  std::vector<AddressLine> rows = {{0x100, 1, "m.js"}, {0x108, 2, "m.js"}};
  load.address_lines = rows;
  b.AddLoad(load);
  b.AddMove(20, space, 7, 0x100, 0x800);
  b.AddMove(30, space, 8, 0x800, 0x900);  // unknown code_index: ignored with a warning
  const History history(std::move(b));
  EXPECT_EQ(history.Regions(), "moved 0x100+0x10 [10,20)\nmoved 0x800+0x10 [20,)\n");
  ExpectAll(history, {{0x109, 15, "moved:2"},
                      {0x109, 25, "-"},
                      {0x809, 15, "-"},
                      {0x809, 25, "moved:2"},
                      {0x801, 35, "moved:1"}});
  EXPECT_EQ(history.warnings().size(), 1u);
}

// Perf maps have no time: every entry is valid for the whole process; where entries overlap,
// the later line wins (writers append), and only there: the rest of an earlier entry keeps its
// name, as perf gives it.
TEST(IndexRules, TimelessEntriesLastWins) {
  IndexBuilder b;
  for (auto [name, address, size] :
       {std::tuple{"one", 0x100, 0x20}, std::tuple{"two", 0x110, 0x20},
        std::tuple{"three", 0x200, 0x10}, std::tuple{"four", 0x300, 0x30},
        std::tuple{"five", 0x310, 0x8}}) {
    CodeReport r = Report({.time = 0,
                           .name = name,
                           .address = static_cast<uint64_t>(address),
                           .size = static_cast<uint64_t>(size)});
    r.method_id.reset();
    b.AddLoad(r);
  }
  const History history(std::move(b));
  ExpectAll(history,
            {{0x105, 0, "one"},
             {0x10f, 0, "one"},
             {0x110, 0, "two"},
             {0x115, 0, "two"},
             {0x115, 12345, "two"},
             {0x12f, 0, "two"},
             {0x130, 0, "-"},
             {0x205, 99999, "three"},
             {0x205, kLatest, "three"},
             {0x105, kLatest, "one"},
             {0x30f, 0, "four"},
             {0x310, 0, "five"},
             {0x317, 0, "five"},
             {0x318, 0, "four"},
             {0x32f, kLatest, "four"}},
            false);
}

// Ranges that cannot be code are refused with a warning instead of corrupting the index.
TEST(IndexRules, InvalidRangesAreIgnored) {
  IndexBuilder b;
  b.AddLoad(Report({.time = 1, .id = 1, .name = "empty", .address = 0x100, .size = 0}));
  b.AddLoad(Report({.time = 1, .id = 2, .name = "wraps", .address = ~0ull - 4, .size = 0x10}));
  b.AddLoad(Report({.time = 1, .id = 3, .name = "huge", .address = 0x100, .size = 1ull << 33}));
  const History history(std::move(b));
  EXPECT_EQ(history.history().regions.size(), 0u);
  EXPECT_EQ(history.warnings().size(), 3u);
  EXPECT_EQ(Describe(history, 0x100, 1), "-");
}

// OProfile's agent API in a trace (OProfile's guide): op_write_debug_line_info comes after its
// code's load and gives absolute addresses, each entry naming its file; a second call for the same
// code replaces the first; an unload ends the code, and a later load at the address is new code
// with no lines until it reports its own.
TEST(IndexRules, OprofileCallsInATraceCarryTheirLaterLineTables) {
  const trace::OprofileLineEntry first[] = {{0x1000, 1, 0}};
  const trace::OprofileLineEntry second[] = {{0x1000, 10, 0}, {0x1008, 12, 1}};
  const uint32_t one_file[] = {4};
  const uint32_t two_files[] = {4, 8};
  trace::ParsedTrace t;
  auto add = [&t](uint64_t time, trace::Event event) { t.records.push_back({time, 1, event}); };
  add(10, trace::OprofileCodeLoadEvent{1, 0x1000, 0x1000, 32, "f", {}});
  add(11, trace::OprofileDebugLinesEvent{1, 0x1000, 0x1000, 32, first, {one_file, "A.js"}});
  add(12, trace::OprofileDebugLinesEvent{1, 0x1000, 0x1000, 32, second, {two_files, "A.jsB.js"}});
  add(20, trace::OprofileUnloadEvent{1, 0x1000, 32});
  add(30, trace::OprofileCodeLoadEvent{1, 0x1000, 0, 16, "g", {}});
  add(40, trace::OprofileCloseEvent{1});
  IndexBuilder b;
  ImportTrace(t, b);
  const History history(std::move(b));
  ExpectAll(history,
            {{0x1004, 15, "f:10 @A.js"},
             {0x100a, 15, "f:12 @B.js"},
             {0x1004, 25, "-"},
             {0x1004, 35, "g"},
             {0x1004, 45, "g"}},
            true);
}

}  // namespace
}  // namespace jitscope::symbolize
