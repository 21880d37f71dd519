// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/unwind/cfi_sanity.h"

#include <dwarf.h>
#include <gelf.h>

#include <cstring>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "jitscope/formats/call_frame_instructions.h"
#include "jitscope/formats/dwarf_cursor.h"

namespace jitscope::unwind {
namespace {

using formats::DwarfCursor;

// The size of a value of pointer encoding `encoding` (its low bits) as libdw reads it: 0 for a
// LEB128, whose bytes say; nullopt for a form libdw cannot read.
std::optional<size_t> EncodedSize(uint8_t encoding, size_t address_size) {
  switch (encoding & 0x07) {
    case DW_EH_PE_absptr:
      return address_size;
    case DW_EH_PE_uleb128:  // and DW_EH_PE_sleb128
      return 0;
    case DW_EH_PE_udata2:
      return 2;
    case DW_EH_PE_udata4:
      return 4;
    case DW_EH_PE_udata8:
      return 8;
    default:
      return std::nullopt;
  }
}

// Skips a pointer of `encoding`; false when libdw could not read one there either.
bool SkipPointer(DwarfCursor& in, uint8_t encoding, size_t address_size) {
  if (encoding == DW_EH_PE_omit) return true;
  return EncodedSize(encoding, address_size) && in.Encoded(encoding, address_size).has_value();
}

// Reads a pointer of `encoding` from an .eh_frame_hdr whose first byte lies at `vaddr` (the
// base of pc-relative and data-relative pointers there); nullopt when it does not fit, or is of
// a form this check does not read exactly as libdw does (indirect, aligned, text- or
// function-relative).
std::optional<uint64_t> ReadHeaderPointer(DwarfCursor& in, uint8_t encoding, size_t address_size,
                                          uint64_t vaddr) {
  const uint8_t applied = encoding & 0x70;
  if ((encoding & DW_EH_PE_indirect) != 0 ||
      (applied != DW_EH_PE_absptr && applied != DW_EH_PE_pcrel && applied != DW_EH_PE_datarel) ||
      !EncodedSize(encoding, address_size)) {
    return std::nullopt;
  }
  const uint64_t base = applied == DW_EH_PE_pcrel     ? vaddr + in.offset()
                        : applied == DW_EH_PE_datarel ? vaddr
                                                      : 0;
  const std::optional<uint64_t> value = in.Encoded(encoding, address_size);
  if (!value) return std::nullopt;
  return base + *value;
}

// A table as dwarf_getcfi_elf or dwarf_getcfi finds it.
struct FrameTable {
  std::span<const uint8_t> bytes;
  bool eh_frame = false;
  const unsigned char* e_ident = nullptr;
};

// What libdw keeps of a CIE to read its FDEs.
struct Cie {
  uint8_t fde_encoding = DW_EH_PE_absptr;
  bool sized_augmentation = false;     // 'z': each FDE says how much augmentation data it has
  uint64_t fde_augmentation_size = 0;  // otherwise, how much each has
};

// Looks over what libdw's lookups can parse in one table.
class TableCheck {
 public:
  // `indexed_fdes`: the FDE offsets an .eh_frame_hdr search table names (libdw binary-searches
  // it instead of walking); an offset past the bytes names nothing libdw can read.
  TableCheck(const FrameTable& table, std::vector<uint64_t> indexed_fdes)
      : table_(table),
        indexed_fdes_(std::move(indexed_fdes)),
        address_size_(table.e_ident[EI_CLASS] == ELFCLASS32 ? 4 : 8) {
    data_.d_buf = const_cast<uint8_t*>(table.bytes.data());
    data_.d_size = table.bytes.size();
    data_.d_type = ELF_T_BYTE;
  }

  bool Sane() {
    // The entries a walk from the start meets, as libdw's linear search meets them.
    for (uint64_t offset = 0; !insane_;) {
      uint64_t next = offset;
      Dwarf_CFI_Entry entry;
      const int result = Next(offset, next, entry);
      if (result > 0) break;
      if (result < 0) {
        if (next == offset) break;  // libdw cannot step past it either
        offset = next;
        continue;
      }
      if (dwarf_cfi_cie_p(&entry)) {
        CieAt(offset, &entry.cie);
      } else {
        CheckFde(entry.fde);
        walked_fdes_.insert(offset);
      }
      offset = next;
    }
    for (const uint64_t offset : indexed_fdes_) {
      if (insane_) break;
      if (walked_fdes_.contains(offset)) continue;
      uint64_t next = offset;
      Dwarf_CFI_Entry entry;
      if (Next(offset, next, entry) == 0 && !dwarf_cfi_cie_p(&entry)) CheckFde(entry.fde);
    }
    return !insane_;
  }

 private:
  int Next(uint64_t offset, uint64_t& next, Dwarf_CFI_Entry& entry) {
    Dwarf_Off next_offset = next;
    const int result =
        dwarf_next_cfi(table_.e_ident, &data_, table_.eh_frame, offset, &next_offset, &entry);
    next = next_offset;
    return result;
  }

  // The bytes [begin, end) of the table, as a span of their own (empty when not in the table).
  std::span<const uint8_t> Between(const uint8_t* begin, const uint8_t* end) const {
    const uint8_t* table_end = table_.bytes.data() + table_.bytes.size();
    if (begin < table_.bytes.data() || begin > end || end > table_end) return {};
    return {begin, end};
  }

  // The CIE at `offset` as libdw reads it (from `entry` when the walk parsed it already);
  // nullopt when libdw finds no CIE it can use there. Looks over it once.
  const std::optional<Cie>& CieAt(uint64_t offset, const Dwarf_CIE* entry) {
    if (auto it = cies_.find(offset); it != cies_.end()) return it->second;
    std::optional<Cie>& cie = cies_[offset];
    Dwarf_CFI_Entry parsed;
    if (entry == nullptr) {
      uint64_t next = offset;
      if (Next(offset, next, parsed) != 0 || !dwarf_cfi_cie_p(&parsed)) return cie;
      entry = &parsed.cie;
    }
    // The augmentation, read as libdw reads it to keep the CIE: its letters say which data
    // follows (without 'z', libdw reads that data where the instructions start).
    const std::span<const uint8_t> data =
        Between(entry->augmentation_data, entry->initial_instructions_end);
    DwarfCursor in(data, 0, data.size());
    Cie read;
    for (const char* letter = entry->augmentation; *letter != '\0'; ++letter) {
      bool ok = true;
      if (*letter == 'z') {
        read.sized_augmentation = true;
      } else if (*letter == 'L') {
        const std::optional<uint8_t> lsda = in.Fixed<uint8_t>();
        ok = lsda.has_value();
        if (ok && !read.sized_augmentation && *lsda != DW_EH_PE_omit) {
          // libdw counts a LEB128's size without its bytes: refused rather than guessed.
          const std::optional<size_t> size = EncodedSize(*lsda, address_size_);
          ok = size && *size != 0;
          if (ok) read.fde_augmentation_size += *size;
        }
      } else if (*letter == 'R') {
        const std::optional<uint8_t> encoding = in.Fixed<uint8_t>();
        ok = encoding.has_value();
        if (ok) read.fde_encoding = *encoding;
      } else if (*letter == 'P') {
        // libdw sizes a LEB128 personality pointer its own way: refused rather than guessed.
        const std::optional<uint8_t> personality = in.Fixed<uint8_t>();
        ok = personality && EncodedSize(*personality, address_size_) != size_t{0} &&
             SkipPointer(in, *personality, address_size_);
      } else if (*letter != 'S' && !read.sized_augmentation) {
        break;  // libdw stops at a letter it does not know
      }
      if (!ok) return Refuse(cie);
    }
    if ((read.fde_encoding & 0x0f) == DW_EH_PE_absptr) {
      read.fde_encoding |= address_size_ == 8 ? DW_EH_PE_udata8 : DW_EH_PE_udata4;
    }
    const std::optional<size_t> pointer_size = EncodedSize(read.fde_encoding, address_size_);
    if ((read.fde_encoding & 0x70) == DW_EH_PE_aligned ||
        (read.fde_encoding & DW_EH_PE_indirect) != 0 || !pointer_size ||
        !formats::CallFrameInstructionsAreSane(
            Between(entry->initial_instructions, entry->initial_instructions_end), *pointer_size)) {
      return Refuse(cie);
    }
    cie = read;
    return cie;
  }

  void CheckFde(const Dwarf_FDE& fde) {
    const std::optional<Cie>& cie = CieAt(fde.CIE_pointer, nullptr);
    if (!cie) return;  // libdw cannot read the FDE without it
    const std::span<const uint8_t> bytes = Between(fde.start, fde.end);
    DwarfCursor in(bytes, 0, bytes.size());
    // Where libdw cannot read the FDE's range or augmentation, it runs none of it.
    if (!SkipPointer(in, cie->fde_encoding, address_size_) ||
        !SkipPointer(in, cie->fde_encoding, address_size_)) {
      return;
    }
    if (cie->sized_augmentation) {
      const std::optional<uint64_t> size = in.Uleb();
      if (!size || !in.Skip(*size)) return;
    } else if (!in.Skip(cie->fde_augmentation_size)) {
      return;
    }
    if (!formats::CallFrameInstructionsAreSane(bytes.subspan(in.offset()),
                                               *EncodedSize(cie->fde_encoding, address_size_))) {
      insane_ = true;
    }
  }

  const std::optional<Cie>& Refuse(std::optional<Cie>& cie) {
    insane_ = true;
    cie.reset();
    return cie;
  }

  const FrameTable& table_;
  std::vector<uint64_t> indexed_fdes_;
  size_t address_size_;
  Elf_Data data_{};
  std::unordered_map<uint64_t, std::optional<Cie>> cies_;
  std::unordered_set<uint64_t> walked_fdes_;
  bool insane_ = false;
};

// An .eh_frame_hdr's search table, read as libdw reads it: nullopt when libdw refuses the
// header (it then reads no .eh_frame through it); `followed` false when the index is one this
// check cannot follow exactly.
struct SearchIndex {
  uint64_t eh_frame_vaddr = 0;
  std::vector<uint64_t> fde_vaddrs;
  bool followed = true;
};

std::optional<SearchIndex> ReadSearchIndex(std::span<const uint8_t> hdr, uint64_t hdr_vaddr,
                                           size_t address_size) {
  DwarfCursor in(hdr, 0, hdr.size());
  const std::optional<uint32_t> encodings = in.Fixed<uint32_t>();  // version and 3 encodings
  if (!encodings || (*encodings & 0xff) != 1) return std::nullopt;
  const auto frame_encoding = static_cast<uint8_t>(*encodings >> 8);
  const auto count_encoding = static_cast<uint8_t>(*encodings >> 16);
  const auto table_encoding = static_cast<uint8_t>(*encodings >> 24);
  if (frame_encoding == DW_EH_PE_omit) return std::nullopt;
  SearchIndex index;
  index.followed = false;
  const std::optional<uint64_t> frame =
      ReadHeaderPointer(in, frame_encoding, address_size, hdr_vaddr);
  if (!frame) return index;
  index.eh_frame_vaddr = *frame;
  index.followed = true;
  if (count_encoding == DW_EH_PE_omit) return index;
  const std::optional<uint64_t> count =
      ReadHeaderPointer(in, count_encoding, address_size, hdr_vaddr);
  if (!count) {
    index.followed = false;
    return index;
  }
  if (*count == 0 || table_encoding == DW_EH_PE_omit ||
      (table_encoding & ~DW_EH_PE_signed) == DW_EH_PE_uleb128) {
    return index;  // libdw walks the table instead
  }
  // libdw refuses a table of entries it cannot size, or more than the header holds.
  const std::optional<size_t> size = EncodedSize(table_encoding, address_size);
  if (!size || *size == 0 || *count > in.left() / (2 * *size)) return std::nullopt;
  // libdw reads the entries as if the first lay at the header's own address.
  const std::span<const uint8_t> table = hdr.subspan(in.offset());
  DwarfCursor entries(table, 0, table.size());
  for (uint64_t i = 0; i < *count; ++i) {
    const std::optional<uint64_t> pc =
        ReadHeaderPointer(entries, table_encoding, address_size, hdr_vaddr);
    const std::optional<uint64_t> fde =
        ReadHeaderPointer(entries, table_encoding, address_size, hdr_vaddr);
    if (!pc || !fde) {
      index.followed = false;
      return index;
    }
    index.fde_vaddrs.push_back(*fde);
  }
  return index;
}

std::span<const uint8_t> BytesOf(const Elf_Data* data) {
  if (data == nullptr || data->d_buf == nullptr) return {};
  return {static_cast<const uint8_t*>(data->d_buf), data->d_size};
}

// The table's own entries and those the index names: sane, or refused.
bool TableIsSane(const FrameTable& table, const SearchIndex* index, uint64_t frame_vaddr) {
  std::vector<uint64_t> indexed_fdes;
  if (index != nullptr) {
    for (const uint64_t fde : index->fde_vaddrs) indexed_fdes.push_back(fde - frame_vaddr);
  }
  return TableCheck(table, std::move(indexed_fdes)).Sane();
}

// The .eh_frame through the PT_GNU_EH_FRAME segment, for a file without an .eh_frame section.
bool SegmentEhFrameIsSane(Elf* elf, const unsigned char* e_ident) {
  size_t count = 0;
  if (elf_getphdrnum(elf, &count) != 0) return true;
  for (size_t i = 0; i < count; ++i) {
    GElf_Phdr phdr;
    if (gelf_getphdr(elf, static_cast<int>(i), &phdr) == nullptr) return true;
    if (phdr.p_type != PT_GNU_EH_FRAME) continue;
    if (phdr.p_filesz < 4) return true;
    const std::span<const uint8_t> hdr = BytesOf(
        elf_getdata_rawchunk(elf, static_cast<int64_t>(phdr.p_offset), phdr.p_filesz, ELF_T_BYTE));
    if (hdr.empty()) return true;
    const size_t address_size = e_ident[EI_CLASS] == ELFCLASS32 ? 4 : 8;
    const std::optional<SearchIndex> index = ReadSearchIndex(hdr, phdr.p_vaddr, address_size);
    if (!index) return true;
    if (!index->followed) return false;
    // libdw takes the .eh_frame to run from where the header points to the end of the file.
    const uint64_t offset = index->eh_frame_vaddr - phdr.p_vaddr + phdr.p_offset;
    size_t file_size = 0;
    uint64_t size = 0;
    if (elf_rawfile(elf, &file_size) != nullptr) size = file_size - offset;
    const FrameTable table{
        BytesOf(elf_getdata_rawchunk(elf, static_cast<int64_t>(offset), size, ELF_T_BYTE)), true,
        e_ident};
    if (table.bytes.empty()) return true;
    return TableIsSane(table, &*index, index->eh_frame_vaddr);
  }
  return true;
}

// The file's identification bytes, or nullptr when libdw reads no table from it. A file of the
// other byte order is refused: this check reads little-endian values only.
const unsigned char* IdentOf(Elf* elf, bool& refused) {
  refused = false;
  const auto* e_ident = reinterpret_cast<const unsigned char*>(elf_getident(elf, nullptr));
  if (e_ident == nullptr) return nullptr;
  refused = e_ident[EI_DATA] != ELFDATA2LSB;
  return refused ? nullptr : e_ident;
}

}  // namespace

bool EhFrameIsSane(Elf* elf) {
  bool refused = false;
  const unsigned char* e_ident = IdentOf(elf, refused);
  if (e_ident == nullptr) return !refused;
  // As dwarf_getcfi_elf: the first .eh_frame and .eh_frame_hdr sections with bytes, in either
  // order (an .eh_frame alone when there is no header); the PT_GNU_EH_FRAME segment only when
  // there is no .eh_frame section.
  size_t names = 0;
  if (elf_getshdrstrndx(elf, &names) != 0) return true;
  if (names == 0) return SegmentEhFrameIsSane(elf, e_ident);
  Elf_Scn* eh_frame = nullptr;
  GElf_Shdr eh_frame_shdr{};
  Elf_Scn* hdr = nullptr;
  uint64_t hdr_vaddr = 0;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_type == SHT_NOBITS) continue;
    const char* name = elf_strptr(elf, names, shdr.sh_name);
    if (name == nullptr) continue;
    if (std::strcmp(name, ".eh_frame_hdr") == 0) {
      hdr = scn;
      hdr_vaddr = shdr.sh_addr;
    } else if (std::strcmp(name, ".eh_frame") == 0) {
      eh_frame = scn;
      eh_frame_shdr = shdr;
    } else {
      continue;
    }
    if (eh_frame != nullptr && hdr != nullptr) break;
  }
  if (eh_frame == nullptr) return SegmentEhFrameIsSane(elf, e_ident);
  const FrameTable table{BytesOf(elf_rawdata(eh_frame, nullptr)), true, e_ident};
  if (table.bytes.data() == nullptr) return true;
  const std::span<const uint8_t> hdr_bytes =
      hdr == nullptr ? std::span<const uint8_t>() : BytesOf(elf_rawdata(hdr, nullptr));
  if (hdr_bytes.data() == nullptr) return TableIsSane(table, nullptr, 0);
  const size_t address_size = e_ident[EI_CLASS] == ELFCLASS32 ? 4 : 8;
  const std::optional<SearchIndex> index = ReadSearchIndex(hdr_bytes, hdr_vaddr, address_size);
  if (!index) return true;  // libdw refuses the whole table
  if (!index->followed) return false;
  // libdw uses the index only when it points at this section.
  const bool indexed = index->eh_frame_vaddr == eh_frame_shdr.sh_addr;
  return TableIsSane(table, indexed ? &*index : nullptr, eh_frame_shdr.sh_addr);
}

bool DebugFrameIsSane(Dwarf* dwarf) {
  Elf* elf = dwarf == nullptr ? nullptr : dwarf_getelf(dwarf);
  if (elf == nullptr) return true;
  bool refused = false;
  const unsigned char* e_ident = IdentOf(elf, refused);
  if (e_ident == nullptr) return !refused;
  // As libdw finds it: the first section with bytes named .debug_frame or .zdebug_frame.
  size_t names = 0;
  if (elf_getshdrstrndx(elf, &names) != 0 || names == 0) return true;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_type == SHT_NOBITS) continue;
    const char* name = elf_strptr(elf, names, shdr.sh_name);
    if (name == nullptr) continue;
    if (std::strcmp(name, ".debug_frame") != 0 && std::strcmp(name, ".zdebug_frame") != 0) {
      continue;
    }
    // libdw decompressed the section when it opened the file; one still compressed is not
    // what libdw reads, and is refused.
    const FrameTable table{BytesOf(elf_getdata(scn, nullptr)), false, e_ident};
    const bool gnu_compressed =
        table.bytes.size() >= 4 && std::memcmp(table.bytes.data(), "ZLIB", 4) == 0;
    if ((shdr.sh_flags & SHF_COMPRESSED) != 0 || gnu_compressed) return false;
    return TableIsSane(table, nullptr, 0);
  }
  return true;
}

}  // namespace jitscope::unwind
