// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/session/compact_elf.h"

#include <gelf.h>

#include <algorithm>
#include <cstring>

namespace jitscope::session {

std::optional<std::vector<KeptCode>> KeptCodeOf(Elf* elf) {
  size_t names = 0;
  if (elf == nullptr || elf_getshdrstrndx(elf, &names) != 0) return std::nullopt;
  bool compact = false;
  std::vector<KeptCode> pieces;
  size_t file_size = 0;
  if (elf_rawfile(elf, &file_size) == nullptr) return std::nullopt;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr) continue;
    const char* name = elf_strptr(elf, names, shdr.sh_name);
    if (name == nullptr) continue;
    if (std::strcmp(name, kCompactMarker) == 0) compact = true;
    // A hostile file's piece that is not in it, or wraps around, is no piece.
    if (std::strcmp(name, kKeptCode) != 0 || shdr.sh_type != SHT_PROGBITS ||
        shdr.sh_offset > file_size || shdr.sh_size > file_size - shdr.sh_offset ||
        shdr.sh_addr + shdr.sh_size < shdr.sh_addr) {
      continue;
    }
    pieces.push_back({shdr.sh_addr, shdr.sh_offset, shdr.sh_size});
  }
  if (!compact) return std::nullopt;
  std::sort(pieces.begin(), pieces.end(),
            [](const KeptCode& a, const KeptCode& b) { return a.address < b.address; });
  return pieces;
}

const KeptCode* KeptCodeAt(const std::vector<KeptCode>& pieces, uint64_t address) {
  auto it = std::upper_bound(pieces.begin(), pieces.end(), address,
                             [](uint64_t a, const KeptCode& piece) { return a < piece.address; });
  if (it == pieces.begin()) return nullptr;
  --it;
  return address - it->address < it->size ? &*it : nullptr;
}

}  // namespace jitscope::session
