// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/record/jvm_perf_map.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>

#include "jitscope/base/files.h"
#include "jitscope/formats/perf_map_writer.h"
#include "jitscope/record/proc_files.h"

extern char** environ;

namespace jitscope::record {
namespace {

// A code cache's map is a line per blob; this bounds what is copied from a file in /tmp.
constexpr size_t kMaxMapBytes = size_t{256} << 20;

// Runs `jcmd PID Compiler.perfmap` with its output discarded; returns its exit status.
base::StatusOr<int> RunJcmd(pid_t pid) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  const std::string target = std::to_string(pid);
  char jcmd[] = "jcmd";
  char command[] = "Compiler.perfmap";
  char* argv[] = {jcmd, const_cast<char*>(target.c_str()), command, nullptr};
  pid_t child = 0;
  const int error = ::posix_spawnp(&child, "jcmd", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) return base::Status::Errno(error, "cannot run jcmd (a JDK's, on PATH)");
  int status = 0;
  while (::waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) return base::Status::Errno(errno, "waiting for jcmd");
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

bool IsJavaVm(pid_t pid) {
  char target[PATH_MAX];
  const std::string link = "/proc/" + std::to_string(pid) + "/exe";
  const ssize_t n = ::readlink(link.c_str(), target, sizeof(target) - 1);
  if (n <= 0) return false;
  const std::string path(target, static_cast<size_t>(n));
  return path.substr(path.rfind('/') + 1) == "java";
}

base::StatusOr<size_t> CaptureJvmPerfMap(pid_t pid, const std::string& session_dir) {
  ASSIGN_OR_RETURN(int status, RunJcmd(pid));
  if (status != 0) {
    return base::Status::Error("jcmd %d Compiler.perfmap failed (exit status %d)", pid, status);
  }
  const std::string source = formats::PerfMapPath(static_cast<uint32_t>(pid));
  ASSIGN_OR_RETURN(std::string map, ReadProcFile(source, kMaxMapBytes));
  const std::string name = formats::PerfMapFileName(static_cast<uint32_t>(pid));
  const std::string partial = name + ".partial";
  ::unlinkat(AT_FDCWD, (session_dir + "/" + partial).c_str(), 0);
  ASSIGN_OR_RETURN(base::ScopedFd fd, base::CreateExclusive(session_dir, partial));
  RETURN_IF_ERROR(base::WriteAll(fd.get(), map.data(), map.size()));
  if (::rename((session_dir + "/" + partial).c_str(), (session_dir + "/" + name).c_str()) != 0) {
    return base::Status::Errno(errno, "%s/%s", session_dir.c_str(), name.c_str());
  }
  return static_cast<size_t>(std::count(map.begin(), map.end(), '\n'));
}

}  // namespace jitscope::record
