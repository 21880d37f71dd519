// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The unwinder's view of a recorded process (unwind::AddressSpace): which code held a pc at the
// sample's time.
//  - JIT code for which the engine supplied unwind tables (a jitdump's UNWINDING_INFO, or else
//    the .eh_frame it registered with __register_frame, live at the sample's time and describing
//    the pc: formats/registered_frames.h): their rows, where they have one; elsewhere, as for all
//    JIT code, the rules below. Registered tables also serve JIT code no file recorded, in
//    anonymous memory.
//  - JIT code whose bytes the process's files recorded: the rules derived from the bytes
//    (unwind/derived_rules.h) of its code version (symbolize::CodeHistory: the function's regions
//    as loaded; symbolize::CodeStore: their bytes then), computed once per version. A 32-bit
//    process's code is not analysed (the analysis decodes x86-64). Code a perf map names, read
//    while recording, is analysed as functions laid end to end (unwind::CodeBlock): HotSpot
//    names a blob of many stubs, its call stub among them, as one.
//  - An ELF file, from the session's MMAP records, with the file's CFI opened once per path. The
//    vDSO is the image the session kept (session::kVdsoFileName), or for a perf.data the one
//    perf's build-id cache holds. Code of the file that its CFI does not describe (V8's embedded
//    builtins in the node binary, hand-written assembly, a stripped static function) gets rules
//    derived from the file's bytes, function by function (unwind/elf_functions.h), checked by
//    the walk as JIT code's are.
//  - HotSpot's template interpreter, in a process that mapped libjvm.so: the code its JIT files
//    name `Interpreter` (symbolize::SourceSet::InterpreterCode; from a perf map too, without
//    bytes), walked by its frame layout (unwind/hotspot_interpreter.h), whatever else describes it.
// Anything else — anonymous memory, JIT code without recorded bytes, a file that is gone — has
// no rules, so a walk stops there with "no rule".
//
// The analysis of JIT code asks what its direct calls do (unwind::CallTargets): the code at a
// call's target, JIT code by its recorded bytes or an ELF file's (V8 runs its builtins from a
// mapping of node's own file), is summarised once per target (unwind/call_effect.h).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "jitscope/symbolize/code_history.h"
#include "jitscope/symbolize/source_set.h"
#include "jitscope/unwind/call_effect.h"
#include "jitscope/unwind/derived_rules.h"
#include "jitscope/unwind/unwinder.h"
#include "jitscope/walk/file_identity.h"
#include "jitscope/walk/module_cache.h"
#include "jitscope/walk/process_maps.h"

namespace jitscope::walk {

class SessionAddressSpace : public unwind::AddressSpace, private unwind::CallTargets {
 public:
  // `sources` (may be nullptr: no JIT rules) and `files` (may be nullptr: every file taken as it
  // is) must outlive this object. A file `files` finds replaced since the recording gives no
  // rules.
  SessionAddressSpace(const ProcessMaps& maps, std::string vdso_path,
                      const symbolize::SourceSet* sources, FileIdentity* files = nullptr)
      : maps_(maps),
        vdso_path_(std::move(vdso_path)),
        sources_(sources),
        files_(files),
        derived_(unwind::DerivedRulesCache::Create()) {}

  // The process and time the next lookups are for: `time_ns` on the samples' clock (the
  // mappings), `jit_time_ns` on the JIT files' (symbolize::kLatest when the two cannot be
  // compared).
  void At(uint32_t pid, uint64_t time_ns, uint64_t jit_time_ns) {
    pid_ = pid;
    time_ns_ = time_ns;
    jit_time_ns_ = jit_time_ns;
  }

  bool Find(uint64_t pc, unwind::ModuleAt& found) override;
  // JIT code's bytes, as the code version at the time the lookups are for holds them; HotSpot's
  // interpreter's as any read of it holds them (it never changes).
  size_t ReadCode(uint64_t address, std::span<uint8_t> out) override;

  // Has the ELF files' modules opened from now on log what the walks read of them
  // (unwind::CfiModule::LogReads). Those are opened for this object alone, not shared.
  void LogReads() { log_reads_ = true; }
  // Takes the ELF files' modules from `modules` (which must outlive this object) from now on,
  // instead of opening them for this object alone: walkers of the same files one after another
  // open each once.
  void ShareModules(ModuleCache* modules) { shared_modules_ = modules; }
  // Calls `visit` with each ELF file's module the walks opened so far and the file's path as the
  // recording named it: what they read of it (unwind::CfiModule::code_read, rows_read).
  void ForEachFileModule(const std::function<void(const std::string& path,
                                                  const unwind::CfiModule& module)>& visit) const;

 private:
  struct JitCode;
  const unwind::CallEffect* EffectOf(uint64_t target) override;
  // The process's JIT code, read from its files at first use; nullptr when it is not analysed.
  JitCode* JitCodeOfProcess();
  // A version's regions with the bytes the files hold, up to the first one they do not.
  static std::vector<unwind::CodeRegion> RegionsOf(const symbolize::CodeVersion& version,
                                                   const JitCode& code,
                                                   std::vector<symbolize::CodeBytes>& bytes);
  // The module of a mapping's file, looked up once per mapping (a walk meets the same few
  // mappings at every step): nullptr when it has none, or it is not the file recorded.
  unwind::CfiModule* ModuleOf(const session::Mapping& mapping);
  unwind::CfiModule* ModuleFor(const std::string& path);
  // The rules derived from the bytes of the function of `module` that holds `file_address`, which
  // its CFI does not describe, where it runs at `bias` from its file addresses; nullptr: none.
  const unwind::DerivedRules* NativeRulesAt(unwind::CfiModule& module, uint64_t file_address,
                                            uint64_t bias);
  // The version of the process's JIT code that held `pc`, or nullptr.
  const symbolize::CodeVersion* JitVersionAt(uint64_t pc);
  // Whether `pc` is in HotSpot's interpreter at the lookup's time.
  bool InInterpreter(uint64_t pc);
  const unwind::DerivedRules& RulesOf(const symbolize::CodeVersion& version);
  // The unwind tables the engine supplied for `version`, read once; nullptr when it supplied
  // none that read.
  unwind::CfiModule* SuppliedCfiOf(const symbolize::CodeVersion& version);
  // The latest registered .eh_frame of the process that was live at the lookup's time and has
  // an FDE for `pc`, read once; nullptr when there is none, or it does not read.
  unwind::CfiModule* RegisteredCfiAt(uint64_t pc);

  const ProcessMaps& maps_;
  std::string vdso_path_;
  uint32_t pid_ = 0;
  uint64_t time_ns_ = 0;
  uint64_t jit_time_ns_ = 0;
  std::map<std::string, std::shared_ptr<unwind::CfiModule>> modules_;  // nullptr: unreadable
  ModuleCache* shared_modules_ = nullptr;
  std::unordered_map<const session::Mapping*, unwind::CfiModule*> module_of_mapping_;
  std::map<const unwind::CfiModule*, std::string> recorded_path_;  // of each file module
  bool log_reads_ = false;
  const symbolize::SourceSet* sources_;
  FileIdentity* files_;
  struct JitCode {
    bool x86_64 = true;
    symbolize::CodeHistory history;
    symbolize::CodeStore store;
  };
  std::map<uint32_t, JitCode> jit_code_;              // by pid, built at first use
  std::optional<unwind::DerivedRulesCache> derived_;  // nullopt: no decoder
  std::unordered_map<const symbolize::CodeVersion*, std::unique_ptr<unwind::CfiModule>> supplied_;
  // A process's registered FDEs, by the start of the code each describes.
  struct RegisteredCode {
    struct Fde {
      formats::CodeRange range;
      const formats::FrameRegistration* registration;
    };
    std::vector<Fde> by_begin;
    uint64_t longest = 0;
  };
  std::map<uint32_t, RegisteredCode> registered_;  // by pid, built at first use
  // A JVM's interpreter code, by pid, found at first use (no ranges: not a JVM, or none named),
  // and when the process mapped libjvm.so, on the samples' clock (before it, the process was no
  // JVM yet: a pid that a shell's `exec java` reused).
  struct Interpreter {
    uint64_t since_ns = 0;
    std::vector<symbolize::SourceSet::CodeRange> ranges;
  };
  std::map<uint32_t, Interpreter> interpreters_;
  std::unordered_map<const formats::FrameRegistration*, std::unique_ptr<unwind::CfiModule>>
      registered_modules_;
  // By the code that holds the target (a CodeVersion or a CfiModule) and the target's address in
  // it; nullopt: a call there keeps to the ABI.
  std::map<std::pair<const void*, uint64_t>, std::optional<unwind::CallEffect>> effects_;
  // The functions of ELF files whose rules were derived, by module, bias and start: each key's
  // address names its rules in derived_.
  std::map<std::tuple<const unwind::CfiModule*, uint64_t, uint64_t>, bool> native_functions_;
};

}  // namespace jitscope::walk
