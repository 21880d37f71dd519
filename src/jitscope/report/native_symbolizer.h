// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Names addresses in mapped ELF files with elfutils: the ELF symbol (demangled), and — when the
// file or its separate debug file (found by build-id, as `eu-addr2line` does) has DWARF — the
// source file:line and the chain of inlined calls at the address. Offline: it reads the files
// named by the recorded MMAP records, never the live process, so it works after the process is
// gone as long as its files are still there.
#pragma once

#include <elfutils/libdwfl.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "jitscope/report/profile.h"

namespace jitscope::report {

class NativeSymbolizer {
 public:
  NativeSymbolizer();
  ~NativeSymbolizer();
  NativeSymbolizer(const NativeSymbolizer&) = delete;
  NativeSymbolizer& operator=(const NativeSymbolizer&) = delete;

  // The frames at `file_offset` of `path` (innermost inline frame first, the function that
  // holds the code last), or an empty vector when the file cannot be read as ELF or no symbol
  // covers the address. Results are cached per (file, offset).
  const std::vector<Location>& Symbolize(const std::string& path, uint64_t file_offset);

  // The function symbol whose code holds `file_offset` of `path`: where its code is in the file,
  // and its name as the symbol table has it (mangled; Demangle it to show it). nullopt when the
  // file cannot be read or no function symbol covers the offset.
  struct Function {
    uint64_t file_offset = 0;
    uint64_t size = 0;
    const char* symbol = nullptr;  // owned by the symbolizer
  };
  std::optional<Function> FunctionAt(const std::string& path, uint64_t file_offset);

  // Up to `size` bytes of `path`'s contents from `file_offset` (fewer where the file ends).
  std::vector<uint8_t> ReadBytes(const std::string& path, uint64_t file_offset, uint64_t size);

  // Where separate debug files are looked for, in elfutils' debuginfo_path syntax
  // (walk::FileIdentity::DebugPath: a session's archive first), for the files opened after; by
  // default elfutils' own.
  void SetDebugPath(std::string debug_path);

  // Files that could not be opened as ELF, for the report's warnings.
  const std::vector<std::string>& unreadable_files() const { return unreadable_; }

 private:
  class Module;
  Module* FindModule(const std::string& path);

  std::string debug_path_;
  char* debug_path_chars_ = nullptr;  // what callbacks_ points at: debug_path_'s, or nullptr
  Dwfl_Callbacks callbacks_;
  std::map<std::string, std::unique_ptr<Module>> modules_;  // nullptr: unreadable
  std::map<std::pair<std::string, uint64_t>, std::vector<Location>> cache_;
  std::vector<std::string> unreadable_;
};

// The demangled form of a C++ (Itanium ABI) symbol; other names unchanged.
std::string Demangle(const std::string& name);

}  // namespace jitscope::report
