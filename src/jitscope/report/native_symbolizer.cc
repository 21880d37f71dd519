// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/report/native_symbolizer.h"

#include <cxxabi.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "jitscope/session/compact_elf.h"

namespace jitscope::report {
namespace {

const char* AttributeString(Dwarf_Die* die, unsigned name) {
  Dwarf_Attribute attribute;
  return dwarf_formstring(dwarf_attr_integrate(die, name, &attribute));
}

// A function DIE's name: the linkage name demangled (it carries namespaces and classes), else
// DW_AT_name. Follows DW_AT_abstract_origin and DW_AT_specification.
std::string FunctionName(Dwarf_Die* die) {
  for (unsigned attribute : {DW_AT_linkage_name, DW_AT_MIPS_linkage_name}) {
    if (const char* linkage = AttributeString(die, attribute)) return Demangle(linkage);
  }
  const char* name = AttributeString(die, DW_AT_name);
  return name != nullptr ? name : "";
}

// Calls `visit` with each of `ranges` (sorted by `low`, none longer than `longest`) whose
// [low, high) holds `pc`, the latest-starting first, until it returns false.
template <typename Range, typename Visit>
void ForEachRangeHolding(const std::vector<Range>& ranges, Dwarf_Addr longest, Dwarf_Addr pc,
                         Visit visit) {
  auto it = std::upper_bound(ranges.begin(), ranges.end(), pc,
                             [](Dwarf_Addr a, const Range& r) { return a < r.low; });
  while (it != ranges.begin()) {
    --it;
    if (pc - it->low > longest) return;
    if (pc < it->high && !visit(*it)) return;
  }
}

std::string_view Basename(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string Demangle(const std::string& name) {
  if (name.size() < 2 || name[0] != '_' || name[1] != 'Z') return name;
  int status = 0;
  char* demangled = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (status != 0 || demangled == nullptr) return name;
  std::string result(demangled);
  std::free(demangled);
  return result;
}

// One ELF file, reported to its own Dwfl session at its link-time addresses.
class NativeSymbolizer::Module {
 public:
  static std::unique_ptr<Module> Open(const std::string& path, const Dwfl_Callbacks* callbacks) {
    Dwfl* dwfl = dwfl_begin(callbacks);
    if (dwfl == nullptr) return nullptr;
    std::unique_ptr<Module> module(new Module(dwfl, path));
    module->module_ = dwfl_report_offline(dwfl, path.c_str(), path.c_str(), -1);
    dwfl_report_end(dwfl, nullptr, nullptr);
    if (module->module_ == nullptr) return nullptr;
    Elf* elf = dwfl_module_getelf(module->module_, &module->bias_);
    module->elf_ = elf;
    module->kept_code_ = session::KeptCodeOf(elf);
    size_t count = 0;
    if (elf == nullptr || elf_getphdrnum(elf, &count) != 0) return nullptr;
    for (size_t i = 0; i < count; ++i) {
      GElf_Phdr header;
      if (gelf_getphdr(elf, static_cast<int>(i), &header) == nullptr) continue;
      if (header.p_type == PT_LOAD) {
        module->loads_.push_back({header.p_offset, header.p_filesz, header.p_vaddr});
      }
    }
    return module;
  }

  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  ~Module() { dwfl_end(dwfl_); }

  std::optional<Function> FunctionAt(uint64_t file_offset) {
    const std::optional<uint64_t> vaddr = VirtualAddress(file_offset);
    if (!vaddr) return std::nullopt;
    const Symbol* symbol = SymbolAt(*vaddr + bias_);
    if (symbol == nullptr) return std::nullopt;
    const std::optional<uint64_t> start = FileOffset(symbol->start - bias_);
    if (!start) return std::nullopt;
    return Function{*start, symbol->end - symbol->start, symbol->name};
  }

  std::vector<uint8_t> ReadBytes(uint64_t file_offset, uint64_t size) {
    size_t file_size = 0;
    if (elf_rawfile(elf_, &file_size) == nullptr) return {};
    if (kept_code_) {
      // A compact copy: the program headers' offsets are the original file's, and only the code
      // it kept is in it.
      const std::optional<uint64_t> vaddr = VirtualAddress(file_offset);
      const session::KeptCode* piece = vaddr ? session::KeptCodeAt(*kept_code_, *vaddr) : nullptr;
      if (piece == nullptr) return {};
      file_offset = piece->offset + (*vaddr - piece->address);
      size = std::min<uint64_t>(size, piece->size - (*vaddr - piece->address));
    }
    if (file_offset >= file_size) return {};
    size = std::min<uint64_t>(size, file_size - file_offset);
    Elf_Data* data =
        elf_getdata_rawchunk(elf_, static_cast<int64_t>(file_offset), size, ELF_T_BYTE);
    if (data == nullptr || data->d_buf == nullptr) return {};
    const auto* bytes = static_cast<const uint8_t*>(data->d_buf);
    return std::vector<uint8_t>(bytes, bytes + data->d_size);
  }

  std::vector<Location> Symbolize(uint64_t file_offset) {
    std::vector<Location> frames;
    const std::optional<uint64_t> vaddr = VirtualAddress(file_offset);
    if (!vaddr) return frames;
    const Dwarf_Addr address = *vaddr + bias_;

    Dwarf_Addr cu_bias = 0;
    Dwarf_Die cu_storage;
    Dwarf_Die* cu = FindCompilationUnit(address, cu_bias, cu_storage);
    std::string file;
    uint32_t line_number = 0;
    if (Dwarf_Line* entry = cu != nullptr ? dwarf_getsrc_die(cu, address - cu_bias) : nullptr) {
      if (const char* source = dwarf_linesrc(entry, nullptr, nullptr)) file = source;
      int line = 0;
      if (dwarf_lineno(entry, &line) == 0 && line > 0) line_number = static_cast<uint32_t>(line);
    }

    // The functions whose code holds the address, outermost first: the subprogram, then each
    // inlined_subroutine inside it. Each inlined one is a frame whose caller is the function
    // before it in the chain, at the call site the inlined_subroutine records.
    std::vector<Dwarf_Die> chain;
    if (cu != nullptr) FindScopes(cu, address - cu_bias, chain);
    bool reached_function = false;
    for (auto scope = chain.rbegin(); scope != chain.rend(); ++scope) {
      reached_function = dwarf_tag(&*scope) == DW_TAG_subprogram;
      std::string name = FunctionName(&*scope);
      if (reached_function) name = SymbolName(address, std::move(name));
      frames.push_back(Frame(std::move(name), file, line_number, !reached_function));
      if (reached_function) break;
      CallSite(cu, &*scope, file, line_number);
    }
    if (!reached_function) {
      // No DWARF for the address (or an inline chain without its function): the ELF symbol.
      std::string name = SymbolName(address, "");
      if (name.empty()) return {};
      frames.push_back(Frame(std::move(name), file, line_number, false));
    }
    return frames;
  }

 private:
  struct Load {
    uint64_t offset, size, vaddr;
  };

  Module(Dwfl* dwfl, std::string path) : dwfl_(dwfl), path_(std::move(path)) {}

  std::optional<uint64_t> VirtualAddress(uint64_t file_offset) const {
    for (const Load& load : loads_) {
      if (file_offset >= load.offset && file_offset - load.offset < load.size) {
        return load.vaddr + (file_offset - load.offset);
      }
    }
    return std::nullopt;
  }

  std::optional<uint64_t> FileOffset(uint64_t vaddr) const {
    for (const Load& load : loads_) {
      if (vaddr >= load.vaddr && vaddr - load.vaddr < load.size) {
        return load.offset + (vaddr - load.vaddr);
      }
    }
    return std::nullopt;
  }

  // The compilation unit whose code holds `address`. libdw finds it through .debug_aranges,
  // which clang does not emit by default; without them, the CUs' own address ranges are read once
  // into a table.
  Dwarf_Die* FindCompilationUnit(Dwarf_Addr address, Dwarf_Addr& bias, Dwarf_Die& storage) {
    if (Dwarf_Die* cu = dwfl_module_addrdie(module_, address, &bias)) return cu;
    if (!cu_ranges_built_) BuildCompilationUnitRanges();
    bias = dwarf_bias_;
    Dwarf_Die* found = nullptr;
    ForEachRangeHolding(cu_ranges_, max_range_, address - dwarf_bias_, [&](const CuRange& range) {
      storage = range.cu;
      found = &storage;
      return false;
    });
    return found;
  }

  void BuildCompilationUnitRanges() {
    cu_ranges_built_ = true;
    Dwarf_Die* cu = nullptr;
    Dwarf_Addr bias = 0;
    while ((cu = dwfl_module_nextcu(module_, cu, &bias)) != nullptr) {
      dwarf_bias_ = bias;
      Dwarf_Addr base = 0, low = 0, high = 0;
      ptrdiff_t offset = 0;
      while ((offset = dwarf_ranges(cu, offset, &base, &low, &high)) > 0) {
        if (high <= low) continue;
        cu_ranges_.push_back({low, high, *cu});
        max_range_ = std::max<Dwarf_Addr>(max_range_, high - low);
      }
    }
    std::sort(cu_ranges_.begin(), cu_ranges_.end(),
              [](const CuRange& a, const CuRange& b) { return a.low < b.low; });
  }

  // The functions that contain `pc`, outermost first, in the compilation unit `cu`: its
  // function at `pc` from the unit's index, then the inlined ones inside it.
  void FindScopes(Dwarf_Die* cu, Dwarf_Addr pc, std::vector<Dwarf_Die>& chain) {
    const FunctionIndex& index = FunctionsOf(cu);
    // Of the ranges that hold pc, the function first in the unit (as a walk of it would find).
    const FunctionRange* found = nullptr;
    ForEachRangeHolding(index.ranges, index.longest, pc, [&](const FunctionRange& range) {
      if (found == nullptr || range.order < found->order) found = &range;
      return true;
    });
    if (found == nullptr) return;
    Dwarf_Die function = found->die;
    if (dwarf_tag(&function) != DW_TAG_lexical_block) chain.push_back(function);
    FindFunctionScopes(&function, pc, chain);
  }

  // A compilation unit's functions (and, as a walk of it meets them, its other scopes with code
  // of their own), found once by walking the unit's DIEs, each range of each sorted by its start:
  // the walk of a large unit costs millions of instructions, and a report names hundreds of
  // addresses in it.
  struct FunctionRange {
    Dwarf_Addr low, high;
    uint32_t order;  // the function's place in the unit
    Dwarf_Die die;
  };
  struct FunctionIndex {
    std::vector<FunctionRange> ranges;
    Dwarf_Addr longest = 0;
  };
  const FunctionIndex& FunctionsOf(Dwarf_Die* cu) {
    auto [it, inserted] = functions_.try_emplace(dwarf_dieoffset(cu));
    if (!inserted) return it->second;
    FunctionIndex& index = it->second;
    uint32_t order = 0;
    IndexFunctions(cu, index, order);
    std::sort(index.ranges.begin(), index.ranges.end(),
              [](const FunctionRange& a, const FunctionRange& b) { return a.low < b.low; });
    return index;
  }
  static void IndexFunctions(Dwarf_Die* parent, FunctionIndex& index, uint32_t& order) {
    Dwarf_Die child;
    if (dwarf_child(parent, &child) != 0) return;
    do {
      switch (dwarf_tag(&child)) {
        case DW_TAG_subprogram:
        case DW_TAG_inlined_subroutine:
        case DW_TAG_lexical_block: {
          Dwarf_Addr base = 0, low = 0, high = 0;
          ptrdiff_t offset = 0;
          while ((offset = dwarf_ranges(&child, offset, &base, &low, &high)) > 0) {
            if (high <= low) continue;
            index.ranges.push_back({low, high, order, child});
            index.longest = std::max<Dwarf_Addr>(index.longest, high - low);
          }
          ++order;
          break;
        }
        case DW_TAG_namespace:
        case DW_TAG_class_type:
        case DW_TAG_structure_type:
        case DW_TAG_union_type:
          IndexFunctions(&child, index, order);
          break;
        default:
          break;
      }
    } while (dwarf_siblingof(&child, &child) == 0);
  }

  // Walks the DIE tree below `parent` down to the functions that contain `pc` (libdw's
  // dwarf_getscopes misses functions nested in namespaces in clang's DWARF). Returns whether one
  // was found below `parent`.
  static bool FindFunctionScopes(Dwarf_Die* parent, Dwarf_Addr pc, std::vector<Dwarf_Die>& chain) {
    Dwarf_Die child;
    if (dwarf_child(parent, &child) != 0) return false;
    do {
      switch (dwarf_tag(&child)) {
        case DW_TAG_subprogram:
        case DW_TAG_inlined_subroutine:
        case DW_TAG_lexical_block:
          if (dwarf_haspc(&child, pc) == 1) {
            if (dwarf_tag(&child) != DW_TAG_lexical_block) chain.push_back(child);
            FindFunctionScopes(&child, pc, chain);
            return true;
          }
          break;
        case DW_TAG_namespace:
        case DW_TAG_class_type:
        case DW_TAG_structure_type:
        case DW_TAG_union_type:
          if (FindFunctionScopes(&child, pc, chain)) return true;
          break;
        default:
          break;
      }
    } while (dwarf_siblingof(&child, &child) == 0);
    return false;
  }

  // The ELF symbol covering `address`, demangled; `fallback` (a DWARF name) when none does.
  // libdwfl's own lookup (dwfl_module_addrinfo) scans the whole symbol table on every call,
  // which for a large binary (node: 100k+ symbols) costs milliseconds per address; the function
  // symbols are sorted once instead.
  std::string SymbolName(Dwarf_Addr address, std::string fallback) {
    const Symbol* symbol = SymbolAt(address);
    return symbol != nullptr ? Demangle(symbol->name) : fallback;
  }

  struct Symbol;
  const Symbol* SymbolAt(Dwarf_Addr address) {
    if (!symbols_built_) BuildSymbols();
    auto it = std::upper_bound(symbols_.begin(), symbols_.end(), address,
                               [](Dwarf_Addr a, const Symbol& s) { return a < s.start; });
    if (it == symbols_.begin()) return nullptr;
    --it;
    return address < it->end ? &*it : nullptr;
  }

  void BuildSymbols() {
    symbols_built_ = true;
    const int count = dwfl_module_getsymtab(module_);
    for (int i = 1; i < count; ++i) {  // symbol 0 is the null symbol
      GElf_Sym symbol;
      GElf_Addr address = 0;
      GElf_Word section = 0;
      Elf* elf = nullptr;
      Dwarf_Addr bias = 0;
      const char* name =
          dwfl_module_getsym_info(module_, i, &symbol, &address, &section, &elf, &bias);
      const int type = GELF_ST_TYPE(symbol.st_info);
      if (name == nullptr || *name == '\0' || section == SHN_UNDEF ||
          (type != STT_FUNC && type != STT_GNU_IFUNC)) {
        continue;
      }
      symbols_.push_back({address, address + symbol.st_size, name});
    }
    // By address; at one address a sized symbol before an unsized one.
    std::stable_sort(symbols_.begin(), symbols_.end(), [](const Symbol& a, const Symbol& b) {
      return a.start < b.start || (a.start == b.start && a.end > b.end);
    });
    // An unsized symbol (hand-written assembly) reaches to the next symbol.
    for (size_t i = 0; i < symbols_.size(); ++i) {
      if (symbols_[i].end == symbols_[i].start) {
        symbols_[i].end = i + 1 < symbols_.size() ? symbols_[i + 1].start : symbols_[i].start + 1;
      }
    }
  }

  // Where the inlined_subroutine `scope` was called from: DW_AT_call_file / DW_AT_call_line.
  static void CallSite(Dwarf_Die* cu, Dwarf_Die* scope, std::string& file, uint32_t& line) {
    Dwarf_Attribute attribute;
    Dwarf_Word value = 0;
    line = dwarf_formudata(dwarf_attr(scope, DW_AT_call_line, &attribute), &value) == 0
               ? static_cast<uint32_t>(value)
               : 0;
    file.clear();
    Dwarf_Files* files = nullptr;
    size_t file_count = 0;
    if (dwarf_formudata(dwarf_attr(scope, DW_AT_call_file, &attribute), &value) == 0 &&
        dwarf_getsrcfiles(cu, &files, &file_count) == 0 && value < file_count) {
      if (const char* name = dwarf_filesrc(files, value, nullptr, nullptr)) file = name;
    }
  }

  Location Frame(std::string name, const std::string& file, uint32_t line, bool inlined) const {
    if (name.empty()) name = std::string(Basename(path_)) + "!(no name)";
    return Location{.function = std::move(name),
                    .module = path_,
                    .file = file,
                    .line = line,
                    .kind = FrameKind::kNative,
                    .inlined = inlined};
  }

  struct Symbol {
    Dwarf_Addr start, end;
    const char* name;  // owned by libdwfl's module
  };
  struct CuRange {
    Dwarf_Addr low, high;
    Dwarf_Die cu;
  };

  Dwfl* dwfl_;
  Dwfl_Module* module_ = nullptr;
  Elf* elf_ = nullptr;  // the file itself, owned by module_
  bool symbols_built_ = false;
  std::vector<Symbol> symbols_;  // function symbols, sorted by start
  bool cu_ranges_built_ = false;
  std::vector<CuRange> cu_ranges_;                          // sorted by low
  std::unordered_map<Dwarf_Off, FunctionIndex> functions_;  // by the unit's DIE offset
  Dwarf_Addr max_range_ = 0;
  Dwarf_Addr dwarf_bias_ = 0;
  Dwarf_Addr bias_ = 0;
  std::string path_;
  std::vector<Load> loads_;
  std::optional<std::vector<session::KeptCode>> kept_code_;  // of a compact copy
};

// Offline reporting: the file is read from disk (and its debug file found by build-id or
// .gnu_debuglink under the debug path), never from a live process.
NativeSymbolizer::NativeSymbolizer()
    : callbacks_{
          .find_elf = dwfl_build_id_find_elf,
          .find_debuginfo = dwfl_standard_find_debuginfo,
          .section_address = dwfl_offline_section_address,
          .debuginfo_path = &debug_path_chars_,
      } {}

void NativeSymbolizer::SetDebugPath(std::string debug_path) {
  debug_path_ = std::move(debug_path);
  debug_path_chars_ = debug_path_.empty() ? nullptr : debug_path_.data();
}

NativeSymbolizer::~NativeSymbolizer() = default;

NativeSymbolizer::Module* NativeSymbolizer::FindModule(const std::string& path) {
  auto [it, inserted] = modules_.try_emplace(path);
  if (inserted) {
    it->second = Module::Open(path, &callbacks_);
    if (it->second == nullptr) unreadable_.push_back(path);
  }
  return it->second.get();
}

std::optional<NativeSymbolizer::Function> NativeSymbolizer::FunctionAt(const std::string& path,
                                                                       uint64_t file_offset) {
  Module* module = FindModule(path);
  return module != nullptr ? module->FunctionAt(file_offset) : std::nullopt;
}

std::vector<uint8_t> NativeSymbolizer::ReadBytes(const std::string& path, uint64_t file_offset,
                                                 uint64_t size) {
  Module* module = FindModule(path);
  return module != nullptr ? module->ReadBytes(file_offset, size) : std::vector<uint8_t>();
}

const std::vector<Location>& NativeSymbolizer::Symbolize(const std::string& path,
                                                         uint64_t file_offset) {
  auto [it, inserted] = cache_.try_emplace({path, file_offset});
  if (inserted) {
    if (Module* module = FindModule(path)) it->second = module->Symbolize(file_offset);
  }
  return it->second;
}

}  // namespace jitscope::report
