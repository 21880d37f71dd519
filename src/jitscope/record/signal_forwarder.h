// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// While alive, forwards SIGINT and SIGTERM sent to jitscope (kill, a supervisor) to one child
// process; its destructor restores the handlers it replaced. A Ctrl-C typed at the terminal already
// reaches the child, which is in our process group (si_code SI_KERNEL); that one is not forwarded,
// or the child would get it twice. One forwarder at a time: the handler reads a process-wide pid.
#pragma once

#include <signal.h>
#include <sys/types.h>

namespace jitscope::record {

class SignalForwarder {
 public:
  explicit SignalForwarder(pid_t child);
  ~SignalForwarder();
  SignalForwarder(const SignalForwarder&) = delete;
  SignalForwarder& operator=(const SignalForwarder&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

}  // namespace jitscope::record
