// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Test support: run a program the way a user would (the collector inside a client, the jitscope
// command, perf, a compiler) and look at what it did: its output, and how it ended. The one
// process runner of the tests.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace jitscope::test_support {

// How a program ended and what it printed. Exactly one of three: it exited (`exit_code` is its
// status, `signal` 0), a signal ended it (`signal` is that signal, `exit_code` -1; also when the
// runner killed it for running past its timeout, with `timed_out`), or it never started
// (`started` false, `exit_code` -1, `err` says why).
struct ProcessResult {
  std::string command;  // the argv, space-separated, for messages
  bool started = false;
  int exit_code = -1;
  int signal = 0;
  bool timed_out = false;
  std::string out;  // stdout
  std::string err;  // stderr

  bool exited() const { return started && signal == 0; }
  bool ok() const { return exited() && exit_code == 0; }
  // "`command` exited with 1", "... was ended by signal 9 (Killed)", "... did not finish within
  // 30 s", "... could not start", each followed by stdout and stderr: for failure messages.
  std::string Describe() const;
};

// What RunProgram and Process do besides passing the environment.
// (Every member has an initializer, so callers name only what they set: {.cwd = dir}.)
struct RunOptions {
  std::vector<std::string> unset = {};  // variables removed from this process's environment
  std::string cwd = {};                 // the directory it runs in; "" for this process's
  std::chrono::seconds timeout{0};      // 0: none; else SIGKILLed when it runs longer (timed_out)
};

// A started program. argv[0] is searched in PATH when it has no slash. It gets this process's
// environment less RunOptions::unset, with `env` set over it (a value "" sets the variable
// empty), stdin from /dev/null, default signal dispositions and an empty signal mask.
// Its stdout is a pipe the caller may read from stdout_fd() while it runs; its stderr goes to
// an anonymous file, so it never blocks. A child not waited for is killed and reaped when the
// Process dies.
class Process {
 public:
  Process(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env = {},
          const RunOptions& options = {});
  ~Process();
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  pid_t pid() const { return pid_; }  // -1 if it did not start
  int stdout_fd() const { return out_fd_; }

  // Reads the rest of stdout (until every holder of the pipe closes it), reaps the child and
  // returns everything. Once only.
  ProcessResult Wait();

 private:
  ProcessResult result_;
  std::chrono::steady_clock::time_point deadline_;
  bool has_deadline_ = false;
  pid_t pid_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
};

// CPU time (user + system, in clock ticks) process `pid` has used; 0 if it has none (or is gone).
// Tests wait for a program to have run this long, however busy the machine, rather than for a
// time.
long ProcessCpuTicks(pid_t pid);

// Returns once process `pid` has used `seconds` of CPU time more than when it was called: true,
// or false if it ended first or was not given that much within a minute. A test that needs a
// number of a process's samples waits so, rather than for a time on the clock.
bool WaitForCpuTime(pid_t pid, double seconds);

// The program `parent` started (its first child, as /proc/PID/task/PID/children lists it), once
// it runs `comm` and has used `ticks` of CPU time (ProcessCpuTicks); 0 if it never does within a
// minute. For a program started through another one, such as unshare.
pid_t WaitForChild(pid_t parent, const std::string& comm, long ticks);

// Runs a program to its end (Process, then Wait).
ProcessResult RunProgram(const std::vector<std::string>& argv,
                         const std::map<std::string, std::string>& env = {},
                         const RunOptions& options = {});

}  // namespace jitscope::test_support
