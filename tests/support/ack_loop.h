// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Test support for the host-process fault runs (docs/reliability.md, "Host-process faults"), the
// client's side: threads report JIT code and acknowledge each report on stdout once the API call
// returned, until the process ends by a fault. Both clients (tests/collector/collector_client.cc
// through the Intel API, tests/opagent/opagent_client.cc through the OProfile agent's) run this
// loop, so the two APIs meet the same faults; fault_runs.h is the test's side.
#pragma once

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace jitscope::test_support {

// Ends the process by `fault`:
//   segv   a real invalid write, under the default handler (not a sanitizer's: the process must
//          die as a plain one would)
//   abort  abort(), under the default handler
//   exit   _exit(0): no atexit handlers, no library destructors, no API shutdown call
//   exec   exec() of this same program with the single argument `after-exec`, which the client
//          implements as a short second program (same pid, new image)
//   kill   (or anything else) waits for the parent to SIGKILL it
[[noreturn]] inline void EndBy(const std::string& fault) {
  if (fault == "segv") {
    std::signal(SIGSEGV, SIG_DFL);
    *static_cast<volatile int*>(nullptr) = 1;
  } else if (fault == "abort") {
    std::signal(SIGABRT, SIG_DFL);
    std::abort();
  } else if (fault == "exit") {
    _exit(0);
  } else if (fault == "exec") {
    const char* self = "/proc/self/exe";
    execl(self, self, "after-exec", static_cast<char*>(nullptr));
    std::perror("exec");
  }
  for (;;) pause();
}

// Starts THREADS threads; thread t (1-based) calls `report(id)` for ids t, t + THREADS,
// t + 2 * THREADS, ... and, each time it returned, writes the id (4 bytes, host order) to stdout:
// the acknowledgement, which the test holds the files to. `report` exits the process itself on a
// refused call. Once the first id was acknowledged, the main thread waits DELAY_US microseconds
// and ends the process by FAULT (EndBy). `args` are the client's arguments after its mode:
// [THREADS FAULT DELAY_US], by default 2, kill and 0.
template <typename Report>
[[noreturn]] void AckLoop(int argc, char** args, Report report) {
  const uint32_t threads = argc > 0 ? static_cast<uint32_t>(std::atoi(args[0])) : 2;
  const std::string fault = argc > 1 ? args[1] : "kill";
  const auto delay_us = argc > 2 ? static_cast<unsigned>(std::atoi(args[2])) : 0;
  std::atomic<bool> started{false};
  auto worker = [&report, threads, &started](uint32_t first) {
    for (uint32_t id = first;; id += threads) {
      report(id);
      if (write(STDOUT_FILENO, &id, sizeof(id)) != sizeof(id)) std::_Exit(4);
      started.store(true, std::memory_order_relaxed);
    }
  };
  for (uint32_t t = 1; t <= threads; ++t) std::thread(worker, t).detach();
  while (!started.load(std::memory_order_relaxed)) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::microseconds(delay_us));
  EndBy(fault);
}

}  // namespace jitscope::test_support
