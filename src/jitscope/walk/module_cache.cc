// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/walk/module_cache.h"

#include <sys/stat.h>

namespace jitscope::walk {

bool ModuleCache::Stamp::operator==(const Stamp& other) const {
  return device == other.device && inode == other.inode && size == other.size &&
         modified.tv_sec == other.modified.tv_sec && modified.tv_nsec == other.modified.tv_nsec;
}

ModuleCache::Stamp ModuleCache::StampOf(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};
  return {st.st_dev, st.st_ino, st.st_size, st.st_mtim};
}

std::shared_ptr<unwind::CfiModule> ModuleCache::Open(const std::string& path,
                                                     const std::string& debug_path) {
  const Stamp stamp = StampOf(path);
  auto [it, inserted] = entries_.try_emplace({path, debug_path});
  Entry& entry = it->second;
  if (!inserted && entry.stamp == stamp) return entry.module;
  entry.stamp = stamp;
  entry.module.reset();
  ++opens_;
  if (auto module = unwind::CfiModule::Open(path, debug_path); module.ok()) {
    entry.module = std::move(*module);
  }
  return entry.module;
}

}  // namespace jitscope::walk
