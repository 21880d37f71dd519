// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/record/vdso.h"

#include <cinttypes>
#include <cstdio>
#include <fstream>

#include "jitscope/base/files.h"
#include "jitscope/base/scoped_resource.h"
#include "jitscope/session/samples_file.h"

namespace jitscope::record {

base::Status SaveVdso(const std::string& directory) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  uintptr_t start = 0, end = 0;
  while (std::getline(maps, line)) {
    if (line.ends_with("[vdso]") &&
        std::sscanf(line.c_str(), "%" SCNxPTR "-%" SCNxPTR, &start, &end) == 2) {
      break;
    }
  }
  if (end <= start) return base::Status::Error("this process has no [vdso] mapping");
  ASSIGN_OR_RETURN(base::ScopedFd fd,
                   base::CreateExclusive(directory, session::kVdsoFileName, 0600));
  return base::WriteAll(fd.get(), reinterpret_cast<const void*>(start), end - start);
}

}  // namespace jitscope::record
