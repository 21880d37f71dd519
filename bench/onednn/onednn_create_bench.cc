// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// oneDNN's primitive-creation path (JIT code generation included: the primitive cache is off),
// timed in one process under three JIT-profiling settings that oneDNN switches at run time with
// dnnl_set_jit_profiling_flags():
//   profile:0  nothing is reported (the baseline)
//   profile:1  VTune: oneDNN's bundled Intel stub reports each kernel to the collector
//              INTEL_JIT_PROFILER64 names (jitscope's, writing what JITSCOPE_FORMATS says)
//   profile:4  oneDNN writes its own perf jitdump into $JITDUMPDIR
// So the collector's added cost and oneDNN's own jitdump's added cost come from the same run, and
// --benchmark_enable_random_interleaving spreads the noise of a shared machine evenly over them.
// One iteration creates and destroys an eltwise, a reorder and a matmul primitive (shapes change
// every iteration so nothing is reused).
//
// Run: bench/onednn_jit_profile (sets up the environment and prints the ratios).
#include <dlfcn.h>
#include <stdlib.h>

#include <string>

#include <benchmark/benchmark.h>
#include <oneapi/dnnl/dnnl.hpp>

namespace {

using dnnl::algorithm;
using dnnl::memory;
using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

// Creates (and destroys) three primitives whose shapes depend on `i`.
void CreatePrimitives(const dnnl::engine& engine, int i) {
  const memory::desc vector({64 + i % 512, 16}, dt::f32, tag::ab);
  dnnl::eltwise_forward eltwise(dnnl::eltwise_forward::primitive_desc(
      dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference, algorithm::eltwise_relu,
                                  vector, 0.f, 0.f),
      engine));
  const memory::dims dims = {1, 8 + 8 * (i % 4), 7 + i % 13, 7};
  const memory::desc from(dims, dt::f32, tag::nchw), to(dims, dt::f32, tag::nhwc);
  dnnl::reorder reorder(dnnl::reorder::primitive_desc(engine, from, engine, to));
  const memory::desc square({16 + i % 64, 16 + i % 64}, dt::f32, tag::ab);
  dnnl::matmul matmul(
      dnnl::matmul::primitive_desc(dnnl::matmul::desc(square, square, square), engine));
  benchmark::DoNotOptimize(eltwise);
  benchmark::DoNotOptimize(reorder);
  benchmark::DoNotOptimize(matmul);
}

void BM_CreatePrimitives(benchmark::State& state) {
  const auto flags = static_cast<unsigned>(state.range(0));
  if (dnnl_set_jit_profiling_flags(flags) != dnnl_success) {
    state.SkipWithError("oneDNN refused the JIT profiling flags");
    return;
  }
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  static int shape = 0;
  for (auto _ : state) CreatePrimitives(engine, shape++);
  if ((flags & 1) != 0) {
    // The run measured the collector only if oneDNN's stub actually loaded it.
    const char* collector = ::getenv("INTEL_JIT_PROFILER64");
    if (collector == nullptr || ::dlopen(collector, RTLD_NOW | RTLD_NOLOAD) == nullptr) {
      state.SkipWithError("no collector loaded: set INTEL_JIT_PROFILER64");
    }
  }
  dnnl_set_jit_profiling_flags(0);
}
BENCHMARK(BM_CreatePrimitives)->ArgName("profile")->Arg(0)->Arg(1)->Arg(4)->Arg(5);

}  // namespace

int main(int argc, char** argv) {
  dnnl::set_primitive_cache_capacity(0);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
