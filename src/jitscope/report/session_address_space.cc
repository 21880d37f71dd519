// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/report/session_address_space.h"

namespace jitscope::report {

bool SessionAddressSpace::Find(uint64_t pc, unwind::ModuleAt& found) {
  const formats::Mapping* mapping = maps_.Find(pid_, pc, time_ns_);
  if (mapping == nullptr) return false;
  unwind::CfiModule* module = nullptr;
  if (mapping->filename.starts_with("/")) {
    module = ModuleFor(mapping->filename);
  } else if (mapping->filename == "[vdso]") {
    module = ModuleFor(vdso_path_);
  }
  if (module == nullptr) return false;
  uint64_t file_address = 0;
  if (!module->FileOffsetToAddress(pc - mapping->start + mapping->file_offset, file_address)) {
    return false;
  }
  found = {module, pc - file_address};
  return true;
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
