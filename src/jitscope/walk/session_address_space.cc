// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/walk/session_address_space.h"

#include <algorithm>

namespace jitscope::walk {

namespace {

// HotSpot's library: a process that mapped it is a JVM, whose code named `Interpreter` is
// HotSpot's template interpreter.
constexpr std::string_view kJvmLibrary = "libjvm.so";

// How much of an ELF file a call's target is summarised from: V8's prologue builtin is 388 bytes;
// a path that runs past the window makes the effect unknown.
constexpr size_t kCalleeWindow = 4096;

}  // namespace

SessionAddressSpace::JitCode* SessionAddressSpace::JitCodeOfProcess() {
  if (sources_ == nullptr || !derived_) return nullptr;
  auto [it, inserted] = jit_code_.try_emplace(pid_);
  JitCode& code = it->second;
  if (inserted) {
    code.x86_64 = sources_->PointerSize(pid_) == 8;
    if (code.x86_64) {
      code.history = sources_->BuildCodeHistory(pid_);
      code.store = sources_->BuildCodeStore(pid_);
    }
  }
  return code.x86_64 ? &code : nullptr;
}

std::vector<unwind::CodeRegion> SessionAddressSpace::RegionsOf(
    const symbolize::CodeVersion& version, const JitCode& code,
    std::vector<symbolize::CodeBytes>& bytes) {
  // Each region's bytes as they were when it was reported, up to the first byte no file holds.
  std::vector<unwind::CodeRegion> regions;
  bytes.clear();
  bytes.reserve(version.regions.size());
  for (const symbolize::CodeVersion::Region& region : version.regions) {
    symbolize::CodeBytes& b =
        bytes.emplace_back(code.store.Read(region.address, region.size, region.loaded_ns));
    const size_t known =
        static_cast<size_t>(std::find(b.known.begin(), b.known.end(), false) - b.known.begin());
    regions.push_back({region.address, std::span<const uint8_t>(b.bytes.data(), known)});
  }
  return regions;
}

const symbolize::CodeVersion* SessionAddressSpace::JitVersionAt(uint64_t pc) {
  JitCode* code = JitCodeOfProcess();
  if (code == nullptr) return nullptr;
  return code->history.Find(pc, jit_time_ns_);
}

size_t SessionAddressSpace::ReadCode(uint64_t address, std::span<uint8_t> out) {
  JitCode* code = JitCodeOfProcess();
  if (code == nullptr) return 0;
  symbolize::CodeBytes bytes;
  if (const symbolize::CodeVersion* version = JitVersionAt(address)) {
    for (const symbolize::CodeVersion::Region& region : version->regions) {
      if (address - region.address >= region.size) continue;
      const uint64_t size = std::min<uint64_t>(out.size(), region.address + region.size - address);
      bytes = code->store.Read(address, size, region.loaded_ns);
      break;
    }
  } else if (InInterpreter(address)) {
    // HotSpot generates its interpreter once and never changes it, so any read of its code holds
    // the code every sample ran: one made after the sample (a perf map's code, which record reads
    // while it records) or a JVM agent's later report of it.
    bytes = code->store.Read(address, out.size(), symbolize::kLatest);
  }
  const size_t known = static_cast<size_t>(
      std::find(bytes.known.begin(), bytes.known.end(), false) - bytes.known.begin());
  std::copy_n(bytes.bytes.begin(), known, out.begin());
  return known;
}

const unwind::DerivedRules& SessionAddressSpace::RulesOf(const symbolize::CodeVersion& version) {
  if (const unwind::DerivedRules* rules = derived_->Find(&version)) return *rules;
  std::vector<symbolize::CodeBytes> bytes;
  const std::vector<unwind::CodeRegion> regions = RegionsOf(version, *JitCodeOfProcess(), bytes);
  // A perf map may name a blob of several functions as one (HotSpot's stub blobs); a JIT file's
  // code load is one function.
  const unwind::CodeBlock block =
      version.captured ? unwind::CodeBlock::kFunctionsEndToEnd : unwind::CodeBlock::kOneFunction;
  return derived_->Add(&version, regions, this, block);
}

unwind::CfiModule* SessionAddressSpace::SuppliedCfiOf(const symbolize::CodeVersion& version) {
  if (version.eh_frame.empty()) return nullptr;
  auto [it, inserted] = supplied_.try_emplace(&version);
  if (inserted) {
    auto module = unwind::CfiModule::FromEhFrame(version.eh_frame, version.eh_frame_address);
    if (module.ok()) it->second = std::move(*module);
    if (log_reads_ && it->second != nullptr) it->second->LogReads();
  }
  return it->second.get();
}

unwind::CfiModule* SessionAddressSpace::RegisteredCfiAt(uint64_t pc) {
  if (sources_ == nullptr) return nullptr;
  auto [it, inserted] = registered_.try_emplace(pid_);
  RegisteredCode& code = it->second;
  if (inserted) {
    for (const formats::FrameRegistration* registration : sources_->RegisteredFrames(pid_)) {
      for (const formats::CodeRange& range : registration->ranges) {
        code.by_begin.push_back({range, registration});
        code.longest = std::max(code.longest, range.end - range.begin);
      }
    }
    std::stable_sort(code.by_begin.begin(), code.by_begin.end(),
                     [](const auto& a, const auto& b) { return a.range.begin < b.range.begin; });
  }
  // Of the FDEs that hold pc, the latest registration's live at the lookup's time (any, when
  // the times cannot be compared: the latest, as JIT code is named).
  const formats::FrameRegistration* best = nullptr;
  auto fde =
      std::upper_bound(code.by_begin.begin(), code.by_begin.end(), pc,
                       [](uint64_t address, const auto& f) { return address < f.range.begin; });
  while (fde != code.by_begin.begin()) {
    --fde;
    if (pc - fde->range.begin >= code.longest) break;
    const formats::FrameRegistration& registration = *fde->registration;
    const bool live =
        jit_time_ns_ == symbolize::kLatest ||
        (registration.registered_ns <= jit_time_ns_ && jit_time_ns_ < registration.deregistered_ns);
    if (pc < fde->range.end && live &&
        (best == nullptr || registration.registered_ns > best->registered_ns)) {
      best = &registration;
    }
  }
  if (best == nullptr) return nullptr;
  auto [module, created] = registered_modules_.try_emplace(best);
  if (created) {
    auto read = unwind::CfiModule::FromEhFrame(best->eh_frame, best->address);
    if (read.ok()) module->second = std::move(*read);
  }
  return module->second.get();
}

const unwind::CallEffect* SessionAddressSpace::EffectOf(uint64_t target) {
  const JitCode* code = JitCodeOfProcess();
  if (code == nullptr) return nullptr;
  const unwind::CfiModule* module = nullptr;
  uint64_t file_address = 0;
  const symbolize::CodeVersion* version = code->history.Find(target, jit_time_ns_);
  if (version == nullptr) {
    const session::Mapping* mapping = maps_.Find(pid_, target, time_ns_);
    if (mapping == nullptr) return nullptr;
    module = ModuleOf(*mapping);
    if (module == nullptr || !module->is_64bit() ||
        !module->FileOffsetToAddress(target - mapping->start + mapping->file_offset,
                                     file_address)) {
      return nullptr;
    }
  }
  const auto key = version != nullptr ? std::pair<const void*, uint64_t>(version, target)
                                      : std::pair<const void*, uint64_t>(module, file_address);
  auto [it, inserted] = effects_.try_emplace(key);
  if (!inserted) return it->second ? &*it->second : nullptr;
  if (version != nullptr) {
    std::vector<symbolize::CodeBytes> bytes;
    const std::vector<unwind::CodeRegion> regions = RegionsOf(*version, *code, bytes);
    it->second = unwind::CallEffect::Of(derived_->decoder(), regions, target);
  } else {
    std::vector<uint8_t> window(kCalleeWindow);
    const std::span<uint8_t> bytes = module->ReadCodePrefix(file_address, window);
    const unwind::CodeRegion region{target, bytes};
    it->second = unwind::CallEffect::Of(derived_->decoder(), {&region, 1}, target);
  }
  return it->second ? &*it->second : nullptr;
}

bool SessionAddressSpace::InInterpreter(uint64_t pc) {
  if (sources_ == nullptr) return false;
  auto [it, inserted] = interpreters_.try_emplace(pid_);
  if (inserted) {
    if (const std::optional<uint64_t> jvm = maps_.FirstMappedFileNamed(pid_, kJvmLibrary)) {
      it->second = {*jvm, sources_->InterpreterCode(pid_)};
    }
  }
  const Interpreter& interpreter = it->second;
  if (time_ns_ < interpreter.since_ns) return false;
  for (const symbolize::SourceSet::CodeRange& range : interpreter.ranges) {
    if (pc - range.start < range.size) return true;
  }
  return false;
}

bool SessionAddressSpace::Find(uint64_t pc, unwind::ModuleAt& found) {
  if (InInterpreter(pc)) {
    found = {nullptr, 0, nullptr, /*interpreter=*/true};
    return true;
  }
  if (const symbolize::CodeVersion* version = JitVersionAt(pc)) {
    unwind::CfiModule* supplied = SuppliedCfiOf(*version);
    found = {supplied != nullptr ? supplied : RegisteredCfiAt(pc), 0, &RulesOf(*version)};
    found.captured = version->captured;
    return true;
  }
  const session::Mapping* mapping = maps_.Find(pid_, pc, time_ns_);
  if (mapping == nullptr || IsAnonymousMemory(mapping->filename)) {
    // JIT code no file recorded, which its engine may have described to the unwinder.
    if (unwind::CfiModule* registered = RegisteredCfiAt(pc)) {
      found = {registered, 0, nullptr};
      return true;
    }
  }
  if (mapping == nullptr) return false;
  unwind::CfiModule* module = ModuleOf(*mapping);
  if (module == nullptr) return false;
  uint64_t file_address = 0;
  if (!module->FileOffsetToAddress(pc - mapping->start + mapping->file_offset, file_address)) {
    return false;
  }
  found = {module, pc - file_address, nullptr};
  // Code of the file that its tables do not describe: rules derived from the file's bytes.
  if (derived_ && module->is_64bit() && module->Find(file_address) == nullptr) {
    found.derived = NativeRulesAt(*module, file_address, found.bias);
  }
  return true;
}

const unwind::DerivedRules* SessionAddressSpace::NativeRulesAt(unwind::CfiModule& module,
                                                               uint64_t file_address,
                                                               uint64_t bias) {
  const std::optional<formats::CodeRange> function = module.FunctionWithoutCfiAt(file_address);
  if (!function) return nullptr;
  // Keyed by where it runs: the same file may be mapped at other addresses in other processes.
  auto [it, inserted] = native_functions_.try_emplace({&module, bias, function->begin});
  const void* version = &it->first;
  if (!inserted) return derived_->Find(version);
  std::vector<uint8_t> bytes(function->end - function->begin);
  if (!module.ReadCode(function->begin, bytes)) return nullptr;
  const unwind::CodeRegion region{function->begin + bias, bytes};
  return &derived_->Add(version, {&region, 1}, this);
}

unwind::CfiModule* SessionAddressSpace::ModuleOf(const session::Mapping& mapping) {
  auto [it, inserted] = module_of_mapping_.try_emplace(&mapping);
  if (!inserted) return it->second;
  if (mapping.filename.starts_with("/")) {
    const std::string* file = files_ != nullptr ? files_->FileOf(mapping) : &mapping.filename;
    if (file != nullptr) it->second = ModuleFor(*file);
    if (it->second != nullptr) recorded_path_.try_emplace(it->second, mapping.filename);
  } else if (mapping.filename == "[vdso]") {
    it->second = ModuleFor(vdso_path_);
  }
  return it->second;
}

void SessionAddressSpace::ForEachFileModule(
    const std::function<void(const std::string& path, const unwind::CfiModule& module)>& visit)
    const {
  for (const auto& [module, path] : recorded_path_) visit(path, *module);
}

unwind::CfiModule* SessionAddressSpace::ModuleFor(const std::string& path) {
  auto [it, inserted] = modules_.try_emplace(path);
  if (inserted) {
    const std::string debug_path =
        files_ != nullptr ? files_->DebugPath() : unwind::CfiModule::kDefaultDebugPath;
    if (shared_modules_ != nullptr && !log_reads_) {
      it->second = shared_modules_->Open(path, debug_path);
    } else if (auto module = unwind::CfiModule::Open(path, debug_path); module.ok()) {
      it->second = std::move(*module);
      if (log_reads_) it->second->LogReads();
    }
  }
  return it->second.get();
}

}  // namespace jitscope::walk
