// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The time-versioned symbol index of one process: (address, time) → frames. Built once by
// IndexBuilder (index_builder.h), then read-only and safe to query from any number of threads.
// A lookup reads a bucket, then the piece of the address space it names with that piece's method
// record and line table, side by side: two reads' latency. The layout and why it is so:
// docs/symbol-index.md; its size and speed: docs/performance.md.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "jitscope/base/huge_page_allocator.h"
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
  // Time it stopped being valid (overwritten, updated, moved, unloaded), kForever if never. Set by
  // Resolve; ResolveBatch leaves it kForever.
  uint64_t invalidated = kForever;
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
  size_t pieces = 0, buckets = 0, inlines = 0, methods = 0, line_programs = 0, strings = 0;
  size_t total() const { return pieces + buckets + inlines + methods + line_programs + strings; }
};

class SymbolIndex {
 public:
  SymbolIndex() = default;
  SymbolIndex(SymbolIndex&&) = default;
  SymbolIndex& operator=(SymbolIndex&&) = default;

  // One piece of the address space (public for IndexBuilder, which makes the pieces of loads that
  // need no replay itself: index_builder.h). For a piece covered by one region that is never ended,
  // that region: it starts `back` bytes before the piece and spans `size` bytes, valid from
  // `loaded` on. Every other piece is kMulti: only `start` and `program` (the place of its list in
  // multi_) mean anything, and the regions that covered it are in overlaps_, where `start` is the
  // region's own start, `back` is 0, and overlap_ends_ holds when each was ended. Keeping the
  // end out of the piece makes it 32 bytes, so it never straddles two cache lines; only
  // overwritten, updated, moved or unloaded code pays the extra read.
  struct Piece {
    uint64_t start;
    uint64_t loaded;  // time the code became valid
    uint32_t back;
    uint32_t size;
    uint32_t method;   // | kHasInlines when inline regions belong to the region, | kMulti
    uint32_t program;  // the method record and line table, or for kMulti the list: a count, then
                       // overlaps_ indices
    uint64_t region_start() const { return start - back; }
  };
  static_assert(sizeof(Piece) == 32);

  // Fills `out` (reusing its storage) and returns true if `address` was JIT code at `time`
  // (kLatest: the latest code loaded there). Frames point into the index.
  bool Resolve(uint64_t address, uint64_t time, Resolution& out) const;

  // Resolves many queries (a profile's samples) with the same results as Resolve, faster: the
  // memory accesses of a group of queries are prefetched stage by stage, so their cache misses
  // overlap instead of following one another.
  void ResolveBatch(std::span<const Query> queries, BatchResolution& out) const;

  size_t region_count() const { return region_count_; }
  size_t inline_count() const { return inlines_.size(); }
  size_t method_count() const { return method_count_; }
  // Bytes held, by part; for the large arrays on huge pages (line tables, strings), the bytes in
  // use rather than the room reserved, which the kernel backs with memory only once touched.
  IndexMemory Memory() const;
  // Things the rules noticed in the input (a split function's second source file, inline
  // regions whose parent never arrived, ...), in input order; at most kMaxWarnings are kept.
  const std::vector<std::string>& warnings() const { return warnings_; }
  uint64_t warning_count() const { return warning_count_; }
  static constexpr size_t kMaxWarnings = 100;

 private:
  friend class IndexLayout;  // index_layout.cc

  static constexpr uint32_t kHasInlines = 0x80000000u;
  static constexpr uint32_t kMulti = 0x40000000u;
  static constexpr uint32_t kMethodMask = ~(kHasInlines | kMulti);
  struct InlineRegion {
    uint64_t start;
    uint64_t root_start;  // the top-level region it belongs to: its start and load time
    uint64_t root_loaded;
    uint32_t size;
    uint32_t method;
    uint32_t parent_method;
    uint32_t program;
  };
  // A method's record, stored in programs_ before each of its regions' line tables (read with
  // memcpy: the bytes have no alignment). The name is kept as its place in the string arena, not
  // as a StringId, so a lookup reads no offset table for it (one cache miss less). Method ids
  // take 32 bits (Intel's are unsigned int); a wider one (a jitdump code_index past 2^32) is kept
  // in wide_ids_, by method index.
  struct Method {
    uint32_t id;
    uint32_t name_offset;
    uint32_t name_size;  // | kHasId when the method has an id, | kWideId when it is in wide_ids_
    StringId file;       // 0 ("") when none
    uint32_t module;     // index into modules_, kNoModule when none
  };
  static constexpr uint32_t kHasId = 0x80000000u;
  static constexpr uint32_t kWideId = 0x40000000u;
  static constexpr uint32_t kNameSizeMask = ~(kHasId | kWideId);
  static constexpr uint32_t kNoModule = UINT32_MAX;

  // The steps of a lookup: bucket → piece → region (valid at the time) → frames.
  static constexpr uint64_t kNoBucket = UINT64_MAX;  // the address is outside every piece
  uint64_t BucketOf(uint64_t address) const;
  const Piece* FindPiece(uint64_t bucket, uint64_t address) const;
  void PrefetchCandidate(uint64_t bucket) const;
  const Piece* PickRegion(const Piece* piece, uint64_t address, uint64_t time) const;
  void AppendFrames(const Piece& region, uint64_t address, std::vector<Frame>& frames) const;
  void AppendFrame(uint32_t method, uint32_t program, uint64_t offset, bool inlined,
                   std::string_view fallback_module, std::vector<Frame>& frames) const;
  Method MethodAt(uint32_t program) const;
  std::string_view ModuleName(uint32_t module) const;
  uint64_t WideId(uint32_t method) const;

  base::HugeVector<Piece> pieces_;
  std::vector<uint32_t> multi_;
  std::vector<Piece> overlaps_;
  std::vector<uint64_t> overlap_ends_;  // per overlaps_ entry: when it was ended, or kForever
  // An area of code with no gap of 16 MiB or more (index_layout.cc, kAreaGap), and its buckets:
  // buckets_[first_bucket + ((address - base) >> shift)], then one that closes the area.
  struct Area {
    uint64_t base;  // its first piece's start
    uint64_t end;   // its last piece's end
    uint64_t first_bucket;
    unsigned shift;
  };
  // How many pieces start before the bucket, and the record and line table of the last of them
  // (kNoProgram if it is kMulti): a lookup fetches them side by side with that piece, which it
  // usually is, instead of after it.
  struct Bucket {
    uint32_t pieces_before;
    uint32_t program;
  };
  static constexpr uint32_t kNoProgram = UINT32_MAX;
  std::vector<Area> areas_;  // sorted by base
  base::HugeVector<Bucket> buckets_;
  size_t region_count_ = 0;
  std::vector<InlineRegion> inlines_;  // sorted by (root_start, root_loaded, start)
  size_t method_count_ = 0;
  size_t program_count_ = 0;                             // line tables, each with its method record
  std::vector<std::pair<uint32_t, uint64_t>> wide_ids_;  // (method, id), sorted by method
  std::vector<StringId> modules_;                        // display name of each module
  base::HugeVector<uint8_t> programs_;                   // per region: Method, then its line table
  StringTable strings_;
  std::vector<std::string> warnings_;
  uint64_t warning_count_ = 0;
};

}  // namespace jitscope::symbolize
