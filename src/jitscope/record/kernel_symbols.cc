// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/record/kernel_symbols.h"

#include <algorithm>
#include <charconv>

#include "jitscope/record/proc_files.h"

namespace jitscope::record {

std::optional<KernelSymbols> KernelSymbols::Parse(std::string_view text) {
  KernelSymbols symbols;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    // "ffffffff81000000 T _stext", a module's with "\t[MODULE]" after.
    const size_t type_at = line.find(' ');
    if (type_at == std::string_view::npos || type_at + 3 > line.size()) continue;
    uint64_t address = 0;
    const auto [stop, error] = std::from_chars(line.data(), line.data() + type_at, address, 16);
    if (error != std::errc() || stop != line.data() + type_at || address == 0) continue;
    const char type = line[type_at + 1];
    if (type != 't' && type != 'T' && type != 'w' && type != 'W') continue;
    std::string_view name = line.substr(type_at + 3);
    name = name.substr(0, name.find_first_of(" \t"));
    if (!name.empty()) symbols.symbols_.push_back({address, std::string(name)});
  }
  if (symbols.symbols_.empty()) return std::nullopt;
  std::stable_sort(symbols.symbols_.begin(), symbols.symbols_.end(),
                   [](const Symbol& a, const Symbol& b) { return a.address < b.address; });
  return symbols;
}

std::optional<KernelSymbols> KernelSymbols::Read() {
  // 256 MiB bounds a hostile or odd file; the real one is a few MiB.
  base::StatusOr<std::string> text = ReadProcFile("/proc/kallsyms", size_t{256} << 20);
  if (!text.ok()) return std::nullopt;
  return Parse(*text);
}

std::string_view KernelSymbols::Find(uint64_t address) const {
  auto it = std::upper_bound(symbols_.begin(), symbols_.end(), address,
                             [](uint64_t a, const Symbol& s) { return a < s.address; });
  if (it == symbols_.begin()) return "";
  return std::prev(it)->name;
}

}  // namespace jitscope::record
