// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/record/compact_copy.h"

#include <gelf.h>
#include <libelf.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>
#include <set>
#include <string_view>

#include "jitscope/record/eh_frame_subset.h"
#include "jitscope/session/compact_elf.h"

namespace jitscope::record {
namespace {

struct ElfCloser {
  void operator()(Elf* elf) const { elf_end(elf); }
};
using ElfHandle = std::unique_ptr<Elf, ElfCloser>;

base::Status ElfError(const std::string& name, const char* what) {
  return base::Status::Error("%s: %s: %s", name.c_str(), what, elf_errmsg(-1));
}

// Whether a section's bytes, or the part of them compact_copy.h says, are what naming and
// unwinding read (compact_elf.h).
bool KeepsBytes(const GElf_Shdr& shdr, std::string_view name) {
  switch (shdr.sh_type) {
    case SHT_NOTE:
    case SHT_SYMTAB:
    case SHT_DYNSYM:
    case SHT_STRTAB:
    case SHT_SYMTAB_SHNDX:
      return true;
    default:
      return name == ".eh_frame" || name == ".eh_frame_hdr" || name == ".debug_frame" ||
             name == ".gnu_debuglink";
  }
}

struct InputSection {
  Elf_Scn* scn = nullptr;
  GElf_Shdr shdr{};
  std::string_view name;
};

// The function symbols of a symbol table that name `addresses` (sorted), as the report's
// symbolizer looks them up: of the defined, named STT_FUNC and STT_GNU_IFUNC symbols by address,
// the last one that starts at or before the address, with every other that starts where it does,
// and those that start next (where one without a size ends). Their indices, sorted.
std::set<size_t> SymbolsNaming(Elf_Data* data, const GElf_Shdr& shdr, Elf* elf, size_t names,
                               const std::vector<uint64_t>& addresses) {
  struct Function {
    uint64_t start, end;
    size_t index;
  };
  std::vector<Function> functions;
  const size_t count = shdr.sh_entsize != 0 ? shdr.sh_size / shdr.sh_entsize : 0;
  for (size_t i = 1; i < count; ++i) {
    GElf_Sym symbol;
    if (gelf_getsym(data, static_cast<int>(i), &symbol) == nullptr) continue;
    const int type = GELF_ST_TYPE(symbol.st_info);
    const char* name = elf_strptr(elf, names, symbol.st_name);
    if (name == nullptr || *name == '\0' || symbol.st_shndx == SHN_UNDEF ||
        (type != STT_FUNC && type != STT_GNU_IFUNC)) {
      continue;
    }
    functions.push_back({symbol.st_value, symbol.st_value + symbol.st_size, i});
  }
  std::stable_sort(functions.begin(), functions.end(), [](const Function& a, const Function& b) {
    return a.start < b.start || (a.start == b.start && a.end > b.end);
  });
  std::set<size_t> kept;
  auto keep_at = [&](std::vector<Function>::const_iterator it) {
    for (const uint64_t start = it->start; it != functions.end() && it->start == start; ++it) {
      kept.insert(it->index);
    }
    return it;
  };
  for (const uint64_t address : addresses) {
    auto it = std::upper_bound(functions.cbegin(), functions.cend(), address,
                               [](uint64_t a, const Function& f) { return a < f.start; });
    if (it == functions.cbegin()) continue;
    const uint64_t start = std::prev(it)->start;
    auto first = std::lower_bound(functions.cbegin(), it, start,
                                  [](const Function& f, uint64_t s) { return f.start < s; });
    const auto next = keep_at(first);
    if (next != functions.cend()) keep_at(next);
  }
  return kept;
}

}  // namespace

void AddCodeRange(CodeRanges& ranges, uint64_t start, uint64_t end) {
  if (start >= end) return;
  auto it = ranges.upper_bound(start);
  if (it != ranges.begin() && std::prev(it)->second >= start) {
    --it;
    start = it->first;
    end = std::max(end, it->second);
    it = ranges.erase(it);
  }
  while (it != ranges.end() && it->first <= end) {
    end = std::max(end, it->second);
    it = ranges.erase(it);
  }
  ranges.emplace(start, end);
}

base::Status WriteCompactCopy(int source, const std::string& name, const SessionParts& parts,
                              int out, int laid_out) {
  elf_version(EV_CURRENT);
  const ElfHandle in(elf_begin(source, ELF_C_READ_MMAP, nullptr));
  if (in == nullptr || elf_kind(in.get()) != ELF_K_ELF) {
    return base::Status::Error("%s: not an ELF file", name.c_str());
  }
  size_t file_size = 0;
  const char* file = elf_rawfile(in.get(), &file_size);
  GElf_Ehdr ehdr;
  size_t names_index = 0;
  size_t phnum = 0;
  if (file == nullptr || gelf_getehdr(in.get(), &ehdr) == nullptr ||
      elf_getshdrstrndx(in.get(), &names_index) != 0 || elf_getphdrnum(in.get(), &phnum) != 0) {
    return ElfError(name, "unreadable headers");
  }
  if (names_index == SHN_UNDEF || names_index >= SHN_LORESERVE) {
    return base::Status::Error("%s: no section names to keep it by", name.c_str());
  }

  const ElfHandle copy(elf_begin(out, ELF_C_WRITE, nullptr));
  if (copy == nullptr || gelf_newehdr(copy.get(), gelf_getclass(in.get())) == nullptr) {
    return ElfError(name, "cannot begin its copy");
  }
  if (!gelf_update_ehdr(copy.get(), &ehdr)) return ElfError(name, "cannot write its header");
  std::vector<GElf_Phdr> loads;
  if (phnum > 0) {
    if (gelf_newphdr(copy.get(), phnum) == nullptr) return ElfError(name, "program headers");
    for (size_t i = 0; i < phnum; ++i) {
      GElf_Phdr phdr;
      if (gelf_getphdr(in.get(), static_cast<int>(i), &phdr) == nullptr ||
          !gelf_update_phdr(copy.get(), static_cast<int>(i), &phdr)) {
        return ElfError(name, "program headers");
      }
      if (phdr.p_type == PT_LOAD) loads.push_back(phdr);
    }
  }

  // The addresses report names, from their offsets, as its symbolizer turns them.
  std::vector<GElf_Phdr> layout = loads;
  if (laid_out >= 0 && laid_out != source) {
    layout.clear();
    const ElfHandle file_elf(elf_begin(laid_out, ELF_C_READ_MMAP, nullptr));
    size_t count = 0;
    if (file_elf == nullptr || elf_getphdrnum(file_elf.get(), &count) != 0) {
      return ElfError(name, "the program headers of its file");
    }
    for (size_t i = 0; i < count; ++i) {
      GElf_Phdr phdr;
      if (gelf_getphdr(file_elf.get(), static_cast<int>(i), &phdr) != nullptr &&
          phdr.p_type == PT_LOAD) {
        layout.push_back(phdr);
      }
    }
  }
  std::vector<uint64_t> named;
  for (const uint64_t offset : parts.named) {
    for (const GElf_Phdr& load : layout) {
      if (offset >= load.p_offset && offset - load.p_offset < load.p_filesz) {
        named.push_back(load.p_vaddr + (offset - load.p_offset));
        break;
      }
    }
  }
  named.insert(named.end(), parts.function_bounds.begin(), parts.function_bounds.end());
  std::sort(named.begin(), named.end());
  named.erase(std::unique(named.begin(), named.end()), named.end());
  std::vector<uint64_t> unwound = parts.rows;
  unwound.insert(unwound.end(), named.begin(), named.end());
  std::sort(unwound.begin(), unwound.end());

  std::vector<InputSection> sections(1);  // by index; 0 is no section
  bool extended_indices = false;
  for (Elf_Scn* scn = elf_nextscn(in.get(), nullptr); scn != nullptr;
       scn = elf_nextscn(in.get(), scn)) {
    InputSection section;
    section.scn = scn;
    if (gelf_getshdr(scn, &section.shdr) == nullptr) return ElfError(name, "section headers");
    const char* section_name = elf_strptr(in.get(), names_index, section.shdr.sh_name);
    section.name = section_name != nullptr ? section_name : "";
    extended_indices |= section.shdr.sh_type == SHT_SYMTAB_SHNDX;
    sections.push_back(section);
  }

  // The symbol tables, each with only the symbols that name `named`, and their strings.
  std::deque<std::string> buffers;  // the bytes of the sections made here, kept until written
  std::map<size_t, std::string*> new_bytes;  // section index → its bytes in the copy
  std::map<size_t, std::string*> strings;    // a string table's index → its new bytes
  const bool little_endian = ehdr.e_ident[EI_DATA] == ELFDATA2LSB;
  for (size_t index = 1; index < sections.size() && little_endian && !extended_indices; ++index) {
    const GElf_Shdr& shdr = sections[index].shdr;
    if ((shdr.sh_type != SHT_SYMTAB && shdr.sh_type != SHT_DYNSYM) || shdr.sh_entsize < 4 ||
        shdr.sh_link == 0 || shdr.sh_link >= sections.size() ||
        sections[shdr.sh_link].shdr.sh_type != SHT_STRTAB) {
      continue;
    }
    Elf_Data* raw = elf_rawdata(sections[index].scn, nullptr);
    Elf_Data* symbols = elf_getdata(sections[index].scn, nullptr);
    if (raw == nullptr || raw->d_buf == nullptr || symbols == nullptr) continue;
    const std::set<size_t> kept = SymbolsNaming(symbols, shdr, in.get(), shdr.sh_link, named);
    std::string*& names = strings[shdr.sh_link];
    if (names == nullptr) names = &buffers.emplace_back(1, '\0');
    std::string& table =
        buffers.emplace_back(static_cast<const char*>(raw->d_buf),
                             std::min<size_t>(shdr.sh_entsize, raw->d_size));  // the null symbol
    size_t locals = 1;
    for (const size_t i : kept) {
      if ((i + 1) * shdr.sh_entsize > raw->d_size) break;
      const char* entry = static_cast<const char*>(raw->d_buf) + i * shdr.sh_entsize;
      GElf_Sym symbol;
      gelf_getsym(symbols, static_cast<int>(i), &symbol);
      const auto name_at = static_cast<uint32_t>(names->size());
      names->append(elf_strptr(in.get(), shdr.sh_link, symbol.st_name));
      names->push_back('\0');
      const size_t at = table.size();
      table.append(entry, shdr.sh_entsize);
      std::memcpy(table.data() + at, &name_at, sizeof(name_at));  // st_name leads either class
      if (i < shdr.sh_info) ++locals;
    }
    new_bytes[index] = &table;
    sections[index].shdr.sh_info = static_cast<GElf_Word>(locals);
  }
  for (const auto& [index, bytes] : strings) new_bytes[index] = bytes;

  // Of the .eh_frame, the FDEs of the addresses looked up or named; without its index then.
  bool drop_eh_frame_hdr = false;
  for (size_t index = 1; index < sections.size(); ++index) {
    if (sections[index].name != ".eh_frame" || sections[index].shdr.sh_type == SHT_NOBITS) continue;
    Elf_Data* raw = elf_rawdata(sections[index].scn, nullptr);
    if (raw == nullptr || raw->d_buf == nullptr) continue;
    std::optional<std::string> part =
        EhFrameSubset(std::string_view(static_cast<const char*>(raw->d_buf), raw->d_size),
                      sections[index].shdr.sh_addr, unwound);
    if (!part) continue;
    new_bytes[index] = &buffers.emplace_back(std::move(*part));
    drop_eh_frame_hdr = true;
  }

  // The section names, with the two of the copy's own added at the end.
  std::string& section_names = buffers.emplace_back();
  size_t marker_name = 0, code_name = 0;
  Elf_Scn* names_section = nullptr;
  auto add_bytes = [&](Elf_Scn* scn, const void* bytes, size_t size) -> base::Status {
    Elf_Data* data = elf_newdata(scn);
    if (data == nullptr) return ElfError(name, "cannot add section bytes");
    data->d_buf = const_cast<void*>(bytes);
    data->d_size = size;
    data->d_type = ELF_T_BYTE;
    data->d_align = 1;
    data->d_version = EV_CURRENT;
    return base::Status::Ok();
  };
  for (size_t index = 1; index < sections.size(); ++index) {
    InputSection& section = sections[index];
    GElf_Shdr& shdr = section.shdr;
    Elf_Scn* out_scn = elf_newscn(copy.get());
    if (out_scn == nullptr) return ElfError(name, "cannot add a section");
    if (index == names_index) {
      Elf_Data* data = elf_rawdata(section.scn, nullptr);
      if (data == nullptr || data->d_buf == nullptr) return ElfError(name, "section names");
      section_names.assign(static_cast<const char*>(data->d_buf), data->d_size);
      if (section_names.empty() || section_names.back() != '\0') section_names.push_back('\0');
      marker_name = section_names.size();
      section_names.append(session::kCompactMarker, sizeof(session::kCompactMarker));
      code_name = section_names.size();
      section_names.append(session::kKeptCode, sizeof(session::kKeptCode));
      names_section = out_scn;
    } else if (auto made = new_bytes.find(index); made != new_bytes.end()) {
      RETURN_IF_ERROR(add_bytes(out_scn, made->second->data(), made->second->size()));
    } else if (shdr.sh_type != SHT_NOBITS && KeepsBytes(shdr, section.name) &&
               !(drop_eh_frame_hdr && section.name == ".eh_frame_hdr")) {
      Elf_Data* data = elf_rawdata(section.scn, nullptr);
      if (data == nullptr) return ElfError(name, "section bytes");
      RETURN_IF_ERROR(add_bytes(out_scn, data->d_buf, data->d_size));
    } else {
      // No bytes, but its size: libelf takes a section's size from its data.
      shdr.sh_type = SHT_NOBITS;
      RETURN_IF_ERROR(add_bytes(out_scn, nullptr, shdr.sh_size));
    }
    // libelf lays the copy out: sections with bytes keep the alignment they had.
    shdr.sh_addralign = std::max<uint64_t>(shdr.sh_addralign, 1);
    if (!gelf_update_shdr(out_scn, &shdr)) return ElfError(name, "section headers");
  }
  if (names_section == nullptr) return base::Status::Error("%s: no section names", name.c_str());

  auto add_section = [&](size_t name_offset, uint64_t address, const void* bytes,
                         size_t size) -> base::Status {
    Elf_Scn* scn = elf_newscn(copy.get());
    if (scn == nullptr) return ElfError(name, "cannot add a section");
    RETURN_IF_ERROR(add_bytes(scn, bytes, size));
    GElf_Shdr shdr{};
    shdr.sh_name = name_offset;
    shdr.sh_type = SHT_PROGBITS;
    shdr.sh_addr = address;
    shdr.sh_size = size;
    shdr.sh_addralign = 1;
    if (!gelf_update_shdr(scn, &shdr)) return ElfError(name, "section headers");
    return base::Status::Ok();
  };
  RETURN_IF_ERROR(add_section(marker_name, 0, nullptr, 0));
  for (const auto& [start, end] : parts.code) {
    // The part of each loaded segment's bytes in the file that the range covers.
    for (const GElf_Phdr& load : loads) {
      const uint64_t from = std::max(start, load.p_vaddr);
      const uint64_t to = std::min(end, load.p_vaddr + load.p_filesz);
      if (from >= to) continue;
      const uint64_t offset = load.p_offset + (from - load.p_vaddr);
      if (offset > file_size || to - from > file_size - offset) continue;
      RETURN_IF_ERROR(add_section(code_name, from, file + offset, to - from));
    }
  }
  RETURN_IF_ERROR(add_bytes(names_section, section_names.data(), section_names.size()));

  if (elf_update(copy.get(), ELF_C_WRITE) < 0) return ElfError(name, "cannot write its copy");
  return base::Status::Ok();
}

}  // namespace jitscope::record
