// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The target of `record -p`'s threads test: two threads ("before-1", "before-2") spin from the
// start; once the test has attached and sends SIGUSR1, two more ("after-1", "after-2") and a child
// process ("child") each do a tenth of a second of CPU work; then every thread ends and the process
// exits 0. It prints "ready" when the first two threads run, so the test attaches to a process that
// already has them.
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace {

std::atomic<bool> g_stop{false};
std::atomic<int> g_started{0};
volatile unsigned g_sink = 0;

void Name(const char* name) { ::prctl(PR_SET_NAME, name, 0, 0, 0); }

void Spin(const std::string& name) {
  Name(name.c_str());
  g_started.fetch_add(1);
  unsigned x = 1;
  while (!g_stop.load(std::memory_order_relaxed)) x = x * 1103515245u + 12345u;
  g_sink = x;
}

// CPU time this thread has used, in seconds.
double ThreadCpuSeconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// Only system calls and arithmetic: a child forked from this threaded process may do no more.
// A tenth of a second of CPU time, however fast the machine: a hundred samples at 1 kHz.
void Work(const char* name) {
  Name(name);
  unsigned x = 1;
  while (ThreadCpuSeconds() < 0.1) {
    for (unsigned i = 0; i < 100'000u; ++i) x = x * 1103515245u + 12345u;
  }
  g_sink = x;
}

}  // namespace

int main() {
  // Every thread inherits the mask, so SIGUSR1 waits for sigwait in main.
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &usr1, nullptr);
  std::vector<std::thread> before;
  for (int i = 1; i <= 2; ++i) before.emplace_back(Spin, "before-" + std::to_string(i));
  while (g_started.load() < 2) std::this_thread::yield();
  std::printf("ready\n");
  std::fflush(stdout);
  int signal_number = 0;
  sigwait(&usr1, &signal_number);
  std::vector<std::thread> after;
  after.emplace_back(Work, "after-1");
  after.emplace_back(Work, "after-2");
  const pid_t child = fork();
  if (child == 0) {
    Work("child");
    _exit(0);
  }
  for (std::thread& thread : after) thread.join();
  int status = 0;
  if (child < 0 || waitpid(child, &status, 0) != child || status != 0) return 1;
  g_stop = true;
  for (std::thread& thread : before) thread.join();
  return 0;
}
