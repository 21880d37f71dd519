// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// A JIT client for the collector's end-to-end tests: it reports through our stub, which loads
// the collector named by INTEL_JIT_PROFILER64 — exactly what a real engine does. (Every event
// kind once: all_events_client.c.) Modes:
//   ack-loop [THREADS FAULT DELAY_US]
//                THREADS (default 2) threads report loads; after each accepted event the thread
//                writes its id (4 bytes) to stdout, so a parent knows what was acked. After
//                DELAY_US microseconds of reporting the main thread ends the process by FAULT:
//                kill (default: nothing, the parent SIGKILLs us), segv (a real invalid write),
//                abort, exit (_exit without SHUTDOWN or atexit), exec (into `after-exec`)
//   after-exec   what `exec` runs: reports ids 1000000..1000009 and exits 0
//   fill N       reports N loads with 1 KiB names, ids 1..N, on one thread, whatever the answers,
//                then SHUTDOWN;
//                prints "accepted=A refused=R accepted_after_refusal=X" and exits 0
//   churn N LIVE reports a method "keeper" (never unloaded), then loads m1..mN, 16 bytes each,
//                unloading each as LIVE newer ones follow, on one thread; prints
//                "keeper=0xADDR last=0xADDR" (the addresses of keeper and mN) and exits 0
//   fork N       4 threads report while the main thread forks N children; each child reports
//                10 events of its own and exits; prints the parent's and children's counts
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "../support/ack_loop.h"
#include "jitprofiling.h"

namespace {

char* NewCode(size_t size) {
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    std::perror("mmap");
    std::exit(1);
  }
  std::memset(p, 0xC3, size);
  return static_cast<char*>(p);
}

void Report(unsigned id, char* code) {
  iJIT_Method_Load m = {};
  m.method_id = id;
  m.method_name = const_cast<char*>("acked");
  m.method_load_address = code + (id % 4096);
  m.method_size = 1;
  if (iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &m) != 1) {
    std::fprintf(stderr, "event %u refused\n", id);
    std::_Exit(3);
  }
}

int Fill(unsigned count) {
  char* code = NewCode(8192);
  const std::string name(1024, 'f');
  unsigned accepted = 0;
  unsigned refused = 0;
  unsigned accepted_after_refusal = 0;
  for (unsigned id = 1; id <= count; ++id) {
    iJIT_Method_Load m = {};
    m.method_id = id;
    m.method_name = const_cast<char*>(name.c_str());
    m.method_load_address = code + (id % 4096);
    m.method_size = 1;
    if (iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &m) == 1) {
      ++accepted;
      if (refused != 0) ++accepted_after_refusal;
    } else {
      ++refused;
    }
  }
  const int shutdown = iJIT_NotifyEvent(iJVM_EVENT_TYPE_SHUTDOWN, nullptr);
  std::printf("accepted=%u refused=%u accepted_after_refusal=%u shutdown=%d\n", accepted, refused,
              accepted_after_refusal, shutdown);
  return 0;
}

int Churn(unsigned count, unsigned live) {
  constexpr unsigned kSlots = 4096, kSize = 16;
  char* code = NewCode(size_t{kSlots + 1} * kSize);
  std::memset(code, 0xc3, size_t{kSlots + 1} * kSize);  // ret: bytes worth keeping
  char* keeper = code + size_t{kSlots} * kSize;
  auto load = [](unsigned id, const std::string& name, char* address) {
    iJIT_Method_Load m = {};
    m.method_id = id;
    m.method_name = const_cast<char*>(name.c_str());
    m.method_load_address = address;
    m.method_size = kSize;
    return iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &m) == 1;
  };
  if (!load(count + 1, "keeper", keeper)) return 3;
  for (unsigned id = 1; id <= count; ++id) {
    if (!load(id, "m" + std::to_string(id), code + size_t{id % kSlots} * kSize)) return 3;
    if (id > live) {
      iJIT_Method_Load unload = {};  // its first field is the id, all UNLOAD_START reads
      unload.method_id = id - live;
      if (iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_UNLOAD_START, &unload) != 1) return 3;
    }
  }
  std::printf("keeper=%p last=%p\n", static_cast<void*>(keeper),
              static_cast<void*>(code + size_t{count % kSlots} * kSize));
  return 0;
}

int AfterExec() {
  char* code = NewCode(8192);
  for (unsigned i = 0; i < 10; ++i) Report(1000000 + i, code);
  return 0;
}

int Fork(int forks) {
  char* code = NewCode(8192);
  // The collector is loaded before the threads start: a child forked while the stub is inside
  // dlopen runs without a collector (glibc cannot load libraries there; api_stub_test covers it).
  if (iJIT_IsProfilingActive() == iJIT_NOTHING_RUNNING) {
    std::fprintf(stderr, "no collector loaded\n");
    return 1;
  }
  std::atomic<bool> stop{false};
  std::atomic<unsigned> reported{0};
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      // Bounded, so that a child that never comes back cannot make the parent fill the disk,
      // and below the children's ids (1000000 and up), which the test tells traces apart by:
      // thread 3's 250000th id would be 1000000 itself.
      for (unsigned id = 1 + t; !stop.load() && id < 1000000; id += 4) {
        Report(id, code);
        reported.fetch_add(1);
      }
    });
  }
  std::vector<pid_t> children;
  for (int f = 0; f < forks; ++f) {
    const pid_t child = fork();
    if (child < 0) {
      std::perror("fork");
      return 1;
    }
    if (child == 0) {
      for (unsigned i = 0; i < 10; ++i) Report(1000000 + i, code);
      std::_Exit(0);
    }
    children.push_back(child);
  }
  for (pid_t child : children) {
    int status = 0;
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::fprintf(stderr, "child %d failed\n", static_cast<int>(child));
      return 1;
    }
  }
  stop = true;
  for (auto& thread : threads) thread.join();
  std::printf("parent=%u children=%d\n", reported.load(), forks);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Whatever happens to the test that started it, this client never outlives two minutes.
  alarm(120);
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "ack-loop") {
    char* code = NewCode(8192);
    jitscope::test_support::AckLoop(argc - 2, argv + 2, [code](uint32_t id) { Report(id, code); });
  }
  if (mode == "after-exec") return AfterExec();
  if (mode == "fill" && argc > 2) return Fill(static_cast<unsigned>(std::atoi(argv[2])));
  if (mode == "fork" && argc > 2) return Fork(std::atoi(argv[2]));
  if (mode == "churn" && argc > 3) {
    return Churn(static_cast<unsigned>(std::atoi(argv[2])),
                 static_cast<unsigned>(std::atoi(argv[3])));
  }
  std::fprintf(stderr,
               "usage: collector_client ack-loop [THREADS FAULT DELAY_US] | fork N | fill N | "
               "churn N LIVE\n");
  return 2;
}
