// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/record/jcmd.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>

#include "jitscope/base/scoped_resource.h"

extern char** environ;

namespace jitscope::record {
namespace {

std::string ExecutableOf(pid_t pid) {
  char target[PATH_MAX];
  const std::string link = "/proc/" + std::to_string(pid) + "/exe";
  const ssize_t n = ::readlink(link.c_str(), target, sizeof(target) - 1);
  return n > 0 ? std::string(target, static_cast<size_t>(n)) : std::string();
}

// The JVM's own jcmd, or "jcmd" to be found on PATH.
std::string JcmdFor(pid_t pid) {
  const std::string java = ExecutableOf(pid);
  const size_t slash = java.rfind('/');
  if (slash == std::string::npos) return "jcmd";
  std::string sibling = java.substr(0, slash + 1) + "jcmd";
  return ::access(sibling.c_str(), X_OK) == 0 ? sibling : "jcmd";
}

// Reads `fd` to its end, keeping the first kMaxJcmdOutput bytes: the rest is drained so that
// jcmd never blocks on a full pipe.
base::Status ReadOutput(int fd, std::string& output) {
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n == 0) return base::Status::Ok();
    if (n < 0) {
      if (errno == EINTR) continue;
      return base::Status::Errno(errno, "reading jcmd's output");
    }
    const size_t room = kMaxJcmdOutput - std::min(kMaxJcmdOutput, output.size());
    output.append(buffer, std::min(room, static_cast<size_t>(n)));
  }
}

}  // namespace

bool IsJavaVm(pid_t pid) {
  const std::string path = ExecutableOf(pid);
  return !path.empty() && path.substr(path.rfind('/') + 1) == "java";
}

base::StatusOr<JcmdResult> RunJcmd(pid_t pid, const std::vector<std::string>& arguments) {
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0) return base::Status::Errno(errno, "pipe2");
  base::ScopedFd read_end(ends[0]);
  base::ScopedFd write_end(ends[1]);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, write_end.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, write_end.get(), STDERR_FILENO);
  const std::string jcmd = JcmdFor(pid);
  std::vector<std::string> words = {jcmd, std::to_string(pid)};
  words.insert(words.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  pid_t child = 0;
  const int error = ::posix_spawnp(&child, jcmd.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) return base::Status::Errno(error, "cannot run jcmd (a JDK's, on PATH)");
  write_end.reset();  // the child's copies are the only writers left: EOF when it ends
  JcmdResult result;
  base::Status read_status = ReadOutput(read_end.get(), result.output);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) return base::Status::Errno(errno, "waiting for jcmd");
  }
  RETURN_IF_ERROR(read_status);
  result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

std::string JcmdMessage(const std::string& output) {
  std::string message;
  size_t start = 0;
  while (start < output.size()) {
    size_t end = output.find('\n', start);
    if (end == std::string::npos) end = output.size();
    std::string line = output.substr(start, end - start);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    // jcmd's "PID:" first, and the stack trace under an exception's message, say nothing.
    const bool pid_line = start == 0 && !line.empty() && line.back() == ':' &&
                          line.find_first_not_of("0123456789") == line.size() - 1;
    const bool indented = !line.empty() && (line.front() == '\t' || line.front() == ' ');
    if (!line.empty() && !pid_line && !indented) {
      message += (message.empty() ? "" : "; ") + line;
    }
    start = end + 1;
  }
  return message;
}

}  // namespace jitscope::record
