// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/symbolize/symbol_index.h"

#include <algorithm>
#include <cstring>
#include <functional>

#include "jitscope/symbolize/line_program.h"

namespace jitscope::symbolize {

uint64_t SymbolIndex::BucketOf(uint64_t address) const {
  if (areas_.empty()) return kNoBucket;
  const Area* area = areas_.data();
  if (areas_.size() > 1) {
    const Area* after = std::upper_bound(areas_.data(), areas_.data() + areas_.size(), address,
                                         [](uint64_t a, const Area& x) { return a < x.base; });
    if (after == areas_.data()) return kNoBucket;  // before all code
    area = after - 1;
  }
  if (address < area->base || address >= area->end) return kNoBucket;
  return area->first_bucket + ((address - area->base) >> area->shift);
}

const SymbolIndex::Piece* SymbolIndex::FindPiece(uint64_t bucket, uint64_t address) const {
  if (bucket == kNoBucket) return nullptr;
  // The candidates: the last piece that starts before the bucket, and those starting in it.
  // Usually the last of them is the one (a piece per bucket, about).
  // There is one: the address is at or after its area's first piece.
  const Piece* last = pieces_.data() + buckets_[bucket + 1].pieces_before - 1;
  if (address >= last->start) return last;
  const uint32_t first = buckets_[bucket].pieces_before;
  return std::upper_bound(pieces_.data() + (first == 0 ? 0 : first - 1), last, address,
                          [](uint64_t a, const Piece& p) { return a < p.start; }) -
         1;
}

const SymbolIndex::Piece* SymbolIndex::PickRegion(const Piece* piece, uint64_t address,
                                                  uint64_t time) const {
  if (piece == nullptr) return nullptr;
  if (!(piece->method & kMulti)) {
    // Never ended: valid from its load on.
    return address - piece->region_start() < piece->size && piece->loaded <= time ? piece : nullptr;
  }
  // Several regions covered this piece over time, or one that was ended; they are in load order.
  const uint32_t* list = multi_.data() + piece->program;
  const Piece* found = nullptr;
  for (uint32_t i = 1; i <= list[0]; ++i) {
    const Piece& r = overlaps_[list[i]];
    if (address - r.start >= r.size) continue;
    if (time == kLatest || (r.loaded <= time && time < overlap_ends_[list[i]])) found = &r;
  }
  return found;
}

std::string_view SymbolIndex::ModuleName(uint32_t module) const {
  return module == kNoModule ? std::string_view() : strings_.Get(modules_[module]);
}

SymbolIndex::Method SymbolIndex::MethodAt(uint32_t program) const {
  Method m;
  std::memcpy(&m, programs_.data() + program, sizeof(m));
  return m;
}

uint64_t SymbolIndex::WideId(uint32_t method) const {
  return std::lower_bound(wide_ids_.begin(), wide_ids_.end(),
                          std::pair<uint32_t, uint64_t>{method, 0})
      ->second;
}

void SymbolIndex::AppendFrame(uint32_t method, uint32_t program, uint64_t offset, bool inlined,
                              std::string_view fallback_module, std::vector<Frame>& frames) const {
  const Method m = MethodAt(program);
  const LineAt at = LookupLine(programs_.data() + program + sizeof(Method), offset);
  Frame& frame = frames.emplace_back();
  frame.name = strings_.Slice(m.name_offset, m.name_size & kNameSizeMask);
  if (m.name_size & kHasId) frame.method_id = m.name_size & kWideId ? WideId(method) : m.id;
  frame.module = m.module == kNoModule ? fallback_module : ModuleName(m.module);
  frame.file = strings_.Get(at.file == kInheritFile ? m.file : at.file);
  frame.line = at.line;
  frame.inlined = inlined;
}

void SymbolIndex::PrefetchCandidate(uint64_t bucket) const {
  // The likeliest answer: the last piece that starts before the next bucket (one cache line: a
  // large index's pieces are 32 bytes on 2 MiB-aligned memory), with its method record and line
  // table (20 bytes, then ~40 for 16 rows).
  const Bucket& next = buckets_[bucket + 1];
  __builtin_prefetch(pieces_.data() + next.pieces_before - 1);
  if (next.program == kNoProgram) return;
  __builtin_prefetch(programs_.data() + next.program);
  __builtin_prefetch(programs_.data() + next.program + sizeof(Method) + 39);
}

bool SymbolIndex::Resolve(uint64_t address, uint64_t time, Resolution& out) const {
  out.frames.clear();
  out.region = {};
  const uint64_t bucket = BucketOf(address);
  if (bucket != kNoBucket) PrefetchCandidate(bucket);
  const Piece* r = PickRegion(FindPiece(bucket, address), address, time);
  if (r == nullptr) return false;
  // A region that was ever ended is one of overlaps_, with its end beside it (PickRegion).
  const std::less<const Piece*> before;
  const bool ended = !before(r, overlaps_.data()) && before(r, overlaps_.data() + overlaps_.size());
  out.region = {r->region_start(), r->size, r->loaded,
                ended ? overlap_ends_[static_cast<size_t>(r - overlaps_.data())] : kForever};
  AppendFrames(*r, address, out.frames);
  return true;
}

void SymbolIndex::AppendFrames(const Piece& r, uint64_t address, std::vector<Frame>& frames) const {
  const size_t first = frames.size();
  const uint32_t method = r.method & kMethodMask;
  const uint64_t start = r.region_start();
  const std::string_view module = ModuleName(MethodAt(r.program).module);
  if (r.method & kHasInlines) {
    // Walk down from the top-level method: at each level, the inline region of the current
    // parent that contains the address (siblings never overlap: seeds, "Exploring Inline
    // Functions"). The frames come out outermost first and are reversed below.
    auto root_less = [](const InlineRegion& in, std::pair<uint64_t, uint64_t> root) {
      return std::pair(in.root_start, in.root_loaded) < root;
    };
    auto less_root = [](std::pair<uint64_t, uint64_t> root, const InlineRegion& in) {
      return root < std::pair(in.root_start, in.root_loaded);
    };
    const std::pair root(start, r.loaded);
    auto lo = std::lower_bound(inlines_.begin(), inlines_.end(), root, root_less);
    auto hi = std::upper_bound(lo, inlines_.end(), root, less_root);
    uint32_t parent = method;
    const InlineRegion* current = nullptr;
    for (size_t depth = 0; depth < static_cast<size_t>(hi - lo); ++depth) {
      const InlineRegion* next = nullptr;
      for (auto it = lo; it != hi && it->start <= address; ++it) {
        // Each level lies inside the previous one; a method inlined into itself is fine.
        if (it->parent_method == parent && address - it->start < it->size && &*it != current &&
            (current == nullptr || (it->start >= current->start &&
                                    it->start + it->size <= current->start + current->size))) {
          next = &*it;
          break;
        }
      }
      if (next == nullptr) break;
      current = next;
      AppendFrame(next->method, next->program, address - next->start, true, module, frames);
      parent = next->method;
    }
    std::reverse(frames.begin() + first, frames.end());
  }
  AppendFrame(method, r.program, address - start, false, module, frames);
}

void SymbolIndex::ResolveBatch(std::span<const Query> queries, BatchResolution& out) const {
  const size_t n = queries.size();
  out.frames.clear();
  out.frame_begin.resize(n + 1);
  out.frame_begin[0] = 0;
  out.regions.resize(n);
  // A software pipeline of three stages, kLag queries apart: while query i's bucket is being
  // fetched, query i - kLag's likeliest piece and its method record and line table are, and
  // query i - 2 * kLag, whose memory has arrived, gives its frames. So two dozen cache misses are
  // in flight at once instead of one lookup's misses following each other.
  constexpr size_t kLag = 8;
  constexpr size_t kRing = 4 * kLag;  // a power of two, more than 2 * kLag
  uint64_t buckets[kRing];
  for (size_t step = 0; step < n + 2 * kLag; ++step) {
    if (step < n) {
      const uint64_t bucket = BucketOf(queries[step].address);
      buckets[step % kRing] = bucket;
      if (bucket != kNoBucket) __builtin_prefetch(&buckets_[bucket + 1]);
    }
    if (step >= kLag && step - kLag < n) {
      const uint64_t bucket = buckets[(step - kLag) % kRing];
      if (bucket != kNoBucket) PrefetchCandidate(bucket);
    }
    if (step >= 2 * kLag) {
      const size_t i = step - 2 * kLag;
      const Query& q = queries[i];
      const Piece* r = PickRegion(FindPiece(buckets[i % kRing], q.address), q.address, q.time);
      out.regions[i] = r ? MatchedRegion{r->region_start(), r->size, r->loaded} : MatchedRegion{};
      if (r != nullptr) AppendFrames(*r, q.address, out.frames);
      out.frame_begin[i + 1] = static_cast<uint32_t>(out.frames.size());
    }
  }
}

IndexMemory SymbolIndex::Memory() const {
  IndexMemory m;
  m.pieces = pieces_.capacity() * sizeof(Piece) + multi_.capacity() * sizeof(uint32_t) +
             overlaps_.capacity() * sizeof(Piece) + overlap_ends_.capacity() * sizeof(uint64_t);
  m.buckets = buckets_.capacity() * sizeof(Bucket) + areas_.capacity() * sizeof(Area);
  m.inlines = inlines_.capacity() * sizeof(InlineRegion);
  m.methods = program_count_ * sizeof(Method) + modules_.capacity() * sizeof(StringId) +
              wide_ids_.capacity() * sizeof(wide_ids_[0]);
  // In use, not reserved: room reserved on huge pages and never touched is address space only.
  m.line_programs = programs_.size() - program_count_ * sizeof(Method);
  m.strings = strings_.MemoryBytes();
  return m;
}

}  // namespace jitscope::symbolize
