// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The symbol index's layout (index_layout.h): pieces cut where code was overwritten, buckets over
// areas far apart, method records beside line tables of every length, re-based line tables, wide
// ids, batched lookups. The index must answer exactly what the replayed regions say
// (index_rules_test.cc checks those against the rules).
#include <algorithm>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/repeats.h"
#include "symbolize/index_test_util.h"

namespace jitscope::symbolize {
namespace {

using testing::Check;
using testing::Describe;
using testing::ExpectAll;
using testing::History;
using testing::Load;
using testing::Report;

// Code overwritten in its middle: the older code around the newer one still reports its whole
// region (start, size, load time) and its lines, before and after the overwrite.
TEST(IndexLayout, CodeAroundAnOverwriteKeepsItsWholeRegion) {
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
  EXPECT_EQ(r.region.invalidated, 20u);  // the overwrite ended it, even where it left it whole
  ASSERT_TRUE(index.Resolve(0x115, 25, r));
  EXPECT_EQ(r.region.start, 0x110u);
  EXPECT_EQ(r.region.invalidated, kForever);  // never ended
  EXPECT_EQ(index.region_count(), 2u);
}

// jitdump's code_index is 64 bits wide: ids past 2^32 come back whole.
TEST(IndexLayout, MethodIdsWiderThan32BitsComeBackWhole) {
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

// Many overlapping versions of one address: the lookup picks the one valid at the time.
TEST(IndexLayout, ManyVersionsOfOneAddress) {
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

// ResolveBatch answers exactly what Resolve answers, query by query.
TEST(IndexLayout, BatchMatchesSingleLookups) {
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

// Long tables (a whole-script function can have hundreds of thousands of rows) are looked up
// through checkpoints; every offset must answer as a row-by-row reading would. The sizes straddle
// where checkpoints start (128 rows) and where one ends (every 64 rows).
TEST(IndexLayout, LongLineTablesAnswerEveryOffsetAsShortOnesDo) {
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

// Code in places far apart (index_layout.cc, kAreaGap: 16 MiB) gets buckets per area; every
// address must still find its code, and addresses between areas, before the first and after the
// last find none, one at a time and batched. A region larger than the gap keeps its area whole.
TEST(IndexLayout, CodeInAreasFarApartResolvesAsIfTogether) {
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
// (index_layout.cc, PutOnOneCacheLine), and a region that was ended is looked up through the
// overlap list: across thousands of methods with tables of every length from 0 to 40 rows, with
// line deltas of one byte and more, every offset answers exactly, one at a time and in a batch,
// before and after every fifth method is unloaded.
TEST(IndexLayout, ThousandsOfMethodsWithTablesOfEveryLengthAnswerExactly) {
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

// The layout answers what the replayed regions say. Random histories of every kind of operation
// (overwrites, updates of all or part of a method, unloads, moves, nested inline regions, split
// and re-JITed methods, ties in time and events out of order): every address around the code, at
// every time that matters, resolves through the index to the frames and region that the regions
// themselves give.
void RandomHistory(uint32_t seed, std::vector<uint64_t>& times, IndexBuilder& b) {
  std::mt19937 random(seed);
  auto pick = [&random](uint64_t n) { return static_cast<uint64_t>(random() % n); };
  std::vector<std::pair<uint64_t, uint64_t>> loaded;  // (method id, address)
  const char* names[] = {"a", "b", "c", "d", "e", "f", "g"};
  const char* files[] = {nullptr, "x.c", "y.c"};
  const char* modules[] = {nullptr, "m1", "m2"};
  const size_t operations = 4 + pick(16);
  for (size_t i = 0; i < operations; ++i) {
    const uint64_t time = pick(40);
    times.push_back(time);
    const uint64_t id = 1 + pick(7);
    std::vector<trace::LineEntry> lines;
    for (uint32_t k = 0, rows = static_cast<uint32_t>(pick(5)); k < rows; ++k) {
      lines.push_back({static_cast<uint32_t>(1 + pick(0x80)), static_cast<uint32_t>(1 + pick(50))});
    }
    Load load{.time = time,
              .id = id,
              .name = names[id - 1],
              .address = 0x1000 + 0x10 * pick(32),
              .size = 0x10 * (1 + pick(12)),
              .file = files[pick(3)],
              .lines = lines,
              .module = modules[pick(3)]};
    const uint64_t kind = pick(20);
    if (kind < 9 || loaded.empty()) {
      b.AddLoad(Report(load));
      loaded.emplace_back(id, load.address);
    } else if (kind < 12) {
      // Inside code loaded before (or not), under a method loaded before (or not).
      const auto [parent, at] = loaded[pick(loaded.size())];
      load.address = at + 0x4 * pick(8);
      load.size = 0x4 * (1 + pick(8));
      b.AddInlineLoad(Report(load), pick(3) == 0 ? 1 + pick(7) : parent);
    } else if (kind < 14) {
      b.AddUpdate(Report(load));
    } else if (kind < 15) {
      b.AddRangeUpdate(time, load.address, load.size);
    } else if (kind < 17) {
      b.AddUnloadMethod(time, 0, loaded[pick(loaded.size())].first);
    } else if (kind < 18) {
      b.AddUnloadAddress(time, loaded[pick(loaded.size())].second);
    } else {
      const auto [method, at] = loaded[pick(loaded.size())];
      const uint64_t to = 0x1000 + 0x10 * pick(48);
      b.AddMove(time, 0, method, at, to);
      loaded.emplace_back(method, to);
    }
  }
}

// Every address from 0xffe to `end` (around the code of the history `make` gives for each seed),
// at every time that matters, resolves through the index to the frames and region that the
// replayed regions give.
void ExpectAnswersOfTheRegions(void (*make)(uint32_t seed, std::vector<uint64_t>& times,
                                            IndexBuilder& builder),
                               uint32_t seeds, uint64_t end) {
  size_t resolved = 0, compared = 0;
  for (uint32_t seed = 1; seed <= seeds; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::vector<uint64_t> times;
    IndexBuilder replayed;
    // An update of code never loaded, before all else, changes no region; but no load after it
    // goes straight into the index (index_builder.h), so the regions compared with are all the
    // replay's, whatever the index streamed.
    replayed.AddRangeUpdate(0, 0x10, 1);
    make(seed, times, replayed);
    const History history(std::move(replayed));
    times.clear();
    IndexBuilder streamed;
    make(seed, times, streamed);
    const SymbolIndex index = std::move(streamed).Build();
    std::vector<uint64_t> at = {kLatest};
    for (uint64_t t : times) at.insert(at.end(), {t == 0 ? 0 : t - 1, t, t + 1});
    std::vector<Query> queries;
    for (uint64_t address = 0xffe; address < end; address += 3) {
      for (uint64_t time : at) queries.push_back({address, time});
    }
    BatchResolution batch;
    index.ResolveBatch(queries, batch);
    Resolution expected, actual;
    for (size_t q = 0; q < queries.size(); ++q) {
      const auto [address, time] = queries[q];
      const bool found = history.Resolve(address, time, expected);
      ASSERT_EQ(index.Resolve(address, time, actual), found)
          << std::hex << address << std::dec << " at " << time;
      resolved += found;
      ++compared;
      ASSERT_EQ(Describe(index, address, time, true), Describe(history, address, time, true))
          << std::hex << address << std::dec << " at " << time;
      EXPECT_EQ(actual.region.start, expected.region.start);
      EXPECT_EQ(actual.region.size, expected.region.size);
      EXPECT_EQ(actual.region.loaded, expected.region.loaded);
      ASSERT_EQ(batch.frame_begin[q + 1] - batch.frame_begin[q], actual.frames.size());
      EXPECT_EQ(batch.regions[q].start, expected.region.start);
      EXPECT_EQ(batch.regions[q].loaded, expected.region.loaded);
    }
    EXPECT_EQ(index.warnings(), history.warnings());
    EXPECT_EQ(index.method_count(), history.method_count());
  }
  // Both resolved and unresolved addresses are compared, many of each.
  EXPECT_GT(resolved, compared / 10);
  EXPECT_LT(resolved, compared * 9 / 10);
}

TEST(IndexLayout, AnswersWhatTheRegionsSay) {
  ExpectAnswersOfTheRegions(RandomHistory, 200 / test_support::kRepeatDivisor, 0x1400);
}

// Histories whose loads the builder takes straight into pieces (index_builder.h: in time order,
// ties included, each at or past the end of the code before it, each of a method of its own),
// after an exec or not, with names, files, modules of both architectures and line tables at
// random; before a random load (or none), a report that ends that: a second region of a method,
// code over the code before, a load earlier in time, one without a name, without an id or with
// a 64-bit id, an inline load, an update, an unload, an exec. The streamed loads then go to the
// replay as if they had been collected; either way the index answers what the replayed regions
// say.
void StreamedHistory(uint32_t seed, std::vector<uint64_t>& times, IndexBuilder& b) {
  std::mt19937 random(seed);
  auto pick = [&random](uint64_t n) { return static_cast<uint64_t>(random() % n); };
  const char* names[] = {"a", "b", "c", "d", "e", "f", "g"};
  const char* files[] = {nullptr, "x.c", "y.c"};
  const char* modules[] = {nullptr, "m1", "m2"};
  const size_t loads = 2 + pick(14);
  const size_t stop = pick(loads + 1);  // `loads`: none
  uint64_t time = 1 + pick(3);
  uint64_t address = 0x1000;
  uint64_t previous = 0x1000;  // the last load's address
  if (pick(3) == 0) {  // an exec before every load, as SourceSet reports them; or after some
    const uint64_t exec = pick(6);
    b.AddExec(exec);
    times.push_back(exec);
  }
  for (uint64_t i = 0; i < loads; ++i) {
    std::vector<trace::LineEntry> lines;
    for (uint32_t k = 0, rows = static_cast<uint32_t>(pick(5)); k < rows; ++k) {
      lines.push_back({static_cast<uint32_t>(1 + pick(0x40)), static_cast<uint32_t>(1 + pick(50))});
    }
    Load load{.time = time,
              .id = i + 1,
              .name = names[pick(7)],
              .address = address,
              .size = 0x10 * (1 + pick(4)),
              .file = files[pick(3)],
              .lines = lines,
              .module = modules[pick(3)],
              .arch = static_cast<CodeArch>(pick(3))};
    if (i == stop) {
      const uint64_t id = 1 + pick(i + 1);  // a method loaded before, or this one
      switch (pick(11)) {
        case 0:
          load.id = id;
          break;
        case 1:
          load.address = previous + 0x8;
          break;
        case 2:
          load.time = 0;
          break;
        case 3:
          load.name = nullptr;
          break;
        case 4:
          load.id = (uint64_t{1} << 32) + i;
          break;
        case 5: {
          CodeReport anonymous = Report(load);
          anonymous.method_id.reset();
          b.AddLoad(anonymous);
          break;
        }
        case 6:
          load.address = previous + 0x4;
          load.size = 0x8;
          b.AddInlineLoad(Report(load), id);
          break;
        case 7:
          load.address = previous;
          b.AddUpdate(Report(load));
          break;
        case 8:
          b.AddUnloadMethod(time, 0, id);
          break;
        case 9:
          b.AddExec(time);
          break;
        default:
          b.AddRangeUpdate(time, previous, 0x10);
          break;
      }
      times.push_back(load.time);
    }
    b.AddLoad(Report(load));
    times.push_back(load.time);
    previous = load.address;
    address = std::max(address, load.address + load.size) + 0x10 * pick(2);
    time += pick(3);
  }
}

TEST(IndexLayout, StreamedLoadsAnswerWhatTheRegionsSay) {
  ExpectAnswersOfTheRegions(StreamedHistory, 120 / test_support::kRepeatDivisor, 0x1600);
}

}  // namespace
}  // namespace jitscope::symbolize
