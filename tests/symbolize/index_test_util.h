// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Helpers for the symbolizer's table-driven tests: report events the way the collector records
// them, read the rules' output (History) as a lookup would, and describe a resolution as one
// compact string ("c:3 (i) < b (i) < a:2").
#pragma once

#include <algorithm>
#include <cstdio>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/symbolize/index_builder.h"

namespace jitscope::symbolize::testing {

struct Load {
  uint64_t time = 0;
  uint64_t id = 0;
  const char* name = nullptr;
  uint64_t address = 0;
  uint64_t size = 0;
  const char* file = nullptr;
  std::vector<trace::LineEntry> lines = {};
  const char* module = nullptr;
  CodeArch arch = CodeArch::kNative;
};

inline CodeReport Report(const Load& l) {
  CodeReport r;
  r.time = l.time;
  r.method_id = l.id;
  r.address = l.address;
  r.size = l.size;
  if (l.name) r.name = l.name;
  if (l.file) r.source_file = l.file;
  if (l.module) r.module = l.module;
  r.arch = l.arch;
  r.end_offset_lines = l.lines;
  return r;
}

// The replay's output, before any layout: answers lookups straight from its list of regions,
// by the lookup's rules (SymbolIndex::Resolve), so the rules' tests need no index.
class History {
 public:
  explicit History(IndexBuilder&& builder) : replayed_(std::move(builder).Replay()) {}

  bool Resolve(uint64_t address, uint64_t time, Resolution& out) const {
    out.frames.clear();
    out.region = {};
    const RegionHistory& h = replayed_.history;
    // The latest region loaded that holds the address and is valid at `time` (kLatest: was ever
    // valid); regions are in load order.
    const Region* found = nullptr;
    for (const Region& r : h.regions) {
      if (r.loaded >= r.invalidated || address < r.start || address - r.start >= r.size) continue;
      if (time == kLatest || (r.loaded <= time && time < r.invalidated)) found = &r;
    }
    if (found == nullptr) return false;
    out.region = {found->start, found->size, found->loaded};
    const auto root = static_cast<uint32_t>(found - h.regions.data());
    const std::string_view module = ModuleName(Symbols(found->method).module);
    // The chain of inline regions holding the address, walked down from the top-level method.
    std::vector<const InlineRegion*> inlines;
    for (const InlineRegion& in : h.inlines) {
      if (in.root == root) inlines.push_back(&in);
    }
    std::stable_sort(
        inlines.begin(), inlines.end(),
        [](const InlineRegion* a, const InlineRegion* b) { return a->start < b->start; });
    uint32_t parent = found->method;
    const InlineRegion* current = nullptr;
    for (size_t depth = 0; depth < inlines.size(); ++depth) {
      const InlineRegion* next = nullptr;
      for (const InlineRegion* in : inlines) {
        if (in->start > address) break;
        if (in->parent_method == parent && address - in->start < in->size && in != current &&
            (current == nullptr || (in->start >= current->start && in->end() <= current->end()))) {
          next = in;
          break;
        }
      }
      if (next == nullptr) break;
      current = next;
      out.frames.push_back(
          FrameOf(next->method, next->line_table, address - next->start, true, module));
      parent = next->method;
    }
    std::reverse(out.frames.begin(), out.frames.end());
    out.frames.push_back(FrameOf(found->method, found->line_table,
                                 address - found->start + found->line_origin, false, module));
    return true;
  }

  const std::vector<std::string>& warnings() const { return replayed_.reported.warnings.kept; }
  size_t method_count() const { return replayed_.reported.method_ids.size(); }
  const RegionHistory& history() const { return replayed_.history; }

  // Every region: "name start+size [loaded,invalidated)" ("…,)" never ended), then its inline
  // regions as "name start+size in #root"; one per line, in load order.
  std::string Regions() const {
    const RegionHistory& h = replayed_.history;
    std::string out;
    char buffer[160];
    for (const Region& r : h.regions) {
      const std::string until = r.invalidated == kForever ? "" : std::to_string(r.invalidated);
      std::snprintf(buffer, sizeof(buffer), "%s %#llx+%#x [%llu,%s)\n",
                    std::string(Name(r.method)).c_str(), static_cast<unsigned long long>(r.start),
                    r.size, static_cast<unsigned long long>(r.loaded), until.c_str());
      out += buffer;
    }
    for (const InlineRegion& in : h.inlines) {
      const std::string root = in.root == kNone ? "none" : "#" + std::to_string(in.root);
      std::snprintf(buffer, sizeof(buffer), "%s %#llx+%#x in %s\n",
                    std::string(Name(in.method)).c_str(), static_cast<unsigned long long>(in.start),
                    in.size, root.c_str());
      out += buffer;
    }
    return out;
  }

 private:
  MethodSymbols Symbols(uint32_t method) const {
    return replayed_.reported.MethodSymbolsOf(replayed_.history.first_region[method]);
  }
  std::string_view Name(uint32_t method) const {
    const MethodSymbols m = Symbols(method);
    return replayed_.reported.strings.Slice(m.name_offset, m.name_size);
  }
  std::string_view ModuleName(uint32_t module) const {
    if (module == kNone) return {};
    return replayed_.reported.strings.Get(replayed_.history.module_names[module]);
  }
  Frame FrameOf(uint32_t method, uint32_t line_table, uint64_t offset, bool inlined,
                std::string_view fallback_module) const {
    const ReportedCode& reported = replayed_.reported;
    const MethodSymbols m = Symbols(method);
    const LineAt at = LookupLine(reported.line_tables.data() + line_table, offset);
    Frame frame;
    frame.name = Name(method);
    if (reported.method_has_id[method]) frame.method_id = reported.method_ids[method];
    frame.module = m.module == kNone ? fallback_module : ModuleName(m.module);
    frame.file = reported.strings.Get(at.file == kInheritFile ? m.file : at.file);
    frame.line = at.line;
    frame.inlined = inlined;
    return frame;
  }

  IndexBuilder::Replayed replayed_;
};

// "name[:line][ (i)]" per frame, innermost first, joined by " < "; "-" when unresolved.
// With `full`, each frame also shows "@file", "#id" and "{module}". `Index`: a SymbolIndex or a
// History.
template <class Index>
std::string Describe(const Index& index, uint64_t address, uint64_t time, bool full = false) {
  Resolution r;
  if (!index.Resolve(address, time, r)) return "-";
  std::string out;
  for (const Frame& f : r.frames) {
    if (!out.empty()) out += " < ";
    out += std::string(f.name);
    if (f.line != 0) out += ":" + std::to_string(f.line);
    if (f.inlined) out += " (i)";
    if (full) {
      if (!f.file.empty()) out += " @" + std::string(f.file);
      if (f.method_id) out += " #" + std::to_string(*f.method_id);
      if (!f.module.empty()) out += " {" + std::string(f.module) + "}";
    }
  }
  return out;
}

struct Check {
  uint64_t address;
  uint64_t time;
  std::string expected;
};

template <class Index>
void ExpectAll(const Index& index, const std::vector<Check>& queries, bool full = false) {
  for (const Check& q : queries) {
    EXPECT_EQ(Describe(index, q.address, q.time, full), q.expected)
        << "address " << std::hex << q.address << " at time " << std::dec << q.time;
  }
}

}  // namespace jitscope::symbolize::testing
