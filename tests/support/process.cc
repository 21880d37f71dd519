// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "support/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <thread>

#include "support/files.h"

extern char** environ;

namespace jitscope::test_support {
namespace {

// This process's environment without `unset`, with `env` set over it, as NAME=value strings.
std::vector<std::string> ChildEnvironment(const std::map<std::string, std::string>& env,
                                          const std::vector<std::string>& unset) {
  std::map<std::string, std::string> merged;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text = *entry;
    const size_t eq = text.find('=');
    if (eq != std::string::npos) merged[text.substr(0, eq)] = text.substr(eq + 1);
  }
  for (const std::string& name : unset) merged.erase(name);
  for (const auto& [name, value] : env) merged[name] = value;
  std::vector<std::string> strings;
  for (const auto& [name, value] : merged) strings.push_back(name + "=" + value);
  return strings;
}

void Close(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// Every byte of the file `fd` from its start.
std::string ReadAllFrom(int fd) {
  std::string content;
  char buffer[65536];
  for (off_t at = 0;;) {
    const ssize_t n = ::pread(fd, buffer, sizeof buffer, at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    content.append(buffer, static_cast<size_t>(n));
    at += n;
  }
  return content;
}

}  // namespace

std::string ProcessResult::Describe() const {
  std::string text = "`" + command + "` ";
  if (!started) {
    text += "could not start";
  } else if (timed_out) {
    text += "ran past its timeout and was killed";
  } else if (signal != 0) {
    text += "was ended by signal " + std::to_string(signal) + " (" + ::strsignal(signal) + ")";
  } else {
    text += "exited with " + std::to_string(exit_code);
  }
  return text + "\n--- stdout:\n" + out + "\n--- stderr:\n" + err;
}

Process::Process(const std::vector<std::string>& argv,
                 const std::map<std::string, std::string>& env, const RunOptions& options) {
  for (const std::string& arg : argv) result_.command += (result_.command.empty() ? "" : " ") + arg;
  if (argv.empty()) {
    result_.err = "no program to run";
    return;
  }
  std::vector<std::string> env_strings = ChildEnvironment(env, options.unset);
  std::vector<char*> envp;
  for (std::string& entry : env_strings) envp.push_back(entry.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = argv;
  std::vector<char*> argp;
  for (std::string& arg : args) argp.push_back(arg.data());
  argp.push_back(nullptr);

  int out_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    result_.err = std::string("pipe: ") + std::strerror(errno);
    return;
  }
  err_fd_ = ::memfd_create("stderr", MFD_CLOEXEC);
  if (err_fd_ < 0) {
    result_.err = std::string("memfd_create: ") + std::strerror(errno);
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    return;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_fd_, STDERR_FILENO);
  if (!options.cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, options.cwd.c_str());
  // The child starts as from a shell, whatever this test blocked or ignored.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none;
  sigset_t all;
  sigemptyset(&none);
  sigfillset(&all);
  sigdelset(&all, SIGKILL);
  sigdelset(&all, SIGSTOP);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &all);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  const int error = ::posix_spawnp(&pid_, argp[0], &actions, &attributes, argp.data(), envp.data());
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out_pipe[1]);
  if (error != 0) {
    pid_ = -1;
    ::close(out_pipe[0]);
    result_.err = "cannot run " + argv[0] + ": " + std::strerror(error);
    return;
  }
  result_.started = true;
  out_fd_ = out_pipe[0];
  has_deadline_ = options.timeout.count() > 0;
  deadline_ = std::chrono::steady_clock::now() + options.timeout;
}

Process::~Process() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  Close(out_fd_);
  Close(err_fd_);
}

ProcessResult Process::Wait() {
  if (pid_ <= 0) return result_;
  using Clock = std::chrono::steady_clock;
  const auto kill_for_timeout = [this] {
    ::kill(pid_, SIGKILL);
    result_.timed_out = true;
  };
  char buffer[65536];
  while (out_fd_ >= 0) {
    int wait_ms = -1;
    if (has_deadline_) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline_ - Clock::now());
      if (left.count() <= 0) {
        kill_for_timeout();
        break;  // whatever still holds the pipe (a grandchild) is not waited for
      }
      wait_ms = static_cast<int>(std::min<int64_t>(left.count(), 1000 * 1000));
    }
    pollfd ready{out_fd_, POLLIN, 0};
    const int n_ready = ::poll(&ready, 1, wait_ms);
    if (n_ready < 0 && errno != EINTR) break;
    if (n_ready <= 0) continue;
    const ssize_t n = ::read(out_fd_, buffer, sizeof buffer);
    if (n > 0) {
      result_.out.append(buffer, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  Close(out_fd_);

  int status = 0;
  for (;;) {
    // With a deadline the child is polled for (it may have closed stdout and run on);
    // without one, waited for.
    const bool poll_child = has_deadline_ && !result_.timed_out;
    const pid_t reaped = ::waitpid(pid_, &status, poll_child ? WNOHANG : 0);
    if (reaped == pid_) break;
    if (reaped < 0 && errno != EINTR) {
      result_.err = std::string("waitpid: ") + std::strerror(errno);
      pid_ = -1;
      return result_;
    }
    if (poll_child && reaped == 0) {
      if (Clock::now() >= deadline_) {
        kill_for_timeout();
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
  }
  pid_ = -1;
  if (WIFEXITED(status)) result_.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result_.signal = WTERMSIG(status);
  result_.err = ReadAllFrom(err_fd_);
  Close(err_fd_);
  return result_;
}

pid_t WaitForChild(pid_t parent, const std::string& comm, long ticks) {
  const std::string children =
      "/proc/" + std::to_string(parent) + "/task/" + std::to_string(parent) + "/children";
  pid_t child = 0;
  for (int i = 0; i < 600; ++i, ::usleep(100 * 1000)) {
    if (child <= 0) child = std::atoi(ReadFile(children).c_str());
    if (child > 0 && ReadFile("/proc/" + std::to_string(child) + "/comm") == comm + "\n" &&
        ProcessCpuTicks(child) >= ticks) {
      return child;
    }
  }
  return 0;
}

long ProcessCpuTicks(pid_t pid) {
  const std::string text = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  const size_t paren = text.rfind(')');
  if (paren == std::string::npos || paren + 2 > text.size()) return 0;
  // Fields 14 and 15 (utime, stime) follow the command name, which ends at the last ')'.
  std::istringstream fields(text.substr(paren + 2));
  std::string field;
  long utime = 0, stime = 0;
  for (int i = 3; i <= 13; ++i) fields >> field;  // state … cmajflt
  fields >> utime >> stime;
  return utime + stime;
}

bool WaitForCpuTime(pid_t pid, double seconds) {
  const long until = ProcessCpuTicks(pid) +
                     static_cast<long>(seconds * static_cast<double>(::sysconf(_SC_CLK_TCK)) + 0.5);
  // Ended: gone, or a zombie (state Z, after the command name's last ')').
  auto ended = [pid] {
    const std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
    const size_t paren = stat.rfind(')');
    return paren == std::string::npos || paren + 2 >= stat.size() || stat[paren + 2] == 'Z';
  };
  for (int i = 0; i < 6000; ++i, ::usleep(10 * 1000)) {
    if (ProcessCpuTicks(pid) >= until) return true;
    if (ended()) return false;
  }
  return false;
}

ProcessResult RunProgram(const std::vector<std::string>& argv,
                         const std::map<std::string, std::string>& env, const RunOptions& options) {
  Process process(argv, env, options);
  return process.Wait();
}

}  // namespace jitscope::test_support
