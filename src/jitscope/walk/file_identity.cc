// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/walk/file_identity.h"

#include <algorithm>

#include "jitscope/session/elf_build_id.h"

namespace jitscope::walk {

const std::string* FileIdentity::FileOf(const session::Mapping& mapping) {
  const std::string* file = &mapping.filename;
  if (auto copy = copies_.find({mapping.pid, mapping.filename}); copy != copies_.end()) {
    file = &copy->second;
  } else if (mapping.build_id.empty() && other_roots_.contains(mapping.pid)) {
    std::string unchecked = mapping.filename + " (pid " + std::to_string(mapping.pid) + ")";
    if (std::find(unchecked_.begin(), unchecked_.end(), unchecked) == unchecked_.end()) {
      unchecked_.push_back(std::move(unchecked));
    }
    return nullptr;
  }
  if (mapping.build_id.empty()) return file;
  auto [it, inserted] = now_.try_emplace(*file);
  if (inserted) it->second = session::BuildIdOfFile(*file);
  if (it->second == mapping.build_id) return file;
  const bool noted = std::any_of(replaced_.begin(), replaced_.end(),
                                 [&](const Replaced& r) { return r.path == *file; });
  if (!noted) replaced_.push_back({*file, mapping.build_id, it->second});
  return nullptr;
}

}  // namespace jitscope::walk
