// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Helpers for the symbolizer's table-driven tests: report events the way the collector records
// them, and describe a resolution as one compact string ("c:3 (i) < b (i) < a:2").
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

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

// "name[:line][ (i)]" per frame, innermost first, joined by " < "; "-" when unresolved.
// With `full`, each frame also shows "@file", "#id" and "{module}".
inline std::string Describe(const SymbolIndex& index, uint64_t address, uint64_t time,
                            bool full = false) {
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

}  // namespace jitscope::symbolize::testing
