// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// A JIT client for the collector's end-to-end tests: it reports through our stub, which loads
// the collector named by INTEL_JIT_PROFILER64 — exactly what a real engine does. Modes:
//   all-events   every event kind once (plus invalid ones); prints "base=<hex> pid=<n>"
//   ack-loop     2 threads report loads forever; after each accepted event the thread writes
//                its id (4 bytes) to stdout, so a parent that SIGKILLs us knows what was acked
//   fork N       4 threads report while the main thread forks N children; each child reports
//                10 events of its own and exits; prints the parent's and children's counts
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "jitprofiling.h"

extern "C" int NotifyRaw(unsigned int event_type, void* data);

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

int AllEvents() {
  char* base = NewCode(4096);
  std::printf("base=%#llx pid=%d\n",
              static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(base)),
              static_cast<int>(getpid()));
  std::fflush(stdout);
  LineNumberInfo lines[] = {{1, 2}, {12, 4}, {15, 2}, {18, 1}, {21, 30}};

  iJIT_Method_Load load = {};
  load.method_id = 1000;
  load.method_name = const_cast<char*>("Load");
  load.method_load_address = base;
  load.method_size = 21;
  load.line_number_size = 5;
  load.line_number_table = lines;
  load.class_id = 3;
  load.class_file_name = const_cast<char*>("Klass");
  load.source_file_name = const_cast<char*>("load.js");
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &load);

  iJIT_Method_Load_V2 v2 = {};
  v2.method_id = 1001;
  v2.method_name = const_cast<char*>("V2");
  v2.method_load_address = base + 0x100;
  v2.method_size = 0x40;
  v2.source_file_name = const_cast<char*>("v2.js");
  v2.module_name = const_cast<char*>("tier1");
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V2, &v2);

  iJIT_Method_Load_V3 v3 = {};
  v3.method_id = 1002;
  v3.method_name = const_cast<char*>("V3");
  v3.method_load_address = base + 0x200;
  v3.method_size = 0x40;
  v3.module_name = const_cast<char*>("tier2");
  v3.module_arch = iJIT_CA_64;
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V3, &v3);

  LineNumberInfo inline_lines[] = {{4, 7}, {8, 8}};
  iJIT_Method_Inline_Load in = {};
  in.method_id = 2000;
  in.parent_method_id = 1001;
  in.method_name = const_cast<char*>("Inlined");
  in.method_load_address = base + 0x110;
  in.method_size = 8;
  in.line_number_size = 2;
  in.line_number_table = inline_lines;
  in.class_file_name = const_cast<char*>("K2");
  in.source_file_name = const_cast<char*>("inl.js");
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED, &in);

  iJIT_Method_Load update = {};
  update.method_id = 1000;
  update.method_load_address = base + 4;
  update.method_size = 8;
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_UPDATE, &update);

  iJIT_Method_Update update_v2 = {};
  update_v2.load_address = base + 0x208;
  update_v2.size = 4;
  update_v2.type = iJIT_CT_DATA;
  update_v2.data_format = "%x";
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_UPDATE_V2, &update_v2);

  unsigned int unload = 1002;
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_UNLOAD_START, &unload);

  iJIT_Method_Load bad = load;
  bad.method_size = 0;
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &bad);
  NotifyRaw(99, &load);  // an event type the API does not define

  iJIT_NotifyEvent(iJVM_EVENT_TYPE_SHUTDOWN, nullptr);
  return 0;
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

[[noreturn]] int AckLoop() {
  char* code = NewCode(8192);
  auto worker = [code](unsigned first) {
    for (unsigned id = first;; id += 2) {
      Report(id, code);
      // The ack: written only after Notify returned.
      if (write(STDOUT_FILENO, &id, sizeof(id)) != sizeof(id)) std::_Exit(4);
    }
  };
  std::thread second(worker, 2);
  worker(1);
  std::abort();  // unreachable
}

int Fork(int forks) {
  char* code = NewCode(8192);
  std::atomic<bool> stop{false};
  std::atomic<unsigned> reported{0};
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (unsigned i = 0; !stop.load(); ++i) {
        Report(1 + t + 4 * i, code);
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
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "all-events") return AllEvents();
  if (mode == "ack-loop") AckLoop();
  if (mode == "fork" && argc > 2) return Fork(std::atoi(argv[2]));
  std::fprintf(stderr, "usage: collector_client all-events | ack-loop | fork N\n");
  return 2;
}
