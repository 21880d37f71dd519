// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/symbolize/symbol_index.h"

#include <algorithm>

#include "jitscope/symbolize/line_program.h"

namespace jitscope::symbolize {

bool SymbolIndex::Covers(const Region& r, uint64_t address, uint64_t time) const {
  return address - r.start < r.size && r.loaded <= time && time < r.invalidated;
}

const SymbolIndex::Segment* SymbolIndex::FindSegment(uint64_t address) const {
  if (address < base_ || address >= end_) return nullptr;
  const uint64_t bucket = (address - base_) >> shift_;
  return std::upper_bound(segments_.data() + buckets_[bucket],
                          segments_.data() + buckets_[bucket + 1] + 1, address,
                          [](uint64_t a, const Segment& s) { return a < s.start; }) -
         1;
}

const SymbolIndex::Region* SymbolIndex::PickRegion(const Segment* segment, uint64_t address,
                                                   uint64_t time) const {
  if (segment == nullptr) return nullptr;
  if (!(segment->regions & kMulti)) {
    const Region& r = regions_[segment->regions];
    if (time == kLatest) return address - r.start < r.size ? &r : nullptr;
    return Covers(r, address, time) ? &r : nullptr;
  }
  // Several regions covered this segment over time; they are in load order.
  const uint32_t* list = multi_.data() + (segment->regions & ~kMulti);
  const Region* found = nullptr;
  for (uint32_t i = 1; i <= list[0]; ++i) {
    const Region& r = regions_[list[i]];
    if (time == kLatest ? address - r.start < r.size : Covers(r, address, time)) found = &r;
  }
  return found;
}

std::string_view SymbolIndex::ModuleName(uint32_t module) const {
  return module == kNoModule ? std::string_view() : strings_.Get(modules_[module]);
}

Frame SymbolIndex::MakeFrame(uint32_t method, uint32_t program, uint64_t offset, bool inlined,
                             std::string_view fallback_module) const {
  const Method& m = methods_[method];
  const LineAt at = LookupLine(programs_.data() + program, offset);
  Frame frame;
  frame.name = strings_.Slice(m.name_offset, m.name_size & ~kHasId);
  if (m.name_size & kHasId) frame.method_id = m.id;
  frame.module = m.module == kNoModule ? fallback_module : ModuleName(m.module);
  frame.file = strings_.Get(at.file == kInheritFile ? m.file : at.file);
  frame.line = at.line;
  frame.inlined = inlined;
  return frame;
}

bool SymbolIndex::Resolve(uint64_t address, uint64_t time, Resolution& out) const {
  out.frames.clear();
  out.region = {};
  const Region* r = PickRegion(FindSegment(address), address, time);
  if (r == nullptr) return false;
  out.region = {r->start, r->size, r->loaded};
  AppendFrames(*r, address, out.frames);
  return true;
}

void SymbolIndex::AppendFrames(const Region& region, uint64_t address,
                               std::vector<Frame>& frames) const {
  const Region* r = &region;
  const size_t first = frames.size();
  const uint32_t method = r->method & ~kHasInlines;
  const std::string_view module = ModuleName(methods_[method].module);
  if (r->method & kHasInlines) {
    // Walk down from the top-level method: at each level, the inline region of the current
    // parent that contains the address (siblings never overlap: seeds, "Exploring Inline
    // Functions"). The frames come out outermost first and are reversed below.
    const auto root = static_cast<uint32_t>(r - regions_.data());
    auto lo = std::lower_bound(inlines_.begin(), inlines_.end(), root,
                               [](const InlineRegion& in, uint32_t v) { return in.root < v; });
    auto hi = std::upper_bound(lo, inlines_.end(), root,
                               [](uint32_t v, const InlineRegion& in) { return v < in.root; });
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
      frames.push_back(MakeFrame(next->method, next->program, address - next->start, true, module));
      parent = next->method;
    }
    std::reverse(frames.begin() + first, frames.end());
  }
  frames.push_back(MakeFrame(method, r->program, address - r->start + r->origin, false, module));
}

void SymbolIndex::ResolveBatch(std::span<const Query> queries, BatchResolution& out) const {
  out.frames.clear();
  out.frame_begin.assign(1, 0);
  out.regions.clear();
  // Stage by stage over a group of queries: each stage prefetches what the next one reads.
  constexpr size_t kGroup = 16;
  const Segment* segments[kGroup];
  const Region* regions[kGroup];
  for (size_t base = 0; base < queries.size(); base += kGroup) {
    const size_t n = std::min(kGroup, queries.size() - base);
    const Query* q = queries.data() + base;
    for (size_t i = 0; i < n; ++i) {
      if (q[i].address >= base_ && q[i].address < end_) {
        __builtin_prefetch(&buckets_[(q[i].address - base_) >> shift_]);
      }
    }
    for (size_t i = 0; i < n; ++i) {
      if (q[i].address >= base_ && q[i].address < end_) {
        __builtin_prefetch(&segments_[buckets_[(q[i].address - base_) >> shift_]]);
      }
    }
    for (size_t i = 0; i < n; ++i) {
      segments[i] = FindSegment(q[i].address);
      if (segments[i] != nullptr && !(segments[i]->regions & kMulti)) {
        __builtin_prefetch(&regions_[segments[i]->regions]);
      }
    }
    for (size_t i = 0; i < n; ++i) {
      regions[i] = PickRegion(segments[i], q[i].address, q[i].time);
      if (regions[i] != nullptr) {
        __builtin_prefetch(&methods_[regions[i]->method & ~kHasInlines]);
        __builtin_prefetch(programs_.data() + regions[i]->program);
      }
    }
    for (size_t i = 0; i < n; ++i) {
      const Region* r = regions[i];
      out.regions.push_back(r ? MatchedRegion{r->start, r->size, r->loaded} : MatchedRegion{});
      if (r != nullptr) AppendFrames(*r, q[i].address, out.frames);
      out.frame_begin.push_back(static_cast<uint32_t>(out.frames.size()));
    }
  }
}

IndexMemory SymbolIndex::Memory() const {
  IndexMemory m;
  m.regions = regions_.capacity() * sizeof(Region);
  m.segments = segments_.capacity() * sizeof(Segment) + multi_.capacity() * sizeof(uint32_t);
  m.buckets = buckets_.capacity() * sizeof(uint32_t);
  m.inlines = inlines_.capacity() * sizeof(InlineRegion);
  m.methods = methods_.capacity() * sizeof(Method) + modules_.capacity() * sizeof(StringId);
  m.line_programs = programs_.capacity();
  m.strings = strings_.MemoryBytes();
  return m;
}

}  // namespace jitscope::symbolize
