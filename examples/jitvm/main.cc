// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The jitvm command: runs a .jv program (see docs/jitvm.md), or generates one.
#include <time.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "checker.h"
#include "generator.h"
#include "jitscope/base/clock.h"
#include "output.h"
#include "semantics.h"
#include "vm.h"

namespace jitscope::jitvm {

// External linkage, so the store that keeps the Vm reachable at exit cannot be optimized away.
Vm* g_vm_kept_until_exit = nullptr;

namespace {

constexpr const char* kHelp = R"(Usage: jitvm [OPTIONS] PROGRAM.jv [ARGS...]
       jitvm --generate=N > PROGRAM.jv

Runs main(ARGS...) of a jitvm program; ARGS are integers, one per parameter of main. The
program's print() output goes to stdout. Functions are compiled to x86-64 machine code at their
first call (baseline tier) and again once they are hot (optimizing tier: locals in registers,
small callees inlined, slow paths moved to a separate cold region). Every piece of code is
reported through the Intel JIT Profiling API, so a profiler sees JIT methods with their source
lines: run under jitscope with
    INTEL_JIT_PROFILER64=<build>/lib/libjitscope-collector.so jitvm PROGRAM.jv

Options:
  --mode=MODE          how to run the program (default: tiered)
                         tiered     baseline at the first call, optimizing tier once hot
                         baseline   baseline tier only
                         optimized  optimizing tier for every function, from its first call
                         interp     the tree-walking interpreter, no machine code
  --hot-threshold=N    calls after which a baseline function is optimized (default: 1000)
  --inline-budget=N    largest callee (statements + expressions) the optimizing tier inlines;
                       0 disables inlining (default: 40)
  --inline-depth=N     deepest nesting of inlined calls (default: 3)
  --no-frame-pointers  generate code that keeps no frame pointer in either tier (no
                       push rbp; mov rbp, rsp; frames addressed from rsp; the optimizing tier
                       may keep a local in rbp), as many engines do: stacks through it can
                       only be unwound from its code (jitscope record --call-graph dwarf)
  --no-jit-api         never call the JIT Profiling API (to measure what asking costs)
  --repeat-for=SECONDS call main again, with the same arguments, until the process has used
                       SECONDS of CPU time (at least once): a run of a known length on a fast
                       machine and a slow one alike, as a profiler's sampling needs
  --stats              print what was compiled, freed and reused, and timings, to stderr
  --generate=N         print a program with N distinct functions (4 lines each) and a call
                       tree that runs each once, then exit; for benchmarks with many methods
  -h, --help           print this help and exit

Exit status: 0 on success, 1 on a compile or runtime error, 2 on a usage error.
)";

struct CommandLine {
  VmOptions vm;
  bool stats = false;
  double repeat_for_seconds = 0;  // 0: main runs once
  bool generate = false;
  uint64_t generate_count = 0;
  std::string program;
  std::vector<int64_t> args;
};

[[noreturn]] void UsageError(const std::string& message) {
  std::fprintf(stderr, "jitvm: %s\njitvm: try 'jitvm --help'\n", message.c_str());
  std::exit(2);
}

uint64_t ParseCount(std::string_view option, const std::string& text, uint64_t max) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || text[0] == '-' || value > max) {
    UsageError(std::string(option) + " needs a whole number up to " + std::to_string(max) +
               ", not '" + text + "'");
  }
  return value;
}

CommandLine ParseCommandLine(int argc, char** argv) {
  CommandLine line;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (!line.program.empty()) {
      // Everything after the program is an argument of main.
      char* end = nullptr;
      errno = 0;
      const long long value = std::strtoll(arg.c_str(), &end, 10);
      if (arg.empty() || *end != '\0' || errno != 0) {
        UsageError("the arguments of main are integers, not '" + arg + "'");
      }
      line.args.push_back(value);
      continue;
    }
    if (arg == "-h" || arg == "--help") {
      std::fputs(kHelp, stdout);
      std::exit(0);
    }
    if (arg.rfind("--", 0) != 0) {
      line.program = arg;
      continue;
    }
    std::string name = arg;
    std::string value;
    bool has_value = false;
    if (const size_t eq = arg.find('='); eq != std::string::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      has_value = true;
    }
    auto take_value = [&]() -> const std::string& {
      if (!has_value) {
        if (i + 1 >= argc) UsageError(name + " needs a value");
        value = argv[++i];
        has_value = true;
      }
      return value;
    };
    auto no_value = [&] {
      if (has_value) UsageError(name + " takes no value");
    };
    if (name == "--mode") {
      const std::string& mode = take_value();
      if (mode == "tiered") {
        line.vm.mode = ExecutionMode::kTiered;
      } else if (mode == "baseline") {
        line.vm.mode = ExecutionMode::kBaseline;
      } else if (mode == "optimized") {
        line.vm.mode = ExecutionMode::kOptimized;
      } else if (mode == "interp") {
        line.vm.mode = ExecutionMode::kInterpret;
      } else {
        UsageError("--mode must be tiered, baseline, optimized or interp, not '" + mode + "'");
      }
    } else if (name == "--hot-threshold") {
      line.vm.hot_threshold = static_cast<uint32_t>(ParseCount(name, take_value(), INT32_MAX));
      if (line.vm.hot_threshold == 0) UsageError("--hot-threshold must be at least 1");
    } else if (name == "--inline-budget") {
      line.vm.inlining.budget = static_cast<uint32_t>(ParseCount(name, take_value(), 1u << 20));
    } else if (name == "--inline-depth") {
      line.vm.inlining.max_depth = static_cast<uint32_t>(ParseCount(name, take_value(), 64));
    } else if (name == "--no-frame-pointers") {
      no_value();
      line.vm.frame_pointers = false;
    } else if (name == "--no-jit-api") {
      no_value();
      line.vm.use_jit_api = false;
    } else if (name == "--repeat-for") {
      const std::string& text = take_value();
      char* end = nullptr;
      errno = 0;
      const double seconds = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0' || errno != 0 || !(seconds >= 0 && seconds <= 86400)) {
        UsageError("--repeat-for needs a number of seconds up to 86400, not '" + text + "'");
      }
      line.repeat_for_seconds = seconds;
    } else if (name == "--stats") {
      no_value();
      line.stats = true;
    } else if (name == "--generate") {
      line.generate = true;
      line.generate_count = ParseCount(name, take_value(), uint64_t{100} << 20);
    } else {
      UsageError("unknown option '" + arg + "'");
    }
  }
  if (line.generate) {
    if (!line.program.empty()) UsageError("--generate takes no program");
  } else if (line.program.empty()) {
    UsageError("no program given");
  }
  return line;
}

// CPU time this process has used (all its threads), for --repeat-for.
double ProcessCpuSeconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

const char* ModeName(ExecutionMode mode) {
  switch (mode) {
    case ExecutionMode::kInterpret:
      return "interp";
    case ExecutionMode::kBaseline:
      return "baseline";
    case ExecutionMode::kOptimized:
      return "optimized";
    case ExecutionMode::kTiered:
      return "tiered";
  }
  return "?";
}

void PrintStats(const CommandLine& line, const Program& program, const Vm& vm, uint64_t result,
                uint64_t parse_ns, uint64_t run_ns, bool profiled) {
  const VmStats& s = vm.stats();
  const Type result_type = program.functions[program.main_index].return_type;
  std::fprintf(stderr, "jitvm: mode %s, main returned %s\n", ModeName(line.vm.mode),
               FormatValue(result_type, result).c_str());
  if (line.vm.mode != ExecutionMode::kInterpret) {
    std::fprintf(stderr,
                 "jitvm: compiled %" PRIu64 " functions with the baseline tier and %" PRIu64
                 " with the optimizing tier (%" PRIu64 " inlined calls, %" PRIu64
                 " split functions)\n",
                 s.baseline_compiles, s.optimized_compiles, s.inlined_calls, s.split_functions);
    std::fprintf(stderr,
                 "jitvm: freed %" PRIu64
                 " replaced code objects; %zu allocations reused freed "
                 "memory; %zu bytes of code in use\n",
                 s.unloads, vm.heap()->reused_allocations(), vm.heap()->bytes_in_use());
    std::fprintf(stderr, "jitvm: JIT profiling API: %s\n",
                 !line.vm.use_jit_api ? "not used (--no-jit-api)"
                 : profiled           ? "reporting to a collector"
                                      : "no collector running");
  }
  std::fprintf(stderr, "jitvm: time: parse %.3f ms, run %.3f ms (compiling %.3f ms)\n",
               parse_ns / 1e6, run_ns / 1e6, s.compile_ns / 1e6);
}

int Main(int argc, char** argv) {
  const CommandLine line = ParseCommandLine(argc, argv);
  if (line.generate) {
    if (!GenerateProgram(line.generate_count, stdout)) {
      std::fprintf(stderr, "jitvm: cannot write the program: %s\n", std::strerror(errno));
      return 1;
    }
    return 0;
  }
  const uint64_t parse_start = base::MonotonicNowNs();
  auto program = LoadProgram(line.program);
  if (!program.ok()) {
    std::fprintf(stderr, "jitvm: %s\n", program.status().message().c_str());
    return 1;
  }
  const uint64_t parse_ns = base::MonotonicNowNs() - parse_start;
  Output output(stdout);
  auto vm = Vm::Create(*program, line.vm, output);
  if (!vm.ok()) {
    std::fprintf(stderr, "jitvm: %s\n", vm.status().message().c_str());
    return 1;
  }
  const uint64_t run_start = base::MonotonicNowNs();
  auto result = (*vm)->Run(line.args);
  while (result.ok() && ProcessCpuSeconds() < line.repeat_for_seconds) {
    result = (*vm)->Run(line.args);
  }
  const uint64_t run_ns = base::MonotonicNowNs() - run_start;
  output.Flush();
  const bool profiled = (*vm)->profiled();
  (*vm)->ReportShutdown();
  if (result.ok() && line.stats) {
    PrintStats(line, *program, **vm, *result, parse_ns, run_ns, profiled);
  }
  // The process is exiting and its code with it: the Vm is leaked on purpose, so profilers do
  // not see an unload of every method at exit (~Vm reports them, for Vms that end earlier).
  // A global keeps it reachable, so leak checkers do not count it.
  g_vm_kept_until_exit = vm->release();
  if (!result.ok()) {
    std::fprintf(stderr, "jitvm: %s\n", result.status().message().c_str());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace jitscope::jitvm

int main(int argc, char** argv) { return jitscope::jitvm::Main(argc, argv); }
