// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// A small oneDNN program for the end-to-end tests (onednn_test.cc): Debian's libdnnl carries its
// own copy of Intel's stub, which loads whatever INTEL_JIT_PROFILER64 names and reports every
// kernel it generates (oneDNN's jit_utils.cpp). Written against the
// oneDNN 2.x C++ API that Debian 12 ships.
//
//   onednn_workload primitives   convolution, matmul, eltwise and reorder, each created and run
//   onednn_workload many N       N primitives of changing shapes, each created, run and destroyed
//                                (with DNNL_PRIMITIVE_CACHE_CAPACITY=0 oneDNN frees their kernels
//                                and reuses the memory for the next ones)
//   onednn_workload hot SECONDS  a convolution and a matmul created once and run for SECONDS of
//                                CPU time, for a profiler
//
// Prints "pid <n>" first and "done" last.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>

#include <oneapi/dnnl/dnnl.hpp>

namespace {

using dnnl::algorithm;
using dnnl::memory;
using dnnl::prop_kind;
using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

struct Context {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
};

void RunConvolution(Context& context, int channels, int size) {
  const memory::desc src({1, channels, size, size}, dt::f32, tag::any);
  const memory::desc weights({channels * 2, channels, 3, 3}, dt::f32, tag::any);
  const memory::desc dst({1, channels * 2, size, size}, dt::f32, tag::any);
  const auto pd = dnnl::convolution_forward::primitive_desc(
      dnnl::convolution_forward::desc(prop_kind::forward_inference, algorithm::convolution_direct,
                                      src, weights, dst, {1, 1}, {1, 1}, {1, 1}),
      context.engine);
  memory src_memory(pd.src_desc(), context.engine),
      weights_memory(pd.weights_desc(), context.engine), dst_memory(pd.dst_desc(), context.engine);
  dnnl::convolution_forward(pd).execute(
      context.stream,
      {{DNNL_ARG_SRC, src_memory}, {DNNL_ARG_WEIGHTS, weights_memory}, {DNNL_ARG_DST, dst_memory}});
}

void RunMatmul(Context& context, int n) {
  const memory::desc md({n, n}, dt::f32, tag::ab);
  const auto pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(md, md, md), context.engine);
  memory a(md, context.engine), b(md, context.engine), c(md, context.engine);
  dnnl::matmul(pd).execute(context.stream,
                           {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}});
}

void RunEltwise(Context& context, algorithm kind, int n) {
  const memory::desc md({n, 16}, dt::f32, tag::ab);
  const auto pd = dnnl::eltwise_forward::primitive_desc(
      dnnl::eltwise_forward::desc(prop_kind::forward_inference, kind, md, 0.5f, 0.f),
      context.engine);
  memory src(md, context.engine), dst(md, context.engine);
  dnnl::eltwise_forward(pd).execute(context.stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
}

void RunReorder(Context& context, int channels, int size) {
  const memory::desc from({1, channels, size, size}, dt::f32, tag::nchw);
  const memory::desc to({1, channels, size, size}, dt::f32, tag::nhwc);
  memory src(from, context.engine), dst(to, context.engine);
  dnnl::reorder(src, dst).execute(context.stream, src, dst);
}

// A convolution and a matmul created once and run until `seconds` of CPU time have passed, so
// nearly all the time is spent in their kernels.
void RunHot(Context& context, double seconds) {
  const memory::desc src({1, 32, 28, 28}, dt::f32, tag::any);
  const memory::desc weights({32, 32, 3, 3}, dt::f32, tag::any);
  const auto conv_pd = dnnl::convolution_forward::primitive_desc(
      dnnl::convolution_forward::desc(prop_kind::forward_inference, algorithm::convolution_direct,
                                      src, weights, src, {1, 1}, {1, 1}, {1, 1}),
      context.engine);
  dnnl::convolution_forward conv(conv_pd);
  memory conv_src(conv_pd.src_desc(), context.engine),
      conv_weights(conv_pd.weights_desc(), context.engine),
      conv_dst(conv_pd.dst_desc(), context.engine);
  const memory::desc square({128, 128}, dt::f32, tag::ab);
  dnnl::matmul matmul(
      dnnl::matmul::primitive_desc(dnnl::matmul::desc(square, square, square), context.engine));
  memory a(square, context.engine), b(square, context.engine), c(square, context.engine);
  const std::clock_t end = std::clock() + static_cast<std::clock_t>(seconds * CLOCKS_PER_SEC);
  while (std::clock() < end) {
    for (int i = 0; i < 20; ++i) {
      conv.execute(
          context.stream,
          {{DNNL_ARG_SRC, conv_src}, {DNNL_ARG_WEIGHTS, conv_weights}, {DNNL_ARG_DST, conv_dst}});
      matmul.execute(context.stream, {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}});
    }
    context.stream.wait();
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::printf("pid %d\n", static_cast<int>(::getpid()));
  std::fflush(stdout);
  const std::string mode = argc > 1 ? argv[1] : "";
  Context context;
  if (mode == "primitives") {
    RunConvolution(context, 16, 14);
    RunMatmul(context, 64);
    RunEltwise(context, algorithm::eltwise_relu, 64);
    RunReorder(context, 16, 14);
  } else if (mode == "many" && argc > 2) {
    const int count = std::atoi(argv[2]);
    constexpr algorithm kKinds[] = {algorithm::eltwise_relu, algorithm::eltwise_tanh,
                                    algorithm::eltwise_logistic, algorithm::eltwise_swish};
    for (int i = 0; i < count; ++i) {
      switch (i % 3) {
        case 0:
          RunEltwise(context, kKinds[(i / 3) % 4], 32 + i);
          break;
        case 1:
          RunReorder(context, 8 + 8 * (i % 4), 7 + i % 5);
          break;
        case 2:
          RunMatmul(context, 16 + i);
          break;
      }
    }
  } else if (mode == "hot" && argc > 2) {
    const double seconds = std::atof(argv[2]);
    RunHot(context, seconds);
  } else {
    std::fprintf(stderr, "usage: onednn_workload primitives | many N | hot SECONDS\n");
    return 2;
  }
  context.stream.wait();
  std::printf("done\n");
  return 0;
}
