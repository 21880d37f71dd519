// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/report/session_address_space.h"

#include <algorithm>

namespace jitscope::report {

const unwind::DerivedRules* SessionAddressSpace::JitRulesAt(uint64_t pc) {
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
  if (!code.x86_64) return nullptr;
  const symbolize::CodeVersion* version = code.history.Find(pc, jit_time_ns_);
  if (version == nullptr) return nullptr;
  if (const unwind::DerivedRules* rules = derived_->Find(version)) return rules;
  // Each region's bytes as they were when it was reported, up to the first byte no file holds.
  std::vector<symbolize::CodeBytes> bytes;
  std::vector<unwind::CodeRegion> regions;
  bytes.reserve(version->regions.size());
  for (const symbolize::CodeVersion::Region& region : version->regions) {
    symbolize::CodeBytes& b =
        bytes.emplace_back(code.store.Read(region.address, region.size, region.loaded_ns));
    const size_t known =
        static_cast<size_t>(std::find(b.known.begin(), b.known.end(), false) - b.known.begin());
    regions.push_back({region.address, std::span<const uint8_t>(b.bytes.data(), known)});
  }
  return &derived_->Add(version, regions);
}

bool SessionAddressSpace::Find(uint64_t pc, unwind::ModuleAt& found) {
  if (const unwind::DerivedRules* rules = JitRulesAt(pc)) {
    found = {nullptr, 0, rules};
    return true;
  }
  const formats::Mapping* mapping = maps_.Find(pid_, pc, time_ns_);
  if (mapping == nullptr) return false;
  unwind::CfiModule* module = ModuleOf(*mapping);
  if (module == nullptr) return false;
  uint64_t file_address = 0;
  if (!module->FileOffsetToAddress(pc - mapping->start + mapping->file_offset, file_address)) {
    return false;
  }
  found = {module, pc - file_address, nullptr};
  return true;
}

unwind::CfiModule* SessionAddressSpace::ModuleOf(const formats::Mapping& mapping) {
  auto [it, inserted] = module_of_mapping_.try_emplace(&mapping);
  if (!inserted) return it->second;
  if (mapping.filename.starts_with("/")) {
    const std::string* file = files_ != nullptr ? files_->FileOf(mapping) : &mapping.filename;
    if (file != nullptr) it->second = ModuleFor(*file);
  } else if (mapping.filename == "[vdso]") {
    it->second = ModuleFor(vdso_path_);
  }
  return it->second;
}

unwind::CfiModule* SessionAddressSpace::ModuleFor(const std::string& path) {
  auto [it, inserted] = modules_.try_emplace(path);
  if (inserted) {
    auto module = unwind::CfiModule::Open(path);
    if (module.ok()) it->second = std::move(*module);
  }
  return it->second.get();
}

}  // namespace jitscope::report
