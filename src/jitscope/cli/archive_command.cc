// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/cli/archive_command.h"

#include "jitscope/record/archive.h"

namespace jitscope::cli {

int RunArchive(const ArchiveOptions& options, std::FILE* err, const char* who) {
  base::StatusOr<record::ArchiveResult> result = record::ArchiveSession(options.session);
  if (!result.ok()) {
    std::fprintf(err, "jitscope %s: error: %s\n", who, result.status().message().c_str());
    return 1;
  }
  for (const std::string& line : record::DescribeArchive(options.session, *result)) {
    std::fprintf(err, "jitscope %s: %s\n", who, line.c_str());
  }
  return 0;
}

}  // namespace jitscope::cli
