// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The symbol index at the scale of a large JIT: 1,000,000 methods with 16 line-table entries each.
//  - BM_Build: report every method to an IndexBuilder and build the index (what `jitscope resolve`
//    and `report` do after reading a trace).
//  - BM_Lookup: (address, time) → frames for random addresses inside the code, one core;
//    BM_LookupBatch: the same through ResolveBatch, 1,024 queries at a time.
//  - The perf side, measured in the same run over a perf map of the same 1,000,000 methods:
//    BM_PerfStyleLoad parses the map as perf's dso__load_perf_map does (strtoull per field, one
//    calloc'ed `struct symbol` with its name inline per line, inserted into a red-black tree, as
//    symbols__insert does) and BM_PerfStyleLookup descends that tree for each address, as
//    symbols__find does (perf's one-entry last-lookup cache never hits on random addresses).
//    std::map is a red-black tree like the kernel's rb_root, with the same node-per-symbol layout.
//  - BM_BuildFromPerfMap: jitscope reading the same perf map text and building its index.
// docs/performance.md gives the command that runs it (bench/compare runs it too, for its table of
// the earlier issues' microbenchmarks); bench/symbolize/perf_report_compare.sh times the real
// `perf report`; docs/performance.md has the figures.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "jitscope/formats/perf_map_reader.h"
#include "jitscope/symbolize/importers.h"
#include "jitscope/symbolize/index_builder.h"

namespace jitscope::symbolize {
namespace {

constexpr uint64_t kMethods = 1000000;
constexpr uint64_t kBase = 0x7f0000000000;
constexpr uint64_t kStride = 64;  // one method every 64 bytes; sizes 49..64 leave small gaps
constexpr uint32_t kLinesPerMethod = 16;

struct Workload {
  std::vector<std::string> names;
  std::vector<trace::LineEntry> lines;  // kLinesPerMethod per method, end offsets
  std::vector<std::string> files;
  std::string perf_map;           // the same methods as a perf map
  std::vector<uint64_t> queries;  // random addresses inside methods

  static uint32_t Size(uint64_t i) { return static_cast<uint32_t>(kStride - (i * 7919) % 16); }

  Workload() {
    std::mt19937_64 rng(42);
    names.reserve(kMethods);
    lines.reserve(kMethods * kLinesPerMethod);
    for (int f = 0; f < 1000; ++f) files.push_back("app/module_" + std::to_string(f) + ".js");
    char buffer[128];
    for (uint64_t i = 0; i < kMethods; ++i) {
      names.push_back("JS:*method_" + std::to_string(i) + " " + files[i % 1000] + ":" +
                      std::to_string(i % 5000 + 1));
      const uint32_t size = Size(i);
      const uint32_t first_line = static_cast<uint32_t>(i % 5000 + 1);
      for (uint32_t k = 1; k <= kLinesPerMethod; ++k) {
        lines.push_back({size * k / kLinesPerMethod, first_line + (k * 3) % 7});
      }
      std::snprintf(buffer, sizeof(buffer), "%llx %x ",
                    static_cast<unsigned long long>(kBase + i * kStride), size);
      perf_map += buffer;
      perf_map += names.back();
      perf_map += '\n';
    }
    queries.resize(1 << 22);
    for (uint64_t& q : queries) {
      const uint64_t i = rng() % kMethods;
      q = kBase + i * kStride + rng() % Size(i);
    }
  }
};

const Workload& Data() {
  static const Workload* workload = new Workload();  // built once, outside the timings
  return *workload;
}

// The layout of BM_LookupBatch/2: the first half of the methods far below the second, as when a
// JIT's code lives both near the heap and among the shared libraries (0x55... and 0x7f...).
constexpr uint64_t kLowBase = 0x550000000000;
uint64_t InTwoAreas(uint64_t address) {
  return address - kBase < kMethods / 2 * kStride ? address - kBase + kLowBase : address;
}

SymbolIndex BuildIndex(const Workload& w, bool two_areas = false) {
  IndexBuilder builder;
  builder.Reserve(kMethods);  // as the importers do: they know their record counts
  CodeReport report;
  for (uint64_t i = 0; i < kMethods; ++i) {
    report.time = 1000 + i;
    report.method_id = i + 1;
    report.address = two_areas ? InTwoAreas(kBase + i * kStride) : kBase + i * kStride;
    report.size = Workload::Size(i);
    report.name = w.names[i];
    report.source_file = w.files[i % 1000];
    report.end_offset_lines = {w.lines.data() + i * kLinesPerMethod, kLinesPerMethod};
    builder.AddLoad(report);
  }
  return std::move(builder).Build();
}

void BM_Build(benchmark::State& state) {
  const Workload& w = Data();
  size_t bytes = 0, strings = 0;
  for (auto _ : state) {
    SymbolIndex index = BuildIndex(w);
    bytes = index.Memory().total();
    strings = index.Memory().strings;
    benchmark::DoNotOptimize(index);
  }
  state.counters["methods"] = kMethods;
  state.counters["bytes_per_method"] = static_cast<double>(bytes - strings) / kMethods;
  state.counters["string_bytes_per_method"] = static_cast<double>(strings) / kMethods;
}
BENCHMARK(BM_Build)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_Lookup(benchmark::State& state) {
  const Workload& w = Data();
  static const SymbolIndex* index = new SymbolIndex(BuildIndex(w));
  Resolution r;
  size_t i = 0, resolved = 0;
  for (auto _ : state) {
    resolved += index->Resolve(w.queries[i], 2000000, r);
    benchmark::DoNotOptimize(r.frames.data());
    i = (i + 1) & (w.queries.size() - 1);
  }
  if (resolved != static_cast<size_t>(state.iterations()))
    state.SkipWithError("a query did not resolve");
  state.SetItemsProcessed(state.iterations());
  const IndexMemory m = index->Memory();
  state.counters["pieces_bytes_per_method"] = static_cast<double>(m.pieces) / kMethods;
  state.counters["buckets_bytes_per_method"] = static_cast<double>(m.buckets) / kMethods;
  state.counters["methods_bytes_per_method"] = static_cast<double>(m.methods) / kMethods;
  state.counters["lines_bytes_per_method"] = static_cast<double>(m.line_programs) / kMethods;
}
BENCHMARK(BM_Lookup);

// The same random queries resolved 1,024 at a time with ResolveBatch (a profile's samples).
// With argument 1, the queries fall into the first 4,096 methods only, whose part of the index
// stays in the caches: the lookup's own work, without waiting for memory. With argument 2, the
// code lies in two areas 40 TiB apart (InTwoAreas).
void BM_LookupBatch(benchmark::State& state) {
  const Workload& w = Data();
  const bool cached = state.range(0) == 1;
  const bool two_areas = state.range(0) == 2;
  static const SymbolIndex* one_area_index = new SymbolIndex(BuildIndex(w));
  static const SymbolIndex* two_area_index = nullptr;
  if (two_areas && two_area_index == nullptr) two_area_index = new SymbolIndex(BuildIndex(w, true));
  const SymbolIndex* index = two_areas ? two_area_index : one_area_index;
  constexpr size_t kBatch = 1024;
  std::vector<Query> queries(kBatch);
  BatchResolution out;
  size_t next = 0, resolved = 0;
  for (auto _ : state) {
    state.PauseTiming();
    for (Query& q : queries) {
      q = {w.queries[next], 2000000};
      if (cached) q.address = kBase + (q.address - kBase) % (4096 * kStride);
      if (two_areas) q.address = InTwoAreas(q.address);
      next = (next + 1) & (w.queries.size() - 1);
    }
    state.ResumeTiming();
    index->ResolveBatch(queries, out);
    resolved += out.frames.size();
    benchmark::DoNotOptimize(out.frames.data());
  }
  if (resolved != static_cast<size_t>(state.iterations()) * kBatch) {
    state.SkipWithError("a query did not resolve");
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(BM_LookupBatch)->Arg(0)->Arg(1)->Arg(2);

// ---- the machine's floor: what random reads of an index-sized table cost here ----
// A lookup over 1,000,000 methods reads a few cache lines at random places in ~100 MB. These two
// read one line per query from a 128 MiB table on huge pages, as the index's arrays are:
// BM_FloorDependentRead one after another (each address comes from the previous read: the
// latency a one-at-a-time lookup pays per line), BM_FloorIndependentReads with the addresses
// known in advance and prefetched 16 ahead (the most lines per second the memory system gives
// one core, which bounds ResolveBatch).
struct FloorTable {
  static constexpr size_t kLines = size_t{128} << 20 >> 6;
  base::HugeVector<uint64_t> words = base::HugeVector<uint64_t>(kLines * 8);
  FloorTable() {
    // One random cycle through every line, for the dependent chain.
    std::vector<uint32_t> order(kLines);
    for (uint32_t i = 0; i < kLines; ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), std::mt19937_64(7));
    for (size_t i = 0; i < kLines; ++i) words[order[i] * 8] = order[(i + 1) % kLines] * 8;
  }
};

const FloorTable& Floor() {
  static const FloorTable* table = new FloorTable();
  return *table;
}

void BM_FloorDependentRead(benchmark::State& state) {
  const FloorTable& t = Floor();
  uint64_t at = 0;
  for (auto _ : state) {
    at = t.words[at];
    benchmark::DoNotOptimize(at);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_FloorDependentRead);

void BM_FloorIndependentReads(benchmark::State& state) {
  const FloorTable& t = Floor();
  const Workload& w = Data();  // the same random addresses as the lookups, mapped onto lines
  constexpr size_t kAhead = 16;
  auto line_of = [&](size_t i) {
    return (w.queries[i & (w.queries.size() - 1)] * 0x9E3779B97F4A7C15ull >> 40) %
           FloorTable::kLines;
  };
  size_t i = 0;
  uint64_t sum = 0;
  for (auto _ : state) {
    __builtin_prefetch(&t.words[line_of(i + kAhead) * 8]);
    sum += t.words[line_of(i) * 8 + 1];
    ++i;
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_FloorIndependentReads);

// ---- perf's approach, over the same methods as a perf map ----

struct PerfSymbol {  // perf's struct symbol: rb_node, start, end, flags, then the name
  uint64_t start, end;
  uint16_t namelen;
  uint8_t type, binding;
  char name[];
};
using PerfTree = std::map<uint64_t, PerfSymbol*>;

PerfTree* PerfStyleLoad(const std::string& text) {
  auto* tree = new PerfTree();
  const char* p = text.c_str();
  while (*p) {
    const char* line_end = std::strchr(p, '\n');
    char* next;
    const uint64_t start = std::strtoull(p, &next, 16);
    const uint64_t size = std::strtoull(next + 1, &next, 16);
    const char* name = next + 1;
    const size_t namelen = static_cast<size_t>(line_end - name);
    auto* sym = static_cast<PerfSymbol*>(std::calloc(1, sizeof(PerfSymbol) + namelen + 1));
    sym->start = start;
    sym->end = start + size;
    sym->namelen = static_cast<uint16_t>(namelen);
    std::memcpy(sym->name, name, namelen);
    tree->emplace(start, sym);
    p = line_end + 1;
  }
  return tree;
}

void FreePerfTree(PerfTree* tree) {
  for (auto& [start, sym] : *tree) std::free(sym);
  delete tree;
}

void BM_PerfStyleLoad(benchmark::State& state) {
  const Workload& w = Data();
  for (auto _ : state) {
    PerfTree* tree = PerfStyleLoad(w.perf_map);
    benchmark::DoNotOptimize(tree);
    state.PauseTiming();
    FreePerfTree(tree);
    state.ResumeTiming();
  }
}
BENCHMARK(BM_PerfStyleLoad)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_PerfStyleLookup(benchmark::State& state) {
  const Workload& w = Data();
  static const PerfTree* tree = PerfStyleLoad(w.perf_map);
  size_t i = 0, resolved = 0;
  for (auto _ : state) {
    auto it = tree->upper_bound(w.queries[i]);
    const PerfSymbol* sym = nullptr;
    if (it != tree->begin() && w.queries[i] < std::prev(it)->second->end)
      sym = std::prev(it)->second;
    resolved += sym != nullptr;
    benchmark::DoNotOptimize(sym);
    i = (i + 1) & (w.queries.size() - 1);
  }
  if (resolved != static_cast<size_t>(state.iterations()))
    state.SkipWithError("a query did not resolve");
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PerfStyleLookup);

void BM_BuildFromPerfMap(benchmark::State& state) {
  const Workload& w = Data();
  for (auto _ : state) {
    const formats::ParsedPerfMap map = formats::ParsePerfMap(w.perf_map, "perf-1.map");
    IndexBuilder builder;
    ImportPerfMap(map, builder);
    SymbolIndex index = std::move(builder).Build();
    benchmark::DoNotOptimize(index);
  }
}
BENCHMARK(BM_BuildFromPerfMap)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace jitscope::symbolize

BENCHMARK_MAIN();
