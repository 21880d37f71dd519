// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// A tiny oneDNN client for real_producers_test: a ReLU and a reorder on the CPU engine, so
// oneDNN JIT-compiles two kernels. Run with DNNL_JIT_PROFILE=4 (jitdump) and JITDUMPDIR=DIR.
#include <cstdio>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

int main() {
  using namespace dnnl;
  engine eng(engine::kind::cpu, 0);
  stream s(eng);
  memory::desc nchw({1, 16, 8, 8}, memory::data_type::f32, memory::format_tag::nchw);
  memory::desc nhwc({1, 16, 8, 8}, memory::data_type::f32, memory::format_tag::nhwc);
  std::vector<float> input(16 * 64, -1.0f);
  memory src(nchw, eng, input.data()), relu(nchw, eng), out(nhwc, eng);
  eltwise_forward::desc d(prop_kind::forward_inference, algorithm::eltwise_relu, nchw, 0.f, 0.f);
  eltwise_forward(eltwise_forward::primitive_desc(d, eng))
      .execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, relu}});
  reorder(relu, out).execute(s, relu, out);
  s.wait();
  std::printf("relu(-1) = %g\n", static_cast<float*>(out.get_data_handle())[0]);
  return 0;
}
