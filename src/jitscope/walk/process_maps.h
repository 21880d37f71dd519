// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// What was mapped where, in which process, when: built from a session's MMAP and FORK records,
// asked "which mapping held this address of this process at this time". A forked child starts
// with its parent's mappings (the kernel records only the mappings made after the fork), so a
// lookup that finds nothing in the child continues in the parent as of the fork.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "jitscope/session/perf_record.h"

namespace jitscope::walk {

// Memory no file backs (session/perf_record.h): JIT code no JIT file describes, when executable.
using session::IsAnonymousMemory;

class ProcessMaps {
 public:
  // Both lists in time order (session::ReadSamplesFile sorts them).
  ProcessMaps(const std::vector<session::Mapping>& mappings,
              const std::vector<session::Task>& tasks);

  // The latest mapping of `pid` made at or before `time` that covers `address`, or nullptr.
  const session::Mapping* Find(uint32_t pid, uint64_t address, uint64_t time) const;
  // When `pid` first mapped a file of that name (its last path component): the time of its
  // earliest mapping; nullopt if it never mapped one.
  std::optional<uint64_t> FirstMappedFileNamed(uint32_t pid, std::string_view file_name) const;
  // When exec had mapped `pid`'s image: the time of its [vdso] mapping, which the kernel makes
  // after the program's and the dynamic loader's segments, else of its first mapping (0 if it
  // made none of its own). Until then a sample in the kernel's exec still holds the user
  // registers of the image exec replaced, whose mappings are not in the recording.
  uint64_t ImageMappedTime(uint32_t pid) const {
    auto it = by_pid_.find(pid);
    return it == by_pid_.end() ? 0 : it->second.image_mapped_time;
  }

 private:
  struct Parent {
    uint32_t pid;
    uint64_t fork_time;
  };
  // A process's mappings sorted by start address, and the longest one, which bounds how far
  // back from an address a lookup must look.
  struct Maps {
    std::vector<const session::Mapping*> by_start;
    uint64_t longest = 0;
    uint64_t image_mapped_time = 0;
  };
  std::map<uint32_t, Maps> by_pid_;
  std::map<uint32_t, Parent> parents_;
};

}  // namespace jitscope::walk
