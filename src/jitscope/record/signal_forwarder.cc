// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/record/signal_forwarder.h"

namespace jitscope::record {
namespace {

volatile sig_atomic_t g_child_pid = 0;

void ForwardSignal(int signal_number, siginfo_t* info, void*) {
  const bool from_terminal = info != nullptr && info->si_code == SI_KERNEL;
  if (g_child_pid > 0 && !from_terminal) ::kill(g_child_pid, signal_number);
}

}  // namespace

SignalForwarder::SignalForwarder(pid_t child) {
  struct sigaction forward {};
  forward.sa_sigaction = ForwardSignal;
  forward.sa_flags = SA_SIGINFO | SA_RESTART;
  g_child_pid = child;
  ::sigaction(SIGINT, &forward, &old_int_);
  ::sigaction(SIGTERM, &forward, &old_term_);
}

SignalForwarder::~SignalForwarder() {
  g_child_pid = 0;
  ::sigaction(SIGINT, &old_int_, nullptr);
  ::sigaction(SIGTERM, &old_term_, nullptr);
}

}  // namespace jitscope::record
