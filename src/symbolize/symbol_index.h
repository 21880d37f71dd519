// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The time-versioned symbol index of one process: (address, time) → frames. Built once by
// IndexBuilder (index_builder.h, which states the rules), then read-only and safe to query from
// any number of threads.
//
// Layout (designed for 1,000,000 methods built in well under a second, tens of millions of
// lookups per second and a few dozen bytes per method; figures in docs/performance.md):
//  - Regions: the top-level code regions, each with its validity [loaded, invalidated), sorted by
//    start address in one flat array. No per-method heap nodes anywhere.
//  - Segments: the address space cut at every region boundary; each segment lists the regions
//    that cover it over time (almost always exactly one, stored inline in a 32-bit word).
//  - Buckets: a direct table from (address - base) >> shift to the first candidate segment, so
//    a lookup reads one bucket, binary-searches a handful of segment starts and checks a region.
//  - Inline regions: sorted by their top-level region, consulted only for regions that have any.
//  - Methods and modules hold interned string ids (string_table.h); line tables are compact
//    byte programs (line_program.h).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "jitscope/symbolize/huge_page_allocator.h"
#include "jitscope/symbolize/string_table.h"

namespace jitscope::symbolize {

// As a query time: "the latest code ever loaded at the address", whatever its validity.
inline constexpr uint64_t kLatest = UINT64_MAX;
// As a validity end: never invalidated.
inline constexpr uint64_t kForever = UINT64_MAX;

struct Frame {
  std::string_view name;
  std::optional<uint64_t> method_id;  // Intel method id or jitdump code_index; none for perf map
  std::string_view module;            // "" when none was reported
  std::string_view file;              // "" when none is known
  uint32_t line = 0;                  // 0 when none is known
  bool inlined = false;
};

struct MatchedRegion {
  uint64_t start = 0;
  uint64_t size = 0;
  uint64_t loaded = 0;  // time the code became valid
};

struct Resolution {
  std::vector<Frame> frames;  // innermost first; empty when the address is not JIT code
  MatchedRegion region;
};

struct Query {
  uint64_t address = 0;
  uint64_t time = kLatest;
};

// The results of ResolveBatch: query i's frames are frames[frame_begin[i], frame_begin[i + 1]).
struct BatchResolution {
  std::vector<Frame> frames;
  std::vector<uint32_t> frame_begin;
  std::vector<MatchedRegion> regions;  // zero for an unresolved query
};

struct IndexMemory {
  size_t regions = 0, segments = 0, buckets = 0, inlines = 0, methods = 0, line_programs = 0,
         strings = 0;
  size_t total() const {
    return regions + segments + buckets + inlines + methods + line_programs + strings;
  }
};

class SymbolIndex {
 public:
  SymbolIndex() = default;
  SymbolIndex(SymbolIndex&&) = default;
  SymbolIndex& operator=(SymbolIndex&&) = default;

  // Fills `out` (reusing its storage) and returns true if `address` was JIT code at `time`
  // (kLatest: the latest code loaded there). Frames point into the index.
  bool Resolve(uint64_t address, uint64_t time, Resolution& out) const;

  // Resolves many queries (a profile's samples) with the same results as Resolve, faster: the
  // memory accesses of a group of queries are prefetched stage by stage, so their cache misses
  // overlap instead of following one another.
  void ResolveBatch(std::span<const Query> queries, BatchResolution& out) const;

  size_t region_count() const { return regions_.size(); }
  size_t inline_count() const { return inlines_.size(); }
  size_t method_count() const { return methods_.size(); }
  IndexMemory Memory() const;
  // Things the rules noticed in the input (a split function's second source file, inline
  // regions whose parent never arrived, ...), in input order; at most kMaxWarnings are kept.
  const std::vector<std::string>& warnings() const { return warnings_; }
  uint64_t warning_count() const { return warning_count_; }
  static constexpr size_t kMaxWarnings = 100;

 private:
  friend class IndexBuilder;

  struct Region {
    uint64_t start;
    uint64_t loaded;
    uint64_t invalidated;  // kForever if never
    uint32_t size;
    uint32_t method;   // kHasInlines set when inline regions belong to it
    uint32_t program;  // line table
    uint32_t origin;   // offset of `start` in the code the line table describes
  };
  static constexpr uint32_t kHasInlines = 0x80000000u;
  struct InlineRegion {
    uint64_t start;
    uint32_t size;
    uint32_t method;
    uint32_t parent_method;
    uint32_t program;
    uint32_t root;  // index of the top-level region
    uint32_t reserved;
  };
  // The name is kept as its place in the string arena, not as a StringId, so a lookup reads no
  // offset table for it (one cache miss less).
  struct Method {
    uint64_t id;
    uint32_t name_offset;
    uint32_t name_size;  // kHasId set when the method has an id
    StringId file;       // 0 ("") when none
    uint32_t module;     // index into modules_, kNoModule when none
  };
  static constexpr uint32_t kHasId = 0x80000000u;
  static constexpr uint32_t kNoModule = UINT32_MAX;
  // A segment: where it starts and which regions cover it, together in one cache line. `regions`
  // is a region index, or (kMulti | index into multi_), where multi_ holds a count followed by
  // that many region indices in load order.
  struct Segment {
    uint64_t start;
    uint32_t regions;
    uint32_t reserved;
  };
  static constexpr uint32_t kMulti = 0x80000000u;

  // The steps of a lookup: bucket → segment → region (valid at the time) → frames.
  const Segment* FindSegment(uint64_t address) const;
  const Region* PickRegion(const Segment* segment, uint64_t address, uint64_t time) const;
  void AppendFrames(const Region& region, uint64_t address, std::vector<Frame>& frames) const;
  bool Covers(const Region& r, uint64_t address, uint64_t time) const;
  Frame MakeFrame(uint32_t method, uint32_t program, uint64_t offset, bool inlined,
                  std::string_view fallback_module) const;
  std::string_view ModuleName(uint32_t module) const;

  HugeVector<Region> regions_;
  HugeVector<Segment> segments_;
  std::vector<uint32_t> multi_;
  HugeVector<uint32_t> buckets_;  // first candidate segment per bucket, plus a sentinel
  uint64_t base_ = 0;             // lowest segment start
  uint64_t end_ = 0;              // highest region end
  unsigned shift_ = 0;
  std::vector<InlineRegion> inlines_;  // sorted by (root, start)
  HugeVector<Method> methods_;
  std::vector<StringId> modules_;  // display name of each module
  HugeVector<uint8_t> programs_;
  StringTable strings_;
  std::vector<std::string> warnings_;
  uint64_t warning_count_ = 0;
};

}  // namespace jitscope::symbolize
