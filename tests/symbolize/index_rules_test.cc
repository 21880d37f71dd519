// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// One table-driven test per rule of the symbolizer (index_builder.h), including the seeds' own
// examples: the line table (000_*.txt, LineNumberInfo), the split function at 0x100/0x200 and the
// a/b/c/d inline tree ("Exploring Inline Functions").
#include <algorithm>
#include <functional>

#include <gtest/gtest.h>

#include "jitscope/symbolize/importers.h"
#include "symbolize/index_test_util.h"

namespace jitscope::symbolize {
namespace {

using testing::Check;
using testing::Describe;
using testing::Load;
using testing::Report;

void ExpectAll(const SymbolIndex& index, const std::vector<Check>& queries, bool full = false) {
  for (const Check& q : queries) {
    EXPECT_EQ(Describe(index, q.address, q.time, full), q.expected)
        << "address " << std::hex << q.address << " at time " << std::dec << q.time;
  }
}

// The seeds' example: 1→2, 12→4, 15→2, 18→1, 21→30 means 0-1:2, 1-12:4, 12-15:2, 15-18:1,
// 18-21:30. Past the last entry but inside the method: the method, with no line.
TEST(IndexRules, LineTableUsesEndOffsets) {
  IndexBuilder b;
  b.AddLoad(Report({.time = 1,
                    .id = 7,
                    .name = "m",
                    .address = 0x1000,
                    .size = 0x20,
                    .lines = {{1, 2}, {12, 4}, {15, 2}, {18, 1}, {21, 30}}}));
  const SymbolIndex index = std::move(b).Build();
  ExpectAll(index, {{0x1000, 5, "m:2"},
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
  const SymbolIndex index = std::move(b).Build();
  ExpectAll(index, {{0x100, 2, "dup:7"},
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

// Split functions: the seeds' regions at 0x100 (0x20 bytes) and 0x200 (0x30 bytes) under one
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
  const SymbolIndex index = std::move(b).Build();
  ExpectAll(index,
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
  ASSERT_EQ(index.warnings().size(), 1u);
  EXPECT_NE(index.warnings()[0].find("\"b.c\""), std::string::npos) << index.warnings()[0];
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
  const SymbolIndex index = std::move(b).Build();
  ExpectAll(index,
            {{0x100, 9, "plain #1 {late}"},
             {0x125, 9, "plain #1 {late}"},
             {0x200, 9, "x32 #2 {engine}"},
             {0x300, 9, "x64 #3 {engine (64)}"},
             {0x400, 9, "native #4 {engine (64)}"},
             {0x500, 9, "alone #5 {solo}"}},
            true);
}

// The seeds' inline tree: a (1000) contains b (2000, parent 1000) and d (2001, parent 1000);
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
    const SymbolIndex index = std::move(builder).Build();
    SCOPED_TRACE(testing::Describe(index, 0x1024, 20));
    ExpectAll(index, expected);
    EXPECT_TRUE(index.warnings().empty());
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
  const SymbolIndex index = std::move(b).Build();
  Resolution r;
  ASSERT_TRUE(index.Resolve(0x1080, 5, r));
  ASSERT_EQ(r.frames.size(), kDepth + 1u);
  EXPECT_EQ(r.frames.front().line, kDepth + 1u);
  EXPECT_TRUE(r.frames.front().inlined);
  EXPECT_EQ(r.frames.back().line, 1u);
  EXPECT_FALSE(r.frames.back().inlined);
  ASSERT_TRUE(index.Resolve(0x1001, 5, r));
  EXPECT_EQ(r.frames.size(), 2u);
}

// A load overlapping an already reported method ends it at the load's time, with its inline
// children; before that time the old code still resolves ("metrics until it is overwritten").
TEST(IndexRules, OverwriteEndsOldCodeAndItsInlines) {
  IndexBuilder b;
  b.AddLoad(Report({.time = 10, .id = 1, .name = "old", .address = 0x100, .size = 0x40}));
  b.AddInlineLoad(Report({.time = 10, .id = 2, .name = "kid", .address = 0x100, .size = 0x10}), 1);
  b.AddLoad(Report({.time = 20, .id = 3, .name = "new", .address = 0x130, .size = 0x40}));
  const SymbolIndex index = std::move(b).Build();
  ExpectAll(index, {{0x105, 9, "-"},
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
  const SymbolIndex index = std::move(b).Build();
  ExpectAll(index, {{0x115, 15, "g (i) < f:1"}, {0x115, 20, "f:5"}, {0x115, kLatest, "f:5"}});
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
  const SymbolIndex index = std::move(b).Build();
  ExpectAll(index, {{0x104, 15, "low (i) < f:1"},
                    {0x104, 25, "low (i) < f:1"},
                    {0x114, 15, "f:1"},
                    {0x114, 25, "f:9"},
                    {0x11a, 15, "mid (i) < f:1"},
                    {0x11a, 25, "f:9"},
                    {0x130, 15, "f:2"},
                    {0x130, 25, "f:2"}});
  Resolution r;
  ASSERT_TRUE(index.Resolve(0x130, 25, r));
  EXPECT_EQ(r.region.start, 0x120u);
  EXPECT_EQ(r.region.loaded, 20u);
  ASSERT_TRUE(index.Resolve(0x130, 15, r));
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
  const SymbolIndex index = std::move(b).Build();
  // Offset 4k..4k+3 is line 1000 + k + 1 (end offsets); the update covers offsets 400..403.
  ExpectAll(index, {{0x1000 + 401, 15, "f:1101"},
                    {0x1000 + 401, 25, "f:7"},
                    {0x1000 + 404, 25, "f:1102"},
                    {0x1000 + 407, 25, "f:1102"},
                    {0x1000 + 800, 25, "f:1201"},
                    {0x1000 + 1199, 25, "f:1300"},
                    {0x1000 + 3, 25, "f:1001"}});
}

// Code overwritten in its middle: the older code around the newer one still reports its whole
// region (start, size, load time) and its lines, before and after the overwrite.
TEST(IndexRules, CodeAroundAnOverwriteKeepsItsWholeRegion) {
  IndexBuilder b;
  b.AddLoad(Report({.time = 10,
                    .id = 1,
                    .name = "outer",
                    .address = 0x100,
                    .size = 0x40,
                    .lines = {{0x10, 1}, {0x20, 2}, {0x40, 3}}}));
  b.AddLoad(Report({.time = 20, .id = 2, .name = "new", .address = 0x110, .size = 0x10}));
  const SymbolIndex index = std::move(b).Build();
  ExpectAll(index, {{0x105, 15, "outer:1"},
                    {0x115, 15, "outer:2"},
                    {0x115, 25, "new"},
                    {0x125, 15, "outer:3"},
                    {0x125, 25, "-"},
                    {0x125, kLatest, "outer:3"}});
  Resolution r;
  ASSERT_TRUE(index.Resolve(0x135, 15, r));
  EXPECT_EQ(r.region.start, 0x100u);
  EXPECT_EQ(r.region.size, 0x40u);
  EXPECT_EQ(r.region.loaded, 10u);
  EXPECT_EQ(index.region_count(), 2u);
}

// jitdump's code_index is 64 bits wide: ids past 2^32 come back whole.
TEST(IndexRules, MethodIdsWiderThan32BitsComeBackWhole) {
  IndexBuilder b;
  const uint32_t space = b.NewIdSpace();
  for (uint64_t id : {uint64_t{1} << 32, (uint64_t{1} << 40) + 5, uint64_t{9}}) {
    CodeReport load =
        Report({.time = 1, .id = id, .name = "m", .address = 0x100 * (id % 7 + 1), .size = 0x10});
    load.id_space = space;
    b.AddLoad(load);
  }
  const SymbolIndex index = std::move(b).Build();
  ExpectAll(index,
            {{0x500, 5, "m #4294967296"}, {0x100, 5, "m #1099511627781"}, {0x300, 5, "m #9"}},
            true);
}

// METHOD_UPDATE_V2 changes code bytes, not symbols: a new version of the region from then on.
TEST(IndexRules, RangeUpdateStartsANewVersion) {
  IndexBuilder b;
  b.AddLoad(Report(
      {.time = 10, .id = 1, .name = "f", .address = 0x100, .size = 0x40, .lines = {{0x40, 3}}}));
  b.AddInlineLoad(Report({.time = 10, .id = 2, .name = "g", .address = 0x110, .size = 0x10}), 1);
  b.AddRangeUpdate(30, 0x120, 0x8);
  const SymbolIndex index = std::move(b).Build();
  ExpectAll(index, {{0x115, 20, "g (i) < f:3"}, {0x115, 40, "g (i) < f:3"}});
  Resolution r;
  ASSERT_TRUE(index.Resolve(0x105, 40, r));
  EXPECT_EQ(r.region.loaded, 30u);
  ASSERT_TRUE(index.Resolve(0x105, 29, r));
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
  const SymbolIndex index = std::move(b).Build();
  ExpectAll(index, {{0x105, 29, "f"},
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
  const SymbolIndex index = std::move(b).Build();
  ExpectAll(index, {{0x104, 15, "first"},
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
  const SymbolIndex index = std::move(b).Build();
  ExpectAll(index, {{0x104, 15, "first"}, {0x104, 25, "-"}, {0x104, 35, "second"}});
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
  const SymbolIndex index = std::move(b).Build();
  ExpectAll(index, {{0x109, 15, "moved:2"},
                    {0x109, 25, "-"},
                    {0x809, 15, "-"},
                    {0x809, 25, "moved:2"},
                    {0x801, 35, "moved:1"}});
  EXPECT_EQ(index.warnings().size(), 1u);
}

// Perf maps have no time: every entry is valid for the whole process; where entries overlap,
// the later line wins (writers append).
TEST(IndexRules, TimelessEntriesLastWins) {
  IndexBuilder b;
  for (auto [name, address, size] : {std::tuple{"one", 0x100, 0x20}, std::tuple{"two", 0x110, 0x20},
                                     std::tuple{"three", 0x200, 0x10}}) {
    CodeReport r = Report({.time = 0,
                           .name = name,
                           .address = static_cast<uint64_t>(address),
                           .size = static_cast<uint64_t>(size)});
    r.method_id.reset();
    b.AddLoad(r);
  }
  const SymbolIndex index = std::move(b).Build();
  ExpectAll(index,
            {{0x105, 0, "-"},
             {0x115, 0, "two"},
             {0x115, 12345, "two"},
             {0x205, 99999, "three"},
             {0x205, kLatest, "three"},
             {0x105, kLatest, "-"}},
            false);
}

// Many overlapping versions of one address: the lookup picks the one valid at the time.
TEST(IndexRules, ManyVersionsOfOneAddress) {
  IndexBuilder b;
  for (uint64_t i = 0; i < 50; ++i) {
    b.AddLoad(Report({.time = 100 + i * 10,
                      .id = i + 1,
                      .name = "v",
                      .address = 0x1000 + (i % 3),
                      .size = 0x40 + i,
                      .lines = {{0x80, static_cast<uint32_t>(i + 1)}}}));
  }
  const SymbolIndex index = std::move(b).Build();
  for (uint64_t i = 0; i < 50; ++i) {
    EXPECT_EQ(Describe(index, 0x1010, 105 + i * 10), "v:" + std::to_string(i + 1));
  }
  EXPECT_EQ(Describe(index, 0x1010, 99), "-");
  EXPECT_EQ(Describe(index, 0x1010, kLatest), "v:50");
}

// Ranges that cannot be code are refused with a warning instead of corrupting the index.
TEST(IndexRules, InvalidRangesAreIgnored) {
  IndexBuilder b;
  b.AddLoad(Report({.time = 1, .id = 1, .name = "empty", .address = 0x100, .size = 0}));
  b.AddLoad(Report({.time = 1, .id = 2, .name = "wraps", .address = ~0ull - 4, .size = 0x10}));
  b.AddLoad(Report({.time = 1, .id = 3, .name = "huge", .address = 0x100, .size = 1ull << 33}));
  const SymbolIndex index = std::move(b).Build();
  EXPECT_EQ(index.region_count(), 0u);
  EXPECT_EQ(index.warnings().size(), 3u);
  EXPECT_EQ(Describe(index, 0x100, 1), "-");
}

}  // namespace
}  // namespace jitscope::symbolize

namespace jitscope::symbolize {
namespace {

// ResolveBatch answers exactly what Resolve answers, query by query.
TEST(IndexRules, BatchMatchesSingleLookups) {
  IndexBuilder b;
  b.AddLoad(Report({.time = 10,
                    .id = 1,
                    .name = "a",
                    .address = 0x1000,
                    .size = 0x100,
                    .lines = {{0x80, 1}, {0x100, 2}}}));
  b.AddInlineLoad(Report({.time = 11, .id = 2, .name = "b", .address = 0x1010, .size = 0x40}), 1);
  b.AddInlineLoad(Report({.time = 12, .id = 3, .name = "c", .address = 0x1020, .size = 0x10}), 2);
  b.AddLoad(Report({.time = 20, .id = 4, .name = "over", .address = 0x10c0, .size = 0x80}));
  b.AddLoad(Report({.time = 30, .id = 5, .name = "far", .address = 0x900000, .size = 0x10}));
  const SymbolIndex index = std::move(b).Build();
  std::vector<Query> queries;
  for (uint64_t address = 0xff0; address < 0x1150; address += 3) {
    for (uint64_t time : {uint64_t{5}, uint64_t{15}, uint64_t{25}, kLatest}) {
      queries.push_back({address, time});
    }
  }
  queries.push_back({0x900004, 31});
  queries.push_back({0x900010, 31});
  BatchResolution batch;
  index.ResolveBatch(queries, batch);
  ASSERT_EQ(batch.frame_begin.size(), queries.size() + 1);
  Resolution single;
  size_t resolved = 0;
  for (size_t i = 0; i < queries.size(); ++i) {
    SCOPED_TRACE(i);
    const bool found = index.Resolve(queries[i].address, queries[i].time, single);
    resolved += found;
    ASSERT_EQ(batch.frame_begin[i + 1] - batch.frame_begin[i], single.frames.size());
    for (size_t f = 0; f < single.frames.size(); ++f) {
      const Frame& x = batch.frames[batch.frame_begin[i] + f];
      EXPECT_EQ(x.name, single.frames[f].name);
      EXPECT_EQ(x.line, single.frames[f].line);
      EXPECT_EQ(x.inlined, single.frames[f].inlined);
    }
    EXPECT_EQ(batch.regions[i].start, single.region.start);
    EXPECT_EQ(batch.regions[i].loaded, single.region.loaded);
  }
  EXPECT_GT(resolved, queries.size() / 3);  // both resolved and unresolved ones are compared
}

// OProfile's agent API in a trace (seed 004): op_write_debug_line_info comes after its code's
// load and gives absolute addresses, each entry naming its file; a second call for the same code
// replaces the first; an unload ends the code, and a later load at the address is new code with
// no lines until it reports its own.
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
  const SymbolIndex index = std::move(b).Build();
  ExpectAll(index,
            {{0x1004, 15, "f:10 @A.js"},
             {0x100a, 15, "f:12 @B.js"},
             {0x1004, 25, "-"},
             {0x1004, 35, "g"},
             {0x1004, 45, "g"}},
            true);
}

// Long tables (a whole-script function can have hundreds of thousands of rows) are looked up
// through checkpoints; every offset must answer as a row-by-row reading would. The sizes straddle
// where checkpoints start (128 rows) and where one ends (every 64 rows).
TEST(IndexRules, LongLineTablesAnswerEveryOffsetAsShortOnesDo) {
  for (uint32_t rows : {127u, 128u, 129u, 192u, 193u, 5000u}) {
    IndexBuilder b;
    // End-offset table: entry i ends at 3 * (i + 1), with line 1000 - i (lines go down too).
    std::vector<trace::LineEntry> lines;
    for (uint32_t i = 0; i < rows; ++i) lines.push_back({3 * (i + 1), 1000 + rows - i});
    const uint64_t size = 3 * rows + 5;
    b.AddLoad(Report({.time = 1,
                      .id = 7,
                      .name = "m",
                      .address = 0x10000,
                      .size = size,
                      .file = "m.js",
                      .lines = lines}));
    // Start-address table (jitdump style) whose file changes every 7 rows.
    CodeReport jit = Report({.time = 1, .name = "j", .address = 0x80000, .size = 2 * rows});
    std::vector<std::string> files = {"a.js", "b.js"};
    std::vector<AddressLine> address_lines;
    for (uint32_t i = 0; i < rows; ++i) {
      address_lines.push_back({0x80000 + 2 * i, i + 1, files[(i / 7) % 2]});
    }
    jit.address_lines = address_lines;
    b.AddLoad(jit);
    const SymbolIndex index = std::move(b).Build();
    for (uint64_t offset = 0; offset < size; ++offset) {
      const std::string expected = offset < 3 * rows
                                       ? "m:" + std::to_string(1000 + rows - offset / 3) + " @m.js"
                                       : "m @m.js";
      ASSERT_EQ(Describe(index, 0x10000 + offset, kLatest, true), expected + " #7")
          << rows << " rows, offset " << offset;
    }
    for (uint64_t offset = 0; offset < 2 * rows; ++offset) {
      const uint32_t row = static_cast<uint32_t>(offset / 2);
      ASSERT_EQ(Describe(index, 0x80000 + offset, kLatest, true),
                "j:" + std::to_string(row + 1) + " @" + files[(row / 7) % 2] + " #0")
          << rows << " rows, offset " << offset;
    }
  }
}

// Code in places far apart (index_builder.cc, kAreaGap: 16 MiB) gets buckets per area; every
// address must still find its code, and addresses between areas, before the first and after the
// last find none, one at a time and batched. A region larger than the gap keeps its area whole.
TEST(IndexRules, CodeInAreasFarApartResolvesAsIfTogether) {
  struct Code {
    const char* name;
    uint64_t address, size;
  };
  constexpr uint64_t kMiB = 1 << 20;
  const std::vector<Code> code = {
      {"low", 0x1000, 0x40},
      {"near", 0x1000 + 15 * kMiB, 0x40},  // less than the gap: the same area
      {"huge", 0x40000000, 40 * kMiB},     // larger than the gap
      {"after_huge", 0x40000000 + 40 * kMiB, 0x100},
      {"huge_alone", 0x100000000, 40 * kMiB},  // the last code of its area
      {"heap", 0x550000001000, 0x80},
      {"heap2", 0x550000001080, 0x80},
      {"libs", 0x7f0000000000, 0x20},
      {"top", 0x7ffffffff000, 0x1000},
  };
  IndexBuilder b;
  for (size_t i = 0; i < code.size(); ++i) {
    b.AddLoad(Report({.time = 1,
                      .id = i + 1,
                      .name = code[i].name,
                      .address = code[i].address,
                      .size = code[i].size}));
  }
  const SymbolIndex index = std::move(b).Build();
  std::vector<Query> queries;
  std::vector<std::string> expected;
  auto expect = [&](uint64_t address, std::string name) {
    queries.push_back({address, 5});
    expected.push_back(std::move(name));
  };
  expect(0, "-");
  for (const Code& c : code) {
    expect(c.address - 1, "-");
    expect(c.address, c.name);
    expect(c.address + c.size / 2, c.name);
    expect(c.address + c.size - 1, c.name);
  }
  // Where code touches code, the byte before the second is the first's.
  for (size_t q = 0; q < queries.size(); ++q) {
    if (queries[q].address == 0x40000000 + 40 * kMiB - 1) expected[q] = "huge";
    if (queries[q].address == 0x550000001080 - 1) expected[q] = "heap";
  }
  expect(0x1000 + 15 * kMiB + 0x40, "-");
  expect(0x40000000 + 40 * kMiB + 0x100, "-");
  expect(0x100000000 + 40 * kMiB, "-");
  expect(0x550000001100, "-");
  expect(0x7f0000000020, "-");
  expect(0x6000000000000, "-");
  expect(~0ull, "-");
  BatchResolution batch;
  index.ResolveBatch(queries, batch);
  for (size_t q = 0; q < queries.size(); ++q) {
    EXPECT_EQ(Describe(index, queries[q].address, 5), expected[q])
        << std::hex << queries[q].address;
    const uint32_t frames = batch.frame_begin[q + 1] - batch.frame_begin[q];
    EXPECT_EQ(frames == 0 ? std::string("-") : std::string(batch.frames[batch.frame_begin[q]].name),
              expected[q])
        << "batch, " << std::hex << queries[q].address;
  }
}

// Every region's method record and line table lie side by side, some moved to the next cache line
// (index_builder.cc, OnOneLine), and a region that was ended is looked up through the overlap
// list: across thousands of methods with tables of every length from 0 to 40 rows, with line
// deltas of one byte and more, every offset answers exactly, one at a time and in a batch, before
// and after every fifth method is unloaded.
TEST(IndexRules, ThousandsOfMethodsWithTablesOfEveryLengthAnswerExactly) {
  constexpr uint64_t kMethods = 3000;
  constexpr uint64_t kBase = 0x100000;
  auto size_of = [](uint64_t i) { return 0x40 + i % 64; };
  auto rows_of = [](uint64_t i) { return static_cast<uint32_t>(i % 41); };
  auto end_of = [&](uint64_t i, uint32_t k) {  // row k's end offset
    return static_cast<uint32_t>((k + 1) * size_of(i) / (rows_of(i) + 1));
  };
  auto line_of = [](uint64_t i, uint32_t k) { return (i * 7 + k * 997) % 5000 + 1; };
  IndexBuilder b;
  std::vector<std::string> names;
  for (uint64_t i = 0; i < kMethods; ++i) names.push_back("m" + std::to_string(i));
  for (uint64_t i = 0; i < kMethods; ++i) {
    std::vector<trace::LineEntry> lines;
    for (uint32_t k = 0; k < rows_of(i); ++k) {
      lines.push_back({end_of(i, k), static_cast<uint32_t>(line_of(i, k))});
    }
    b.AddLoad(Report({.time = 10 + i,
                      .id = i + 1,
                      .name = names[i].c_str(),
                      .address = kBase + i * 0x100,
                      .size = size_of(i),
                      .lines = lines}));
    if (i % 5 == 0) b.AddUnloadMethod(50000, 0, i + 1);
  }
  const SymbolIndex index = std::move(b).Build();
  std::vector<Query> queries;
  std::vector<std::string> expected;
  for (uint64_t i = 0; i < kMethods; ++i) {
    for (uint64_t offset = 0; offset < size_of(i); offset += 1 + i % 3) {
      uint32_t k = 0;
      while (k < rows_of(i) && offset >= end_of(i, k)) ++k;
      const std::string name = names[i];
      const std::string at = k < rows_of(i) ? name + ":" + std::to_string(line_of(i, k)) : name;
      queries.push_back({kBase + i * 0x100 + offset, 40000});
      expected.push_back(at);
      queries.push_back({kBase + i * 0x100 + offset, 60000});
      expected.push_back(i % 5 == 0 ? "-" : at);
    }
  }
  BatchResolution batch;
  index.ResolveBatch(queries, batch);
  ASSERT_EQ(batch.frame_begin.size(), queries.size() + 1);
  for (size_t q = 0; q < queries.size(); ++q) {
    ASSERT_EQ(Describe(index, queries[q].address, queries[q].time), expected[q])
        << std::hex << queries[q].address << std::dec << " at " << queries[q].time;
    std::string from_batch = "-";
    if (batch.frame_begin[q + 1] != batch.frame_begin[q]) {
      ASSERT_EQ(batch.frame_begin[q + 1] - batch.frame_begin[q], 1u);
      const Frame& f = batch.frames[batch.frame_begin[q]];
      from_batch = std::string(f.name) + (f.line != 0 ? ":" + std::to_string(f.line) : "");
      EXPECT_EQ(f.method_id, std::stoull(std::string(f.name).substr(1)) + 1);
    }
    ASSERT_EQ(from_batch, expected[q]) << "batch, query " << q;
  }
}

}  // namespace
}  // namespace jitscope::symbolize
