// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/cli/archive_command.h"

#include "jitscope/record/archive.h"
#include "jitscope/walk/walked_code.h"

namespace jitscope::cli {

int RunArchive(const ArchiveOptions& options, std::FILE* err, const char* who) {
  record::ArchiveOptions archive{.compact = options.compact};
  if (options.compact) {
    auto walked = walk::WalkedFiles(options.session);
    if (!walked.ok()) {
      std::fprintf(err, "jitscope %s: error: %s\n", who, walked.status().message().c_str());
      return 1;
    }
    for (const auto& [path, file] : *walked) {
      record::SessionParts& parts = archive.parts[path];
      for (const auto& [start, end] : file.code) record::AddCodeRange(parts.code, start, end);
      parts.rows = file.rows;
      parts.function_bounds = file.function_bounds;
      parts.named = file.named;
    }
  }
  base::StatusOr<record::ArchiveResult> result = record::ArchiveSession(options.session, archive);
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
