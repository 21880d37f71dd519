// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// What reporting a session reads of its ELF files: the symbols that name the addresses of its
// stacks, the unwind rows its walks look up, and the bytes of native code the walks read besides
// (whether a return address follows a call, what a function JIT code calls does to the stack, the
// entry point's first calls). A compact archive (`jitscope archive --compact`,
// record/compact_copy.h) keeps exactly these, so the session reports the same from it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "jitscope/base/status.h"

namespace jitscope::walk {

struct WalkedFile {
  // The file's addresses [start, end) whose bytes the walks read.
  std::vector<std::pair<uint64_t, uint64_t>> code;
  // The file's addresses whose unwind rows the walks read.
  std::vector<uint64_t> rows;
  // The file's addresses whose symbols and FDEs bound the functions found for code without CFI
  // (unwind::CfiModule::function_bounds_read).
  std::vector<uint64_t> function_bounds;
  // The offsets in the file of the addresses of the stacks, as report looks them up (a return
  // address one byte back): what it names.
  std::vector<uint64_t> named;
};

// Walks every sample of session `directory` as report does and returns what the walks and the
// names read of each ELF file, by its path as recorded.
base::StatusOr<std::map<std::string, WalkedFile>> WalkedFiles(const std::string& directory);

}  // namespace jitscope::walk
