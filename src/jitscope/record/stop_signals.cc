// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/record/stop_signals.h"

namespace jitscope::record {
namespace {

volatile sig_atomic_t g_stop_signal = 0;

void RecordStop(int signal_number) { g_stop_signal = signal_number; }

}  // namespace

StopSignals::StopSignals() {
  struct sigaction stop {};
  stop.sa_handler = RecordStop;
  // No SA_RESTART: the session's poll returns at once (EINTR) instead of at its timeout.
  g_stop_signal = 0;
  ::sigaction(SIGINT, &stop, &old_int_);
  ::sigaction(SIGTERM, &stop, &old_term_);
}

StopSignals::~StopSignals() {
  ::sigaction(SIGINT, &old_int_, nullptr);
  ::sigaction(SIGTERM, &old_term_, nullptr);
}

int StopSignals::received() const { return g_stop_signal; }

}  // namespace jitscope::record
