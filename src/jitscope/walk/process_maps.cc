// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/walk/process_maps.h"

#include <algorithm>

namespace jitscope::walk {

ProcessMaps::ProcessMaps(const std::vector<session::Mapping>& mappings,
                         const std::vector<session::Task>& tasks) {
  for (const session::Mapping& mapping : mappings) {
    Maps& maps = by_pid_[mapping.pid];
    maps.by_start.push_back(&mapping);
    maps.longest = std::max(maps.longest, mapping.length);
  }
  for (auto& [pid, maps] : by_pid_) {
    uint64_t first = UINT64_MAX;
    uint64_t vdso = UINT64_MAX;
    for (const session::Mapping* mapping : maps.by_start) {
      first = std::min(first, mapping->time_ns);
      if (mapping->filename == "[vdso]") vdso = std::min(vdso, mapping->time_ns);
    }
    maps.image_mapped_time = vdso != UINT64_MAX ? vdso : first;
    // Stable: among mappings of one start, the later one stays later.
    std::stable_sort(
        maps.by_start.begin(), maps.by_start.end(),
        [](const session::Mapping* a, const session::Mapping* b) { return a->start < b->start; });
  }
  for (const session::Task& task : tasks) {
    // A new process (not a new thread of an existing one); the first fork of a pid counts.
    if (!task.exit && task.pid != task.ppid)
      parents_.try_emplace(task.pid, Parent{task.ppid, task.time_ns});
  }
}

const session::Mapping* ProcessMaps::Find(uint32_t pid, uint64_t address, uint64_t time) const {
  // Bounded: a pid reused in a fork cycle must not send us round forever.
  for (int depth = 0; depth < 64; ++depth) {
    if (auto it = by_pid_.find(pid); it != by_pid_.end()) {
      const Maps& maps = it->second;
      auto end =
          std::upper_bound(maps.by_start.begin(), maps.by_start.end(), address,
                           [](uint64_t a, const session::Mapping* m) { return a < m->start; });
      const session::Mapping* best = nullptr;
      for (auto m = end; m != maps.by_start.begin();) {
        const session::Mapping& mapping = **--m;
        if (address - mapping.start >= maps.longest) break;
        if (mapping.time_ns <= time && address - mapping.start < mapping.length &&
            (best == nullptr || mapping.time_ns >= best->time_ns)) {
          best = &mapping;
        }
      }
      if (best != nullptr) return best;
    }
    auto parent = parents_.find(pid);
    if (parent == parents_.end()) return nullptr;
    pid = parent->second.pid;
    time = std::min(time, parent->second.fork_time);
  }
  return nullptr;
}

std::optional<uint64_t> ProcessMaps::FirstMappedFileNamed(uint32_t pid,
                                                          std::string_view file_name) const {
  auto it = by_pid_.find(pid);
  if (it == by_pid_.end()) return std::nullopt;
  std::optional<uint64_t> first;
  for (const session::Mapping* mapping : it->second.by_start) {
    const std::string_view name = mapping->filename;
    if (name.size() > file_name.size() && name.ends_with(file_name) &&
        name[name.size() - file_name.size() - 1] == '/') {
      first = std::min(first.value_or(mapping->time_ns), mapping->time_ns);
    }
  }
  return first;
}

}  // namespace jitscope::walk
