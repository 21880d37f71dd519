// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// While alive, SIGINT and SIGTERM sent to jitscope (Ctrl-C, kill, a supervisor) do not end it
// but ask the recording of running processes (`record -p`) to stop, so the session is finished
// and flushed; the destructor restores the handlers it replaced. One at a time: the handler sets
// a process-wide flag. (A recording of a command jitscope started forwards them to the command
// instead: signal_forwarder.h.)
#pragma once

#include <signal.h>

namespace jitscope::record {

class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // The signal that asked to stop, or 0.
  int received() const;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

}  // namespace jitscope::record
