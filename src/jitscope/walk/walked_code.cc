// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/walk/walked_code.h"

#include <vector>

#include "jitscope/walk/recording.h"
#include "jitscope/walk/sample_walker.h"

namespace jitscope::walk {

base::StatusOr<std::map<std::string, WalkedFile>> WalkedFiles(const std::string& directory) {
  ASSIGN_OR_RETURN(Recording recording, ReadRecording(directory));
  const session::SampleData& data = recording.data;
  ASSIGN_OR_RETURN(const symbolize::SourceSet sources, OpenRecordingJitSources(recording, {}));
  SampleWalker walker(data, sources, recording.vdso_path, recording.latest_code);
  DescribeSessionFiles(recording, walker.files());
  walker.address_space().LogReads();
  std::map<std::string, WalkedFile> files;
  std::vector<StackAddress> stack;
  data.ForEachSample([&](const session::Sample& sample) {
    walker.Walk(sample, stack);
    for (const StackAddress& address : stack) {
      if (address.kernel) continue;
      const uint64_t pc = address.Lookup();
      const session::Mapping* mapping = walker.maps().Find(sample.pid, pc, sample.time_ns);
      if (mapping == nullptr || !mapping->filename.starts_with('/')) continue;
      files[mapping->filename].named.push_back(pc - mapping->start + mapping->file_offset);
    }
  });
  walker.address_space().ForEachFileModule([&](const std::string& path,
                                               const unwind::CfiModule& module) {
    WalkedFile& file = files[path];
    file.code.insert(file.code.end(), module.code_read().begin(), module.code_read().end());
    file.rows.insert(file.rows.end(), module.rows_read().begin(), module.rows_read().end());
    file.function_bounds.insert(file.function_bounds.end(), module.function_bounds_read().begin(),
                                module.function_bounds_read().end());
  });
  return files;
}

}  // namespace jitscope::walk
