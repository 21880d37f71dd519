// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/unwind/elf_functions.h"

#include <gelf.h>

#include <algorithm>
#include <array>
#include <cstring>

namespace jitscope::unwind {
namespace {

bool ByBeginThenLongest(const formats::CodeRange& a, const formats::CodeRange& b) {
  return a.begin != b.begin ? a.begin < b.begin : a.end > b.end;
}

// The function symbols of the section of type `type` (SHT_SYMTAB or SHT_DYNSYM).
std::vector<formats::CodeRange> FunctionSymbols(Elf* elf, Elf64_Word type) {
  std::vector<formats::CodeRange> functions;
  for (Elf_Scn* section = elf_nextscn(elf, nullptr); section != nullptr;
       section = elf_nextscn(elf, section)) {
    GElf_Shdr header;
    if (gelf_getshdr(section, &header) == nullptr || header.sh_type != type ||
        header.sh_entsize == 0) {
      continue;
    }
    Elf_Data* data = elf_getdata(section, nullptr);
    if (data == nullptr) continue;
    const size_t count = header.sh_size / header.sh_entsize;
    for (size_t i = 0; i < count; ++i) {
      GElf_Sym symbol;
      if (gelf_getsym(data, static_cast<int>(i), &symbol) == nullptr) break;
      if (GELF_ST_TYPE(symbol.st_info) != STT_FUNC || symbol.st_size == 0 ||
          symbol.st_shndx == SHN_UNDEF || symbol.st_value + symbol.st_size < symbol.st_value) {
        continue;
      }
      functions.push_back({symbol.st_value, symbol.st_value + symbol.st_size});
    }
  }
  return functions;
}

}  // namespace

ElfFunctions ElfFunctions::Read(Elf* elf) {
  std::vector<formats::CodeRange> symbols = FunctionSymbols(elf, SHT_SYMTAB);
  if (symbols.empty()) symbols = FunctionSymbols(elf, SHT_DYNSYM);
  std::vector<formats::CodeRange> fdes, executable;
  size_t names = 0;
  if (elf_getshdrstrndx(elf, &names) != 0) names = 0;
  for (Elf_Scn* section = elf_nextscn(elf, nullptr); section != nullptr;
       section = elf_nextscn(elf, section)) {
    GElf_Shdr header;
    if (gelf_getshdr(section, &header) == nullptr) continue;
    // Code sections without bytes count too: a compact copy (session/compact_elf.h) keeps its
    // code's bytes apart, and the sections say where the code is.
    if ((header.sh_flags & SHF_ALLOC) != 0 && (header.sh_flags & SHF_EXECINSTR) != 0 &&
        header.sh_addr + header.sh_size > header.sh_addr) {
      executable.push_back({header.sh_addr, header.sh_addr + header.sh_size});
    }
    if (header.sh_type == SHT_NOBITS) continue;
    const char* name = names != 0 ? elf_strptr(elf, names, header.sh_name) : nullptr;
    if (name == nullptr || std::strcmp(name, ".eh_frame") != 0) continue;
    Elf_Data* data = elf_getdata(section, nullptr);
    if (data == nullptr || data->d_buf == nullptr) continue;
    fdes = formats::EhFrameRanges(
        std::span<const uint8_t>(static_cast<const uint8_t*>(data->d_buf), data->d_size),
        header.sh_addr);
  }
  return FromRanges(std::move(symbols), std::move(fdes), std::move(executable));
}

ElfFunctions ElfFunctions::FromRanges(std::vector<formats::CodeRange> symbols,
                                      std::vector<formats::CodeRange> fdes,
                                      std::vector<formats::CodeRange> executable) {
  ElfFunctions functions;
  std::sort(symbols.begin(), symbols.end(), ByBeginThenLongest);
  for (const formats::CodeRange& symbol : symbols) {
    functions.longest_symbol_ = std::max(functions.longest_symbol_, symbol.end - symbol.begin);
  }
  functions.described_ = symbols;
  functions.described_.insert(functions.described_.end(), fdes.begin(), fdes.end());
  std::sort(functions.described_.begin(), functions.described_.end(), ByBeginThenLongest);
  functions.symbols_ = std::move(symbols);
  // The furthest end of the described code up to each range, for the start of a gap.
  functions.reach_.reserve(functions.described_.size());
  functions.reached_by_.reserve(functions.described_.size());
  uint64_t reach = 0, reached_by = 0;
  for (const formats::CodeRange& range : functions.described_) {
    if (range.end > reach) {
      reach = range.end;
      reached_by = range.begin;
    }
    functions.reach_.push_back(reach);
    functions.reached_by_.push_back(reached_by);
  }
  std::sort(executable.begin(), executable.end(), ByBeginThenLongest);
  functions.executable_ = std::move(executable);
  return functions;
}

std::optional<formats::CodeRange> ElfFunctions::At(
    uint64_t address,
    const std::function<std::span<const uint8_t>(uint64_t, std::span<uint8_t>)>& code,
    std::vector<uint64_t>* bounds) const {
  auto section =
      std::upper_bound(executable_.begin(), executable_.end(), address,
                       [](uint64_t a, const formats::CodeRange& range) { return a < range.begin; });
  if (section == executable_.begin() || address >= std::prev(section)->end) return std::nullopt;
  const formats::CodeRange text = *std::prev(section);
  auto fits = [](const formats::CodeRange& range) -> std::optional<formats::CodeRange> {
    if (range.end <= range.begin || range.end - range.begin > kMaxFunctionSize) return std::nullopt;
    return range;
  };
  // The innermost symbol that holds the address: of those that do, the one starting last.
  auto after =
      std::upper_bound(symbols_.begin(), symbols_.end(), address,
                       [](uint64_t a, const formats::CodeRange& range) { return a < range.begin; });
  for (auto it = after; it != symbols_.begin();) {
    --it;
    if (address - it->begin >= longest_symbol_) break;
    // Scanned back from the last start at or before the address, and of equal starts from the
    // shortest: the first that holds it is the innermost.
    if (address < it->end) {
      if (bounds != nullptr) bounds->push_back(it->begin);
      return fits(*it);
    }
  }
  // A gap: from the furthest end of the code described before the address to the next
  // described start.
  const auto next =
      std::upper_bound(described_.begin(), described_.end(), address,
                       [](uint64_t a, const formats::CodeRange& range) { return a < range.begin; });
  uint64_t begin = text.begin, end = text.end;
  if (next != described_.begin()) {
    const size_t before = static_cast<size_t>(next - described_.begin()) - 1;
    if (reach_[before] > address) return std::nullopt;  // described code (an FDE) holds it
    begin = std::max(begin, reach_[before]);
    if (bounds != nullptr) bounds->push_back(reached_by_[before]);
  }
  if (next != described_.end()) {
    end = std::min(end, next->begin);
    if (bounds != nullptr) bounds->push_back(next->begin);
  }
  // Past the padding before the function: int3 and zero bytes, which are no function's start.
  std::array<uint8_t, 64> head{};
  while (begin < address) {
    const std::span<const uint8_t> bytes = code(
        begin, std::span<uint8_t>(head.data(), std::min<uint64_t>(head.size(), address - begin)));
    if (bytes.empty()) break;
    size_t padding = 0;
    while (padding < bytes.size() && (bytes[padding] == 0xcc || bytes[padding] == 0x00)) ++padding;
    begin += padding;
    if (padding < bytes.size()) break;
  }
  return fits({begin, end});
}

}  // namespace jitscope::unwind
