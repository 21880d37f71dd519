// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Test support for the host-process fault runs (docs/reliability.md, "Host-process faults"), the
// test's side: runs a client's `ack-loop` mode (ack_loop.h) until it ends by a fault and collects
// what it acknowledged, which the test then looks for in the files the client left.
#pragma once

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "support/process.h"
#include "support/repeats.h"
#include "support/temp_dir.h"

namespace jitscope::test_support {

// A fault of the matrix: the client's FAULT argument (ack_loop.h's EndBy), how the client ends
// (the signal that ends it, or 0 and the status it exits with), and how often a test repeats it
// at random moments.
struct Fault {
  const char* name;
  int signal;
  int exit_code;  // -1 when a signal ends it (ProcessResult)
  int unsanitized_runs;
  int runs() const { return unsanitized_runs / kRepeatDivisor; }
};
inline constexpr Fault kSigkill{"kill", SIGKILL, -1, 20};
inline constexpr Fault kSigsegv{"segv", SIGSEGV, -1, 10};
inline constexpr Fault kAbort{"abort", SIGABRT, -1, 10};
inline constexpr Fault kExitWithoutShutdown{"exit", 0, 0, 10};
inline constexpr Fault kExec{"exec", 0, 0, 10};
// The matrix: every API's fault test runs each of these (a parameterised test over them,
// instantiated as HostFaults and named by FaultName).
inline constexpr Fault kHostFaults[] = {kSigkill, kSigsegv, kAbort, kExitWithoutShutdown, kExec};
inline std::string FaultName(const ::testing::TestParamInfo<Fault>& info) {
  return info.param.name;
}

struct AckedRun {
  ProcessResult result;
  std::set<uint32_t> acked;  // every id the client acknowledged
};

// Runs `client ack-loop 4 FAULT DELAY_US` with `env`: 4 threads report until the client ends
// itself by `fault` DELAY_US into reporting, or, for "kill", until this process SIGKILLs it
// DELAY_US after its first acknowledgement (start-up time varies with load, so the delay counts
// from there).
inline AckedRun RunAckLoop(const std::string& client, const std::string& fault, unsigned delay_us,
                           const std::map<std::string, std::string>& env) {
  Process process({client, "ack-loop", "4", fault, std::to_string(delay_us)}, env);
  AckedRun run;
  if (process.pid() <= 0) {
    ADD_FAILURE() << "cannot start " << client;
    return run;
  }
  std::string first_ack;
  if (fault == "kill") {
    char ack[4];
    size_t have = 0;
    while (have < sizeof(ack)) {
      const ssize_t n = ::read(process.stdout_fd(), ack + have, sizeof(ack) - have);
      if (n <= 0) break;  // the client died before reporting anything: no ack, the test says so
      have += static_cast<size_t>(n);
    }
    first_ack.assign(ack, have);
    std::this_thread::sleep_for(std::chrono::microseconds(delay_us));
    ::kill(process.pid(), SIGKILL);
  }
  run.result = process.Wait();
  run.result.out.insert(0, first_ack);
  for (size_t i = 0; i + 4 <= run.result.out.size(); i += 4) {
    uint32_t id = 0;
    std::memcpy(&id, run.result.out.data() + i, 4);
    run.acked.insert(id);
  }
  return run;
}

// Runs `client` end.runs() times, each in a fresh directory, ended by `end` at a random moment
// 0-30 ms into reporting (the same moments in every test: the seed is fixed), with the
// environment env_for(directory). A run must end as `end` does and have acknowledged something;
// then check(directory, run) holds the files to the acknowledgements. The first run that fails
// fatally ends the test.
template <typename EnvFor, typename Check>
void ForEachFaultRun(const std::string& client, const Fault& end, EnvFor env_for, Check check) {
  std::mt19937 random(12345);
  for (int i = 0; i < end.runs(); ++i) {
    SCOPED_TRACE(std::string(end.name) + " run " + std::to_string(i));
    TempDir dir;
    const AckedRun run = RunAckLoop(client, end.name, random() % 30000, env_for(dir.path()));
    ASSERT_EQ(run.result.signal, end.signal) << run.result.Describe();
    ASSERT_EQ(run.result.exit_code, end.exit_code) << run.result.Describe();
    ASSERT_FALSE(run.acked.empty()) << "nothing was acked: " << run.result.err;
    check(dir.path(), run);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

}  // namespace jitscope::test_support
