// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// A workload and a timer measured in CPU time, for tests whose checks need a number of samples:
// a sampler with cpu-clock takes a process's samples in proportion to the CPU time it used, so a
// test that waits for CPU time gets the samples it needs on a fast machine, a slow one and a
// busy one alike, where a count of iterations or a time on the clock does not.
//
//   cpu_time spin SECONDS          spins until this process has used SECONDS of CPU time
//   cpu_time wait SECONDS PID...   returns once each process PID has used SECONDS of CPU time
//                                  more than when it began (or has ended); the command that
//                                  times a `jitscope record -p`
//
// Exit status 0, 2 on a usage error, 1 when `wait` gave up: a process that was never given the
// CPU time within ten minutes.
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

double ThisProcessCpuSeconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// CPU time (user + system) process `pid` has used, in seconds; -1 once it is gone (or a zombie).
double CpuSecondsOf(pid_t pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
  std::stringstream text;
  text << file.rdbuf();
  const std::string stat = text.str();
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos || paren + 2 >= stat.size() || stat[paren + 2] == 'Z') return -1;
  // Fields 14 and 15 (utime, stime) follow the command name, which ends at the last ')'.
  std::istringstream fields(stat.substr(paren + 2));
  std::string field;
  for (int i = 3; i <= 13; ++i) fields >> field;  // state … cmajflt
  long utime = 0, stime = 0;
  if (!(fields >> utime >> stime)) return -1;
  return static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

[[noreturn]] void Usage() {
  std::fputs("usage: cpu_time spin SECONDS | cpu_time wait SECONDS PID...\n", stderr);
  std::exit(2);
}

double ParseSeconds(const char* text) {
  char* end = nullptr;
  errno = 0;
  const double seconds = std::strtod(text, &end);
  if (*text == '\0' || *end != '\0' || errno != 0 || !(seconds >= 0)) Usage();
  return seconds;
}

// Depends on its argument and the sum so far, so no compiler folds the loop away.
unsigned long Spin(unsigned long rounds, unsigned long sum) {
  for (unsigned long i = 0; i < rounds; ++i) sum += (i * i) ^ (sum >> 3);
  return sum;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) Usage();
  const std::string mode = argv[1];
  const double seconds = ParseSeconds(argv[2]);
  if (mode == "spin" && argc == 3) {
    volatile unsigned long sink = 0;
    while (ThisProcessCpuSeconds() < seconds) sink = Spin(100000, sink);
    return 0;
  }
  if (mode != "wait" || argc < 4) Usage();
  std::vector<pid_t> pids;
  std::vector<double> until;
  for (int i = 3; i < argc; ++i) {
    const pid_t pid = static_cast<pid_t>(std::atol(argv[i]));
    if (pid <= 0) Usage();
    pids.push_back(pid);
    until.push_back(CpuSecondsOf(pid) + seconds);
  }
  for (int polls = 0; polls < 60000; ++polls) {  // ten minutes of 10 ms
    bool done = true;
    for (size_t i = 0; i < pids.size(); ++i) {
      const double used = CpuSecondsOf(pids[i]);
      done = done && (used < 0 || used >= until[i]);
    }
    if (done) return 0;
    ::usleep(10 * 1000);
  }
  std::fprintf(stderr, "cpu_time: the processes were not given %.2f s of CPU in ten minutes\n",
               seconds);
  return 1;
}
