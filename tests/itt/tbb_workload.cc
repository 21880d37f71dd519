// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// A small TBB program for itt_libraries_test.cc: Debian's libtbb12 carries its own copy of
// ittnotify's static part, which loads whatever INTEL_LIBITTNOTIFY64 names and reports TBB's
// algorithms as tasks. One parallel_for, one parallel_reduce and one task_group, each long enough
// for the workers to take part. Prints "pid <n>" first and "done" last.
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <functional>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <tbb/task_group.h>

namespace {

double Work(int i) {
  double x = i;
  for (int k = 0; k < 2000; ++k) x = std::sqrt(x + k);
  return x;
}

}  // namespace

int main() {
  std::printf("pid %d\n", static_cast<int>(::getpid()));
  std::fflush(stdout);
  std::atomic<long> sum{0};
  tbb::parallel_for(0, 20000, [&](int i) { sum += static_cast<long>(Work(i)); });
  const double reduced = tbb::parallel_reduce(
      tbb::blocked_range<int>(0, 20000), 0.0,
      [](const tbb::blocked_range<int>& range, double value) {
        for (int i = range.begin(); i < range.end(); ++i) value += Work(i);
        return value;
      },
      std::plus<double>());
  tbb::task_group group;
  for (int t = 0; t < 4; ++t) group.run([&, t] { sum += static_cast<long>(Work(t)); });
  group.wait();
  std::printf("done %ld %.0f\n", sum.load(), reduced);
  return 0;
}
