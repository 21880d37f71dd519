// Copyright 2026 The jitscope Authors
// SPDX-License-Identifier: Apache-2.0

// The stub with no collector (docs/architecture.md: "when profiling is off, the API costs a load
// and a branch"), against an empty out-of-line call as the baseline. Target: at most 2 ns per call.
// main() clears the collector variables before the first API call, because the stub decides
// once per process whether a collector exists.

#include <stdlib.h>

#include <benchmark/benchmark.h>

#include "jitprofiling.h"

namespace {

// The baseline: a call the compiler can neither inline nor drop, with the same signature as
// iJIT_NotifyEvent.
__attribute__((noinline)) int EmptyNotify(iJIT_JVM_EVENT event_type, void* data) {
  benchmark::DoNotOptimize(event_type);
  benchmark::DoNotOptimize(data);
  return 0;
}

iJIT_Method_Load MakeLoad() {
  static unsigned char code[64];
  static char name[] = "bench_method";
  iJIT_Method_Load load{};
  load.method_id = 1000;
  load.method_name = name;
  load.method_load_address = code;
  load.method_size = sizeof code;
  return load;
}

void BM_EmptyCallBaseline(benchmark::State& state) {
  iJIT_Method_Load load = MakeLoad();
  for (auto _ : state) {
    benchmark::DoNotOptimize(EmptyNotify(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &load));
  }
}
BENCHMARK(BM_EmptyCallBaseline);

void BM_NotifyEventNoCollector(benchmark::State& state) {
  iJIT_Method_Load load = MakeLoad();
  for (auto _ : state) {
    benchmark::DoNotOptimize(iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &load));
  }
}
BENCHMARK(BM_NotifyEventNoCollector);

void BM_IsProfilingActiveNoCollector(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(iJIT_IsProfilingActive());
}
BENCHMARK(BM_IsProfilingActiveNoCollector);

// Not part of the 2 ns target: one uncontended compare-and-swap per id.
void BM_GetNewMethodID(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(iJIT_GetNewMethodID());
}
BENCHMARK(BM_GetNewMethodID);

}  // namespace

int main(int argc, char** argv) {
  unsetenv("INTEL_JIT_PROFILER64");
  unsetenv("INTEL_JIT_PROFILER32");
  if (iJIT_IsProfilingActive() != iJIT_NOTHING_RUNNING) return 1;  // the decision is now made
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
