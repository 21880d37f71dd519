// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/unwind/cfi_module.h"

#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <span>

#include "jitscope/unwind/cfi_sanity.h"

namespace jitscope::unwind {
namespace {

// Caps the per-module cache, so a profile of a huge library cannot grow it without bound.
constexpr size_t kMaxCachedPcs = 1 << 20;

std::vector<Dwarf_Op> Copy(const Dwarf_Op* ops, size_t count) {
  return std::vector<Dwarf_Op>(ops, ops + count);
}

// The smallest ELF file that holds `eh_frame` as its .eh_frame section at `address`: libdw reads
// CFI from an ELF file only. A header, the section's bytes, the section names, the section
// headers.
std::vector<char> ElfImageOf(std::span<const uint8_t> eh_frame, uint64_t address) {
  static constexpr char kNames[] = "\0.eh_frame\0.shstrtab";
  constexpr size_t kEhFrameName = 1, kNamesName = 11;
  const auto align8 = [](size_t n) { return (n + 7) & ~size_t{7}; };
  const size_t frame_offset = sizeof(Elf64_Ehdr);
  const size_t names_offset = align8(frame_offset + eh_frame.size());
  const size_t headers_offset = align8(names_offset + sizeof(kNames));
  std::vector<char> image(headers_offset + 3 * sizeof(Elf64_Shdr));

  Elf64_Ehdr header{};
  std::memcpy(header.e_ident, ELFMAG, SELFMAG);
  header.e_ident[EI_CLASS] = ELFCLASS64;
  header.e_ident[EI_DATA] = ELFDATA2LSB;
  header.e_ident[EI_VERSION] = EV_CURRENT;
  header.e_type = ET_EXEC;
  header.e_machine = EM_X86_64;
  header.e_version = EV_CURRENT;
  header.e_ehsize = sizeof(Elf64_Ehdr);
  header.e_shoff = headers_offset;
  header.e_shentsize = sizeof(Elf64_Shdr);
  header.e_shnum = 3;
  header.e_shstrndx = 2;
  std::memcpy(image.data(), &header, sizeof(header));
  if (!eh_frame.empty()) std::memcpy(image.data() + frame_offset, eh_frame.data(), eh_frame.size());
  std::memcpy(image.data() + names_offset, kNames, sizeof(kNames));

  Elf64_Shdr sections[3] = {};
  Elf64_Shdr& frame = sections[1];
  frame.sh_name = kEhFrameName;
  frame.sh_type = SHT_PROGBITS;
  frame.sh_flags = SHF_ALLOC;
  frame.sh_addr = address;
  frame.sh_offset = frame_offset;
  frame.sh_size = eh_frame.size();
  frame.sh_addralign = 8;
  Elf64_Shdr& names = sections[2];
  names.sh_name = kNamesName;
  names.sh_type = SHT_STRTAB;
  names.sh_offset = names_offset;
  names.sh_size = sizeof(kNames);
  names.sh_addralign = 1;
  std::memcpy(image.data() + headers_offset, sections, sizeof(sections));
  return image;
}

}  // namespace

base::StatusOr<std::unique_ptr<CfiModule>> CfiModule::Open(const std::string& path,
                                                           std::string debug_path) {
  std::unique_ptr<CfiModule> module(new CfiModule());
  module->path_ = path;
  module->debug_path_ = std::move(debug_path);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return base::Status::Errno(errno, "%s", path.c_str());
  module->fd_ = base::ScopedFd(fd);
  elf_version(EV_CURRENT);
  module->elf_ = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  if (module->elf_ == nullptr || elf_kind(module->elf_) != ELF_K_ELF) {
    return base::Status::Error("%s: not an ELF file", path.c_str());
  }
  module->is_64bit_ = gelf_getclass(module->elf_) == ELFCLASS64;
  GElf_Ehdr ehdr;
  if (gelf_getehdr(module->elf_, &ehdr) != nullptr && ehdr.e_entry != 0) {
    module->entry_ = ehdr.e_entry;
  }
  size_t phnum = 0;
  if (elf_getphdrnum(module->elf_, &phnum) == 0) {
    for (size_t i = 0; i < phnum; ++i) {
      GElf_Phdr phdr;
      if (gelf_getphdr(module->elf_, static_cast<int>(i), &phdr) == nullptr) continue;
      if (phdr.p_type != PT_LOAD) continue;
      module->segments_.push_back({phdr.p_offset, phdr.p_filesz, phdr.p_vaddr});
    }
  }
  module->kept_code_ = session::KeptCodeOf(module->elf_);
  module->eh_frame_ = dwarf_getcfi_elf(module->elf_);
  module->dwarf_ = dwarf_begin_elf(module->elf_, DWARF_C_READ, nullptr);
  if (module->dwarf_ != nullptr) module->debug_frame_ = dwarf_getcfi(module->dwarf_);
  return module;
}

base::StatusOr<std::unique_ptr<CfiModule>> CfiModule::FromEhFrame(std::span<const uint8_t> eh_frame,
                                                                  uint64_t address) {
  std::unique_ptr<CfiModule> module(new CfiModule());
  module->image_ = ElfImageOf(eh_frame, address);
  elf_version(EV_CURRENT);
  module->elf_ = elf_memory(module->image_.data(), module->image_.size());
  if (module->elf_ == nullptr) {
    return base::Status::Error("an .eh_frame of %zu bytes: %s", eh_frame.size(), elf_errmsg(-1));
  }
  module->eh_frame_ = dwarf_getcfi_elf(module->elf_);
  if (module->eh_frame_ == nullptr) {
    return base::Status::Error("an .eh_frame of %zu bytes: %s", eh_frame.size(), dwarf_errmsg(-1));
  }
  module->searched_debug_file_ = true;  // it has no file, hence no separate debug file
  return module;
}

CfiModule::~CfiModule() {
  if (dwfl_ != nullptr) dwfl_end(dwfl_);
  if (eh_frame_ != nullptr) dwarf_cfi_end(eh_frame_);
  if (dwarf_ != nullptr) dwarf_end(dwarf_);
  if (elf_ != nullptr) elf_end(elf_);
}

bool CfiModule::FileOffsetToAddress(uint64_t file_offset, uint64_t& address) const {
  for (const Segment& segment : segments_) {
    if (file_offset >= segment.offset && file_offset - segment.offset < segment.size) {
      address = segment.vaddr + (file_offset - segment.offset);
      return true;
    }
  }
  return false;
}

bool CfiModule::ReadCode(uint64_t address, std::span<uint8_t> out) const {
  return ReadCodePrefix(address, out).size() == out.size();
}

std::span<uint8_t> CfiModule::ReadCodePrefix(uint64_t address, std::span<uint8_t> out) const {
  uint64_t size = 0;
  off_t offset = 0;
  if (kept_code_) {
    const session::KeptCode* piece = session::KeptCodeAt(*kept_code_, address);
    if (piece == nullptr) return {};
    size = std::min<uint64_t>(out.size(), piece->size - (address - piece->address));
    offset = static_cast<off_t>(piece->offset + (address - piece->address));
  } else {
    auto segment = std::find_if(segments_.begin(), segments_.end(), [&](const Segment& s) {
      return address >= s.vaddr && address - s.vaddr < s.size;
    });
    if (segment == segments_.end()) return {};
    size = std::min<uint64_t>(out.size(), segment->size - (address - segment->vaddr));
    offset = static_cast<off_t>(segment->offset + (address - segment->vaddr));
  }
  const ssize_t read = ::pread(fd_.get(), out.data(), size, offset);
  if (read != static_cast<ssize_t>(size) || size == 0) return {};
  if (log_reads_) code_read_.emplace_back(address, address + size);
  return out.first(size);
}

std::optional<formats::CodeRange> CfiModule::FunctionWithoutCfiAt(uint64_t address) {
  if (supplied_by_engine() || elf_ == nullptr) return std::nullopt;
  if (!functions_) functions_ = ElfFunctions::Read(elf_);
  if (log_reads_) function_bounds_read_.push_back(address);
  return functions_->At(
      address,
      [this](uint64_t at, std::span<uint8_t> out) {
        return std::span<const uint8_t>(ReadCodePrefix(at, out));
      },
      log_reads_ ? &function_bounds_read_ : nullptr);
}

void CfiRow::Recognize() {
  cfa_form = RecognizeExpression(cfa);
  defined = 0;
  for (size_t reg = 0; reg < registers.size(); ++reg) {
    RegisterRule& rule = registers[reg];
    if (rule.kind == RegisterRule::Kind::kLocation) rule.form = RecognizeLocation(rule.location);
    if (rule.kind != RegisterRule::Kind::kUndefined) defined |= uint32_t{1} << reg;
  }
}

const CfiRow* CfiModule::Find(uint64_t address) {
  if (auto it = row_at_pc_.find(address); it != row_at_pc_.end()) {
    return it->second < 0 ? nullptr : &rows_[static_cast<size_t>(it->second)];
  }
  // A row answers for every pc of its range, so a pc inside a range already read needs no new
  // walk of the CFI: in a DWARF session most sampled pcs are new, but few of their rows are.
  int32_t index = RowContaining(address);
  if (index < 0) index = ReadRow(address);
  if (row_at_pc_.size() < kMaxCachedPcs) row_at_pc_.emplace(address, index);
  return index < 0 ? nullptr : &rows_[static_cast<size_t>(index)];
}

int32_t CfiModule::RowContaining(uint64_t address) const {
  auto it = row_by_start_.upper_bound(address);
  if (it == row_by_start_.begin()) return -1;
  --it;
  return rows_[static_cast<size_t>(it->second)].end > address ? it->second : -1;
}

int32_t CfiModule::ReadRow(uint64_t address) {
  if (log_reads_) rows_read_.push_back(address);
  CfiRow row;
  CheckOwnTables();
  bool found = Lookup(eh_frame_, address, row) || Lookup(debug_frame_, address, row);
  if (!found) {
    if (Dwarf_CFI* separate = SeparateDebugFrame()) {
      found = Lookup(separate, address - separate_bias_, row);
      if (found) {
        row.start += separate_bias_;
        row.end += separate_bias_;
      }
    }
  }
  if (!found) return -1;
  row.Recognize();
  const auto index = static_cast<int32_t>(rows_.size());
  // Ranges of one file's CFI do not overlap; where two tables disagree, the first row read keeps
  // its range and the other answers only for the pcs it was read for.
  row_by_start_.try_emplace(row.start, index);
  rows_.push_back(std::move(row));
  return index;
}

void CfiModule::CheckOwnTables() {
  if (checked_own_tables_) return;
  checked_own_tables_ = true;
  if (eh_frame_ != nullptr && !EhFrameIsSane(elf_)) {
    dwarf_cfi_end(eh_frame_);
    eh_frame_ = nullptr;
    refused_cfi_ = true;
  }
  if (debug_frame_ != nullptr && !DebugFrameIsSane(dwarf_)) {
    debug_frame_ = nullptr;
    refused_cfi_ = true;
  }
}

Dwarf_CFI* CfiModule::SeparateDebugFrame() {
  if (searched_debug_file_) return separate_debug_frame_;
  searched_debug_file_ = true;
  // The file is reported to its own offline session; libdwfl then looks for its debug file the
  // standard way, and hands out that file's .debug_frame.
  debug_path_for_dwfl_ = debug_path_.data();
  dwfl_callbacks_ = {.find_elf = dwfl_build_id_find_elf,
                     .find_debuginfo = dwfl_standard_find_debuginfo,
                     .section_address = dwfl_offline_section_address,
                     .debuginfo_path = &debug_path_for_dwfl_};
  dwfl_ = dwfl_begin(&dwfl_callbacks_);
  if (dwfl_ == nullptr) return nullptr;
  Dwfl_Module* module = dwfl_report_offline(dwfl_, path_.c_str(), path_.c_str(), -1);
  dwfl_report_end(dwfl_, nullptr, nullptr);
  if (module == nullptr) return nullptr;
  // Only a separate file is new here: the file's own .debug_frame was looked in already.
  Dwarf_Addr dwarf_bias = 0;
  Dwarf* dwarf = dwfl_module_getdwarf(module, &dwarf_bias);
  const char* debug_file = nullptr;
  dwfl_module_info(module, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, &debug_file);
  if (dwarf == nullptr || debug_file == nullptr || path_ == debug_file) return nullptr;
  Dwarf_Addr file_bias = 0;  // libdwfl's addresses are the file's plus this
  Dwarf_Addr cfi_bias = 0;   // and the CFI's plus this
  if (dwfl_module_getelf(module, &file_bias) == nullptr) return nullptr;
  separate_debug_frame_ = dwfl_module_dwarf_cfi(module, &cfi_bias);
  separate_bias_ = cfi_bias - file_bias;
  if (separate_debug_frame_ != nullptr && !DebugFrameIsSane(dwarf)) {
    separate_debug_frame_ = nullptr;
    refused_cfi_ = true;
  }
  return separate_debug_frame_;
}

bool CfiModule::Lookup(Dwarf_CFI* cfi, uint64_t address, CfiRow& row) const {
  if (cfi == nullptr) return false;
  Dwarf_Frame* frame = nullptr;
  if (dwarf_cfi_addrframe(cfi, address, &frame) != 0 || frame == nullptr) return false;
  std::unique_ptr<Dwarf_Frame, void (*)(void*)> owner(frame, std::free);
  Dwarf_Addr start = 0, end = 0;
  bool signal = false;
  const int ra = dwarf_frame_info(frame, &start, &end, &signal);
  if (ra < 0 || ra >= kMaxDwarfRegisters) return false;
  row.start = start;
  row.end = end;
  row.signal_frame = signal;
  row.return_address_register = ra;
  Dwarf_Op* ops = nullptr;
  size_t nops = 0;
  if (dwarf_frame_cfa(frame, &ops, &nops) != 0) return false;
  row.cfa = Copy(ops, nops);
  const int registers = is_64bit_ ? 17 : 9;
  for (int reg = 0; reg < registers; ++reg) {
    Dwarf_Op ops_mem[3];
    Dwarf_Op* location = nullptr;
    size_t count = 0;
    RegisterRule& rule = row.registers[static_cast<size_t>(reg)];
    if (dwarf_frame_register(frame, reg, ops_mem, &location, &count) != 0) continue;
    if (count == 0) {
      rule.kind =
          location == nullptr ? RegisterRule::Kind::kSameValue : RegisterRule::Kind::kUndefined;
      continue;
    }
    rule.kind = RegisterRule::Kind::kLocation;
    rule.location = Copy(location, count);
  }
  return true;
}

}  // namespace jitscope::unwind
