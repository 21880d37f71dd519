// Copyright 2026 The jitscope Authors
// SPDX-License-Identifier: Apache-2.0

// stub_probe: drives the jitprofiling stub for stub_test.cc. The stub's state is process-global
// and sticky, so each scenario is a fresh process: the test starts this program with a chosen
// environment and a list of commands and compares its output exactly. One line per command:
//
//   active                  -> active=<iJIT_IsProfilingActive()>
//   notify EVENT KIND [ID [PARENT]]
//                           -> notify(EVENT,KIND)=<result> forwarded=<n>[ type=<t> payload=<p>]
//       KIND picks the payload: null load update unload inline v2 v3 update_v2; ID and PARENT
//       default to 1000. forwarded counts the calls that reached the fake collector; type and
//       payload (same|other) are what it received.
//   collector               -> collector=absent
//                           or collector=loaded initialize_calls=<n> notify_calls=<n>
//   newid                   -> id=<iJIT_GetNewMethodID()>
//   ids THREADS PER_THREAD  -> ids=<n> distinct=<distinct non-zero> zeros=<n> min=<least non-zero>
//   race THREADS            -> race active=<values> notify=<values>
//       THREADS threads make their first API call at once (even: IsProfilingActive, odd:
//       NotifyEvent); the values are the distinct results.
//   reentry                 -> reentry=<what iJIT_IsProfilingActive returned inside Initialize>
//                           or reentry=absent (fake_collector_reentrant only)
//   forkload                -> forkload child active=<a> notify=<n> initialize_calls=<i>
//                              forkload parent active=<a>
//       A thread makes the first API call; while the fake collector's Initialize runs, the main
//       thread forks. The child makes its own calls, the parent then finishes its own.
//   forkdlopen              -> forkdlopen child active=<a> notify=<n>
//                              forkdlopen parent active=<a>
//       Like forkload, but the fork happens while the loader thread is inside dlopen (the
//       fake_collector_slow_load constructor holds it there until the parent has forked).
//   setenv PATH | unsetenv  -> env=PATH | env=unset (changes the collector variable mid-run)
//   callback                -> callback calls=<n> flags=<last>  (JITSCOPE_JIT_LEGACY_API builds)
//   finalize                -> finalize                         (JITSCOPE_JIT_LEGACY_API builds)
//
// The fake collector is found with dlopen(RTLD_NOLOAD) on the path the collector variable held at
// start-up, so the probe sees the very instance the stub loaded, and never loads one itself.

#include <dlfcn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <latch>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "jitprofiling.h"

namespace {

constexpr const char* kCollectorEnv =
    sizeof(void*) == 4 ? "INTEL_JIT_PROFILER32" : "INTEL_JIT_PROFILER64";

// The collector path at start-up; `setenv` commands change only what the stub could still see.
std::string g_collector_path;

// Calls an exported FakeCollector* function of the loaded fake collector; nullopt if none is
// loaded (or the library is not a fake collector).
template <typename Result>
std::optional<Result> AskCollector(const char* function) {
  if (g_collector_path.empty()) return std::nullopt;
  void* handle = dlopen(g_collector_path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return std::nullopt;
  std::optional<Result> result;
  if (void* symbol = dlsym(handle, function); symbol != nullptr) {
    result = reinterpret_cast<Result (*)()>(symbol)();
  }
  dlclose(handle);
  return result;
}

unsigned NotifyCalls() { return AskCollector<unsigned>("FakeCollectorNotifyCalls").value_or(0); }

// One payload of every kind, at fixed addresses for the lifetime of the probe.
struct Payloads {
  unsigned char code[64] = {};
  LineNumberInfo lines[2] = {{8, 10}, {16, 11}};
  iJIT_Method_Load load{};
  iJIT_Method_Inline_Load inline_load{};
  iJIT_Method_Load_V2 v2{};
  iJIT_Method_Load_V3 v3{};
  iJIT_Method_Update update_v2{};
  unsigned unload_id = 0;

  // Returns the payload of `kind` with its ids set, or nullptr for "null"; false if unknown.
  bool Get(const std::string& kind, unsigned id, unsigned parent, void** payload) {
    static char name[] = "probe_method";
    *payload = nullptr;
    if (kind == "null") return true;
    if (kind == "load" || kind == "update") {
      load = {};
      load.method_id = id;
      load.method_name = name;
      load.method_load_address = code;
      load.method_size = sizeof code;
      load.line_number_size = 2;
      load.line_number_table = lines;
      *payload = &load;
    } else if (kind == "inline") {
      inline_load = {};
      inline_load.method_id = id;
      inline_load.parent_method_id = parent;
      inline_load.method_name = name;
      inline_load.method_load_address = code + 8;
      inline_load.method_size = 8;
      *payload = &inline_load;
    } else if (kind == "v2") {
      v2 = {};
      v2.method_id = id;
      v2.method_name = name;
      v2.method_load_address = code;
      v2.method_size = sizeof code;
      *payload = &v2;
    } else if (kind == "v3") {
      v3 = {};
      v3.method_id = id;
      v3.method_name = name;
      v3.method_load_address = code;
      v3.method_size = sizeof code;
      v3.module_arch = iJIT_CA_NATIVE;
      *payload = &v3;
    } else if (kind == "update_v2") {
      update_v2 = {code, 8, iJIT_CT_CODE, nullptr};
      *payload = &update_v2;
    } else if (kind == "unload") {
      unload_id = id;  // LLVM MCJIT passes a pointer to a bare id (LLVM's IntelJITEventListener)
      *payload = &unload_id;
    } else {
      return false;
    }
    return true;
  }
};

Payloads g_payloads;

// A forked child's own first calls: whether profiling is active, and what a METHOD_LOAD_FINISHED
// returns.
std::pair<int, int> ChildsFirstCalls() {
  const int active = static_cast<int>(iJIT_IsProfilingActive());
  void* payload = nullptr;
  g_payloads.Get("load", 1000, 1000, &payload);
  return {active, iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, payload)};
}

template <typename T>
std::string Distinct(const std::vector<T>& values) {
  std::set<T> distinct(values.begin(), values.end());
  std::string text;
  for (const T& value : distinct) text += (text.empty() ? "" : ",") + std::to_string(value);
  return text;
}

unsigned Number(const std::vector<std::string>& args, size_t i, unsigned fallback) {
  return i < args.size() ? static_cast<unsigned>(std::stoul(args[i], nullptr, 0)) : fallback;
}

// Runs the command at args[*i] (advancing *i past its arguments); false on a usage error.
bool Run(const std::vector<std::string>& args, size_t* i) {
  const std::string& command = args[(*i)++];
  if (command == "active") {
    std::printf("active=%d\n", static_cast<int>(iJIT_IsProfilingActive()));
  } else if (command == "notify") {
    if (*i + 2 > args.size()) return false;
    const unsigned event = Number(args, (*i)++, 0);
    const std::string kind = args[(*i)++];
    unsigned id = 1000;
    unsigned parent = 1000;
    if (*i < args.size() && std::isdigit(static_cast<unsigned char>(args[*i][0]))) {
      id = Number(args, (*i)++, id);
      if (*i < args.size() && std::isdigit(static_cast<unsigned char>(args[*i][0]))) {
        parent = Number(args, (*i)++, parent);
      }
    }
    void* payload = nullptr;
    if (!g_payloads.Get(kind, id, parent, &payload)) return false;
    const unsigned before = NotifyCalls();
    const int result = iJIT_NotifyEvent(static_cast<iJIT_JVM_EVENT>(event), payload);
    const unsigned forwarded = NotifyCalls() - before;
    std::printf("notify(%u,%s)=%d forwarded=%u", event, kind.c_str(), result, forwarded);
    if (forwarded != 0) {
      std::printf(" type=%u payload=%s", *AskCollector<unsigned>("FakeCollectorLastEvent"),
                  *AskCollector<void*>("FakeCollectorLastPayload") == payload ? "same" : "other");
    }
    std::printf("\n");
  } else if (command == "collector") {
    const auto initialize_calls = AskCollector<unsigned>("FakeCollectorInitializeCalls");
    if (!initialize_calls) {
      std::printf("collector=absent\n");
    } else {
      std::printf("collector=loaded initialize_calls=%u notify_calls=%u\n", *initialize_calls,
                  NotifyCalls());
    }
  } else if (command == "reentry") {
    if (const auto result = AskCollector<int>("FakeCollectorReentryResult")) {
      std::printf("reentry=%d\n", *result);
    } else {
      std::printf("reentry=absent\n");
    }
  } else if (command == "newid") {
    std::printf("id=%u\n", iJIT_GetNewMethodID());
  } else if (command == "ids") {
    if (*i + 2 > args.size()) return false;
    const unsigned threads = Number(args, (*i)++, 0);
    const unsigned per_thread = Number(args, (*i)++, 0);
    std::vector<std::vector<unsigned>> ids(threads, std::vector<unsigned>(per_thread));
    std::latch start(threads);
    {
      std::vector<std::jthread> workers;
      for (unsigned t = 0; t < threads; ++t) {
        workers.emplace_back([&, t] {
          start.arrive_and_wait();
          for (unsigned& id : ids[t]) id = iJIT_GetNewMethodID();
        });
      }
    }
    std::vector<unsigned> all;
    for (const auto& chunk : ids) all.insert(all.end(), chunk.begin(), chunk.end());
    std::sort(all.begin(), all.end());
    const auto zeros = static_cast<size_t>(std::count(all.begin(), all.end(), 0u));
    const auto first_non_zero = all.begin() + static_cast<std::ptrdiff_t>(zeros);
    const auto distinct =
        static_cast<size_t>(std::distance(first_non_zero, std::unique(first_non_zero, all.end())));
    std::printf("ids=%zu distinct=%zu zeros=%zu min=%u\n", ids.size() * per_thread, distinct, zeros,
                distinct != 0 ? *first_non_zero : 0u);
  } else if (command == "race") {
    const unsigned threads = Number(args, (*i)++, 0);
    std::vector<int> active;
    std::vector<int> notified;
    std::vector<int> results(threads);
    std::latch start(threads);
    void* payload = nullptr;
    g_payloads.Get("load", 1000, 1000, &payload);
    {
      std::vector<std::jthread> workers;
      for (unsigned t = 0; t < threads; ++t) {
        workers.emplace_back([&, t] {
          start.arrive_and_wait();
          results[t] = t % 2 == 0 ? static_cast<int>(iJIT_IsProfilingActive())
                                  : iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, payload);
        });
      }
    }
    for (unsigned t = 0; t < threads; ++t) (t % 2 == 0 ? active : notified).push_back(results[t]);
    std::printf("race active=%s notify=%s\n", Distinct(active).c_str(), Distinct(notified).c_str());
  } else if (command == "forkload") {
    int parent_active = -1;
    std::jthread loader([&] { parent_active = static_cast<int>(iJIT_IsProfilingActive()); });
    while (AskCollector<unsigned>("FakeCollectorInitializeCalls").value_or(0) == 0) {
      std::this_thread::yield();
    }
    const pid_t child = fork();
    if (child == 0) {
      const auto [active, notified] = ChildsFirstCalls();
      std::printf("forkload child active=%d notify=%d initialize_calls=%u\n", active, notified,
                  *AskCollector<unsigned>("FakeCollectorInitializeCalls"));
      std::fflush(stdout);
      _exit(0);
    }
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child || status != 0) return false;
    loader.join();
    std::printf("forkload parent active=%d\n", parent_active);
  } else if (command == "forkdlopen") {
    std::array<int, 2> entered{};
    std::array<int, 2> resume{};
    if (pipe(entered.data()) != 0 || pipe(resume.data()) != 0) return false;
    const std::string pipes = std::to_string(entered[1]) + " " + std::to_string(resume[0]);
    setenv("FAKE_LOAD_PIPES", pipes.c_str(), 1);
    int parent_active = -1;
    std::jthread loader([&] { parent_active = static_cast<int>(iJIT_IsProfilingActive()); });
    char byte = 0;
    if (read(entered[0], &byte, 1) != 1) return false;  // the loader is inside dlopen now
    const pid_t child = fork();
    if (child == 0) {
      const auto [active, notified] = ChildsFirstCalls();
      std::printf("forkdlopen child active=%d notify=%d\n", active, notified);
      std::fflush(stdout);
      _exit(0);
    }
    if (write(resume[1], &byte, 1) != 1) return false;
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child || status != 0) return false;
    loader.join();
    std::printf("forkdlopen parent active=%d\n", parent_active);
  } else if (command == "setenv") {
    if (*i >= args.size()) return false;
    setenv(kCollectorEnv, args[*i].c_str(), 1);
    std::printf("env=%s\n", args[(*i)++].c_str());
  } else if (command == "unsetenv") {
    unsetenv(kCollectorEnv);
    std::printf("env=unset\n");
#ifdef JITSCOPE_JIT_LEGACY_API
  } else if (command == "callback") {
    static unsigned calls = 0;
    static int last_flags = -1;
    iJIT_RegisterCallbackEx(&calls, [](void* user_data, iJIT_ModeFlags flags) {
      ++*static_cast<unsigned*>(user_data);
      last_flags = static_cast<int>(flags);
    });
    std::printf("callback calls=%u flags=%d\n", calls, last_flags);
  } else if (command == "finalize") {
    FinalizeThread();
    FinalizeProcess();
    std::printf("finalize\n");
#endif
  } else {
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (const char* path = std::getenv(kCollectorEnv)) g_collector_path = path;
  const std::vector<std::string> args(argv + 1, argv + argc);
  for (size_t i = 0; i < args.size();) {
    const size_t at = i;
    if (!Run(args, &i)) {
      std::fprintf(stderr, "stub_probe: bad command at argument %zu (%s)\n", at + 1,
                   args[at].c_str());
      return 2;
    }
    std::fflush(stdout);
  }
  return 0;
}
