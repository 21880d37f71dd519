// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Which code version held an address of a sampled process, and what annotation reads of a
// version: its bytes and the source of each instruction.
//  - JIT code: through the process's symbol index at the sample's time. A version is one region
//    from one load to its end (symbolize/symbol_index.h's MatchedRegion), so a re-JIT at the
//    same address, a tier change or an update is another version; its bytes are what the files
//    recorded when it was loaded (symbolize/code_store.h).
//  - Native code: through the function symbol of the mapped ELF file that holds the address
//    (NativeSymbolizer). A version is the function as the process mapped it; its bytes and its
//    source lines (with inline chains) come from the file and its DWARF.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "jitscope/report/native_symbolizer.h"
#include "jitscope/symbolize/code_store.h"
#include "jitscope/symbolize/symbol_index.h"
#include "jitscope/walk/file_identity.h"
#include "jitscope/walk/process_maps.h"

namespace jitscope::report {

// What tells two versions apart.
struct VersionKey {
  uint32_t pid = 0;
  bool native = false;
  uint64_t start = 0;
  uint64_t loaded_ns = 0;  // JIT: the region's load; native: when the file was mapped
  auto operator<=>(const VersionKey&) const = default;
};

// One version of a function's code, as annotation shows it, and the samples that landed in it
// (not symbolize::CodeVersion, the collector's account of a method's regions, which the walk
// derives unwinding rules from: a SampledVersion of JIT code is one region of one of those).
struct SampledVersion {
  uint32_t pid = 0;
  bool native = false;
  std::string name;  // the top-level function's; "[jit 0x...]" when the engine gave none
  std::optional<uint64_t> method_id;
  std::string module;        // JIT: the engine's module ("" when none); native: the ELF file's path
  std::string file;          // native: the file read for its code, `module` or its copy
  uint64_t file_offset = 0;  // native: where the code starts in `module`
  uint64_t start = 0;
  uint64_t size = 0;
  uint64_t loaded_ns = 0;
  uint64_t invalidated_ns = symbolize::kForever;
  uint64_t samples = 0;                     // samples whose leaf is in this version
  uint64_t last_seen_ns = 0;                // the last sample in it or below a call of it
  std::map<uint64_t, uint64_t> samples_at;  // leaf address → samples
  // Return address into this version → samples with it in their stack (each sample once).
  std::map<uint64_t, uint64_t> calls_at;
  VersionKey key() const { return {pid, native, start, loaded_ns}; }
  bool operator==(const SampledVersion&) const = default;
};

// One frame of the source an instruction came from.
struct SourceFrame {
  std::string function;
  std::string file;  // "" when unknown
  uint32_t line = 0;
  bool inlined = false;
  bool operator==(const SourceFrame&) const = default;
};

class CodeLocator {
 public:
  using IndexOf = std::function<const symbolize::SymbolIndex&(uint32_t pid)>;
  using CodeOf = std::function<const symbolize::CodeStore&(uint32_t pid)>;

  // `latest_code`: the samples' times cannot be compared with the JIT files' (perf record
  // without -k 1), so JIT code is the latest at its address. `maps` and `native` may be nullptr
  // (JIT code only), `files` too (every file taken as it is); they must outlive the locator. A
  // file `files` finds replaced since the recording holds no version.
  CodeLocator(IndexOf index_of, CodeOf code_of, bool latest_code, const walk::ProcessMaps* maps,
              NativeSymbolizer* native, walk::FileIdentity* files = nullptr)
      : index_of_(std::move(index_of)),
        code_of_(std::move(code_of)),
        latest_code_(latest_code),
        maps_(maps),
        native_(native),
        files_(files) {}

  // The version that held `address` of process `pid` at `time_ns` (the samples' clock); nullopt
  // for code no version describes (anonymous memory, a file without a symbol there, the kernel).
  std::optional<VersionKey> Locate(uint32_t pid, uint64_t address, uint64_t time_ns);
  // The version Locate found for the same arguments, named, without samples.
  SampledVersion Describe(uint32_t pid, uint64_t address, uint64_t time_ns);

  // `size` bytes of the version's code from its start, as recorded or as in its file.
  symbolize::CodeBytes Code(const SampledVersion& version, uint64_t size);
  // The source of the instruction at `address` of the version, innermost frame first; empty
  // when unknown.
  std::vector<SourceFrame> SourceAt(const SampledVersion& version, uint64_t address);

 private:
  uint64_t JitTime(uint64_t time_ns) const { return latest_code_ ? symbolize::kLatest : time_ns; }
  struct NativeHit {
    const session::Mapping* mapping;
    const std::string* file;  // what walk::FileIdentity::FileOf gave for it
    NativeSymbolizer::Function function;
    uint64_t start;  // the function's address in the process
  };
  std::optional<NativeHit> FindNative(uint32_t pid, uint64_t address, uint64_t time_ns);

  IndexOf index_of_;
  CodeOf code_of_;
  const bool latest_code_;
  const walk::ProcessMaps* maps_;
  NativeSymbolizer* native_;
  walk::FileIdentity* files_;
  symbolize::Resolution resolution_;
};

}  // namespace jitscope::report
