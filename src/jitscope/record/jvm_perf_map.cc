// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/record/jvm_perf_map.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "jitscope/base/files.h"
#include "jitscope/formats/perf_map_writer.h"
#include "jitscope/record/jcmd.h"
#include "jitscope/record/proc_files.h"

namespace jitscope::record {
namespace {

// A code cache's map is a line per blob; this bounds what is copied from a file in /tmp.
constexpr size_t kMaxMapBytes = size_t{256} << 20;

}  // namespace

base::StatusOr<size_t> CaptureJvmPerfMap(pid_t pid, const std::string& session_dir,
                                         const ContainerFiles* container) {
  ASSIGN_OR_RETURN(JcmdResult jcmd, RunJcmd(pid, {"Compiler.perfmap"}));
  if (jcmd.exit_status != 0) {
    return base::Status::Error("jcmd %d Compiler.perfmap failed (exit status %d): %s", pid,
                               jcmd.exit_status, JcmdMessage(jcmd.output).c_str());
  }
  const std::string name = formats::PerfMapFileName(static_cast<uint32_t>(pid));
  std::string map;
  if (container != nullptr) {
    RETURN_IF_ERROR(container->CopyPerfMap(session_dir).status());
    ASSIGN_OR_RETURN(map, ReadProcFile(session_dir + "/" + name, kMaxMapBytes));
  } else {
    ASSIGN_OR_RETURN(map,
                     ReadProcFile(formats::PerfMapPath(static_cast<uint32_t>(pid)), kMaxMapBytes));
    RETURN_IF_ERROR(base::ReplaceFile(
        session_dir, name, [&](int fd) { return base::WriteAll(fd, map.data(), map.size()); }));
  }
  return static_cast<size_t>(std::count(map.begin(), map.end(), '\n'));
}

}  // namespace jitscope::record
