// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/symbolize/symbol_index.h"

#include <algorithm>

#include "jitscope/symbolize/line_program.h"

namespace jitscope::symbolize {

bool SymbolIndex::Covers(const Region& r, uint64_t address, uint64_t time) const {
  return address - r.start < r.size && r.loaded <= time && time < r.invalidated;
}

const SymbolIndex::Region* SymbolIndex::FindRegion(uint64_t address, uint64_t time) const {
  if (address < base_ || address >= end_) return nullptr;
  const uint64_t bucket = (address - base_) >> shift_;
  const uint64_t* starts = segment_starts_.data();
  const uint64_t* segment =
      std::upper_bound(starts + buckets_[bucket], starts + buckets_[bucket + 1] + 1, address) - 1;
  const uint32_t word = segment_regions_[segment - starts];
  if (!(word & kMulti)) {
    const Region& r = regions_[word];
    if (time == kLatest) return address - r.start < r.size ? &r : nullptr;
    return Covers(r, address, time) ? &r : nullptr;
  }
  // Several regions covered this segment over time; they are in load order.
  const uint32_t* list = multi_.data() + (word & ~kMulti);
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
  frame.name = strings_.Get(m.name);
  if (m.flags & kHasId) frame.method_id = m.id;
  frame.module = m.module == kNoModule ? fallback_module : ModuleName(m.module);
  frame.file = strings_.Get(at.file == kInheritFile ? m.file : at.file);
  frame.line = at.line;
  frame.inlined = inlined;
  return frame;
}

bool SymbolIndex::Resolve(uint64_t address, uint64_t time, Resolution& out) const {
  out.frames.clear();
  out.region = {};
  const Region* r = FindRegion(address, time);
  if (r == nullptr) return false;
  const uint32_t method = r->method & ~kHasInlines;
  out.region = {r->start, r->size, r->loaded};
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
      out.frames.push_back(
          MakeFrame(next->method, next->program, address - next->start, true, module));
      parent = next->method;
    }
    std::reverse(out.frames.begin(), out.frames.end());
  }
  out.frames.push_back(
      MakeFrame(method, r->program, address - r->start + r->origin, false, module));
  return true;
}

IndexMemory SymbolIndex::Memory() const {
  IndexMemory m;
  m.regions = regions_.capacity() * sizeof(Region);
  m.segments = segment_starts_.capacity() * sizeof(uint64_t) +
               segment_regions_.capacity() * sizeof(uint32_t) +
               multi_.capacity() * sizeof(uint32_t);
  m.buckets = buckets_.capacity() * sizeof(uint32_t);
  m.inlines = inlines_.capacity() * sizeof(InlineRegion);
  m.methods = methods_.capacity() * sizeof(Method) + modules_.capacity() * sizeof(StringId);
  m.line_programs = programs_.capacity();
  m.strings = strings_.MemoryBytes();
  return m;
}

}  // namespace jitscope::symbolize
