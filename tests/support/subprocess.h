// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Test support: run a program with extra environment variables and capture its output. Tests
// drive the real binaries (the collector inside a client, the jitscope command) this way.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace jitscope::test_support {

struct ProcessResult {
  int exit_code = -1;  // -signal when killed by a signal
  std::string out;
  std::string err;
};

// A started child whose stdout is a pipe the caller reads; stderr goes to a file.
class Process {
 public:
  Process(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env) {
    std::map<std::string, std::string> merged;
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string entry = *e;
      const size_t eq = entry.find('=');
      if (eq != std::string::npos) merged[entry.substr(0, eq)] = entry.substr(eq + 1);
    }
    for (const auto& [key, value] : env) {
      if (value.empty()) {
        merged.erase(key);  // an empty value means "unset"
      } else {
        merged[key] = value;
      }
    }
    std::vector<std::string> env_strings;
    for (const auto& [key, value] : merged) env_strings.push_back(key + "=" + value);
    std::vector<char*> envp;
    for (auto& s : env_strings) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::vector<std::string> args = argv;
    std::vector<char*> argp;
    for (auto& s : args) argp.push_back(s.data());
    argp.push_back(nullptr);

    int out_pipe[2];
    if (::pipe2(out_pipe, O_CLOEXEC) != 0) std::abort();
    char err_path[] = "/tmp/jitscope-test-stderr.XXXXXX";
    err_fd_ = ::mkstemp(err_path);
    err_path_ = err_path;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err_fd_, STDERR_FILENO);
    if (::posix_spawn(&pid_, args[0].c_str(), &actions, nullptr, argp.data(), envp.data()) != 0) {
      pid_ = -1;
    }
    posix_spawn_file_actions_destroy(&actions);
    ::close(out_pipe[1]);
    out_fd_ = out_pipe[0];
  }
  ~Process() {
    if (pid_ > 0) Wait();
    ::close(out_fd_);
    ::close(err_fd_);
    ::unlink(err_path_.c_str());
  }

  pid_t pid() const { return pid_; }
  int stdout_fd() const { return out_fd_; }

  // Reads what is left on stdout, reaps the child, and returns everything.
  ProcessResult Wait() {
    ProcessResult result;
    char buffer[65536];
    for (;;) {
      const ssize_t n = ::read(out_fd_, buffer, sizeof(buffer));
      if (n > 0) {
        result.out.append(buffer, static_cast<size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      break;
    }
    int status = 0;
    if (pid_ > 0 && ::waitpid(pid_, &status, 0) == pid_) {
      result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
    }
    pid_ = -1;
    std::ifstream err(err_path_);
    std::stringstream ss;
    ss << err.rdbuf();
    result.err = ss.str();
    return result;
  }

 private:
  pid_t pid_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
  std::string err_path_;
};

inline ProcessResult RunProgram(const std::vector<std::string>& argv,
                                const std::map<std::string, std::string>& env = {}) {
  Process process(argv, env);
  return process.Wait();
}

// A scratch directory removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/jitscope-test.XXXXXX";
    if (::mkdtemp(pattern) == nullptr) std::abort();
    path_ = pattern;
  }
  ~TempDir() { std::system(("rm -rf '" + path_ + "'").c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// CPU time (user + system, in clock ticks) process `pid` has used, 0 if it has none.
inline long ProcessCpuTicks(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t paren = text.rfind(')');
  if (paren == std::string::npos) return 0;
  // Fields 14 and 15 (utime, stime) follow the command name, which ends at the last ')'.
  std::istringstream fields(text.substr(paren + 2));
  std::string field;
  long utime = 0, stime = 0;
  for (int i = 3; i <= 13; ++i) fields >> field;  // state … cmajflt
  fields >> utime >> stime;
  return utime + stime;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace jitscope::test_support
