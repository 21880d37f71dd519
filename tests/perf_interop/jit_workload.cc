// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// A tiny JIT for the perf end-to-end tests (perf_interop_test.cc): it writes real x86-64 loops
// into executable memory, reports them through jitprofiling.h, and runs them for a fixed amount
// of work, so a profiler's samples must land in them in known proportions:
//
//   hot_main   60% of the work, two regions of one method id (a split function; the second is
//              reported under another name, which "first symbolic information wins" ignores),
//              with line tables in main.js and an inline region of `helper` (helper.js)
//   hot_side   20%, reported with METHOD_LOAD_FINISHED_V2 and module "engine2"
//   phase_one  10%, then the same address is overwritten (a re-JIT) with
//   phase_two  10%
//
// Every loop body is a chain of dependent `imul` instructions, so time is proportional to
// iterations × body length whatever the machine; the iteration counts are calibrated at start (on
// a copy nobody reports) so the whole run takes about --seconds of CPU time. It prints its pid
// ("pid <n>") and the source lines perf should show ("line <file>:<line>", "absent ...").
// With --crash it kills itself with SIGKILL after phase_one instead of re-JITting and shutting
// down, to show that what the collector wrote so far is usable.
#include <signal.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "jitprofiling.h"

namespace {

// One generated loop: uint64_t f(uint64_t iterations), with its segments' offsets.
struct Loop {
  size_t size = 0;
  std::vector<unsigned> segment_ends;  // end offset of the prologue, each body segment, the tail
};

// Writes at `code`: a prologue, then a loop whose body is `segments` runs of `per_segment`
// dependent imuls, then dec rcx / jnz / ret.
Loop EmitLoop(uint8_t* code, int segments, int per_segment) {
  Loop loop;
  size_t at = 0;
  auto put = [&](std::initializer_list<uint8_t> bytes) {
    for (uint8_t b : bytes) code[at++] = b;
  };
  put({0x48, 0x89, 0xf9});              // mov rcx, rdi
  put({0xb8, 0x01, 0x00, 0x00, 0x00});  // mov eax, 1
  loop.segment_ends.push_back(static_cast<unsigned>(at));
  const size_t loop_start = at;
  for (int s = 0; s < segments; ++s) {
    for (int i = 0; i < per_segment; ++i) put({0x48, 0x6b, 0xc0, 0x07});
    loop.segment_ends.push_back(static_cast<unsigned>(at));
  }
  put({0x48, 0xff, 0xc9});  // dec rcx
  const int32_t back = static_cast<int32_t>(loop_start) - static_cast<int32_t>(at + 6);
  put({0x0f, 0x85});  // jnz rel32
  std::memcpy(code + at, &back, 4);
  at += 4;
  put({0xc3});  // ret
  loop.segment_ends.push_back(static_cast<unsigned>(at));
  loop.size = at;
  return loop;
}

using LoopFunction = uint64_t (*)(uint64_t);

void Notify(iJIT_JVM_EVENT event, void* payload) {
  if (iJIT_NotifyEvent(event, payload) != 1) {
    std::fprintf(stderr, "jit_workload: the collector refused event %d\n", event);
    std::exit(3);
  }
}

char* Text(const char* s) { return const_cast<char*>(s); }

// Reports a loop with METHOD_LOAD_FINISHED and a line table: one line per segment.
void ReportLoop(unsigned id, const char* name, const char* source, void* address, const Loop& loop,
                const std::vector<unsigned>& lines) {
  std::vector<LineNumberInfo> table;
  for (size_t i = 0; i < loop.segment_ends.size() && i < lines.size(); ++i) {
    table.push_back({loop.segment_ends[i], lines[i]});
  }
  iJIT_Method_Load load{};
  load.method_id = id;
  load.method_name = Text(name);
  load.method_load_address = address;
  load.method_size = static_cast<unsigned>(loop.size);
  load.line_number_size = static_cast<unsigned>(table.size());
  load.line_number_table = table.empty() ? nullptr : table.data();
  load.source_file_name = Text(source);
  Notify(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &load);
}

// CPU time, not wall time: on a busy machine the process may wait for a CPU during the
// calibration, and the profiler's samples count CPU time too.
double CpuSeconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double SecondsFor(LoopFunction f, uint64_t iterations) {
  const double start = CpuSeconds();
  volatile uint64_t sink = f(iterations);
  (void)sink;
  return CpuSeconds() - start;
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 1.0;
  bool crash = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) seconds = std::atof(argv[++i]);
    if (std::strcmp(argv[i], "--crash") == 0) crash = true;
  }
  std::printf("pid %d\n", static_cast<int>(::getpid()));
  std::fflush(stdout);
  if (iJIT_IsProfilingActive() != iJIT_SAMPLING_ON) {
    std::fprintf(stderr, "jit_workload: no collector (set INTEL_JIT_PROFILER64)\n");
    return 2;
  }
  constexpr size_t kPage = 4096;
  auto* memory = static_cast<uint8_t*>(::mmap(
      nullptr, 5 * kPage, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (memory == MAP_FAILED) {
    std::perror("jit_workload: mmap");
    return 2;
  }
  uint8_t* main_a = memory;                   // hot_main, first region
  uint8_t* main_b = memory + kPage;           // hot_main, second region (split function)
  uint8_t* side = memory + 2 * kPage;         // hot_side
  uint8_t* phase = memory + 3 * kPage;        // phase_one, then phase_two at the same address
  uint8_t* calibration = memory + 4 * kPage;  // never reported

  // hot_main region A: prologue, segment 1, an inline segment, segment 3, tail.
  const Loop a = EmitLoop(main_a, 3, 8);
  const unsigned main_id = iJIT_GetNewMethodID();
  ReportLoop(main_id, "hot_main", "/src/app/main.js", main_a, a, {9, 10, 11, 12, 13});
  // The middle segment is `helper` inlined: its own file and lines (offsets from its start).
  const unsigned inline_start = a.segment_ends[1];
  const unsigned inline_size = a.segment_ends[2] - inline_start;
  LineNumberInfo helper_lines[] = {{inline_size / 2, 100}, {inline_size, 101}};
  iJIT_Method_Inline_Load helper{};
  helper.method_id = iJIT_GetNewMethodID();
  helper.parent_method_id = main_id;
  helper.method_name = Text("helper");
  helper.method_load_address = main_a + inline_start;
  helper.method_size = inline_size;
  helper.line_number_size = 2;
  helper.line_number_table = helper_lines;
  helper.source_file_name = Text("/src/app/helper.js");
  Notify(iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED, &helper);

  // hot_main region B: same method id; its name and (NULL) source come from the first report.
  const Loop b = EmitLoop(main_b, 1, 24);
  std::vector<LineNumberInfo> b_lines = {
      {b.segment_ends[0], 20}, {b.segment_ends[1], 21}, {b.segment_ends[2], 22}};
  iJIT_Method_Load split{};
  split.method_id = main_id;
  split.method_name = Text("hot_main_split_alias");
  split.method_load_address = main_b;
  split.method_size = static_cast<unsigned>(b.size);
  split.line_number_size = static_cast<unsigned>(b_lines.size());
  split.line_number_table = b_lines.data();
  Notify(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &split);

  // hot_side: a V2 load with a module name.
  const Loop s = EmitLoop(side, 1, 24);
  iJIT_Method_Load_V2 side_load{};
  side_load.method_id = iJIT_GetNewMethodID();
  side_load.method_name = Text("hot_side");
  side_load.method_load_address = side;
  side_load.method_size = static_cast<unsigned>(s.size);
  side_load.source_file_name = Text("/src/app/side.js");
  side_load.module_name = Text("engine2");
  Notify(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V2, &side_load);

  const Loop p1 = EmitLoop(phase, 1, 24);
  ReportLoop(iJIT_GetNewMethodID(), "phase_one", "/src/app/phase.js", phase, p1, {});

  // Every loop runs 24 imuls per iteration: calibrate iterations per second on an unreported
  // copy, so the calibration adds no samples to any reported method.
  EmitLoop(calibration, 1, 24);
  const auto run_calibration = reinterpret_cast<LoopFunction>(calibration);
  uint64_t probe = 1 << 16;
  while (SecondsFor(run_calibration, probe) < 0.02) probe *= 2;
  const double per_second = static_cast<double>(probe) / SecondsFor(run_calibration, probe);
  const auto run_side = reinterpret_cast<LoopFunction>(side);
  auto iterations = [&](double share) {
    return static_cast<uint64_t>(per_second * seconds * share) + 1;
  };

  // Work in slices so every phase is spread over the run rather than one block.
  constexpr int kSlices = 20;
  const auto run_a = reinterpret_cast<LoopFunction>(main_a);
  const auto run_b = reinterpret_cast<LoopFunction>(main_b);
  for (int slice = 0; slice < kSlices; ++slice) {
    run_a(iterations(0.30 / kSlices));
    run_b(iterations(0.30 / kSlices));
    run_side(iterations(0.20 / kSlices));
  }
  const auto run_phase = reinterpret_cast<LoopFunction>(phase);
  run_phase(iterations(0.10));
  if (crash) {
    std::fflush(stdout);
    ::kill(::getpid(), SIGKILL);
  }

  // The re-JIT: new code at the same address, a new method. Different from phase_one so a
  // profiler that kept the old code would also disassemble wrongly.
  const Loop p2 = EmitLoop(phase, 2, 12);
  ReportLoop(iJIT_GetNewMethodID(), "phase_two", "/src/app/phase.js", phase, p2, {});
  run_phase(iterations(0.10));

  Notify(iJVM_EVENT_TYPE_SHUTDOWN, nullptr);
  // What perf should show for hot_main (perf prints file basenames).
  std::printf("line main.js:10\nline helper.js:100\nline helper.js:101\nline main.js:12\n");
  std::printf("line main.js:21\nabsent main.js:11\n");
  return 0;
}
