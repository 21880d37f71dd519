// Every method has one caller: Main calls Outer, Outer calls Middle, Middle calls Leaf (none
// inlined, so each is a frame of its own). jit_unwind_e2e_test runs it under `mono --jitmap`, which
// names the code its JIT compiles in a perf map and writes no code bytes. Argument: seconds of CPU
// time to run (the process's, all its threads), so a sampler takes as many samples on any machine.
//
//   mcs -out:three_levels.exe three_levels.cs && mono --jitmap three_levels.exe SECONDS
using System;
using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;

static class ThreeLevels {
  [MethodImpl(MethodImplOptions.NoInlining)]
  static long Leaf(long n) {
    long s = 0;
    for (long i = 0; i < n; ++i) s = (s + i * 7) % 1000003;
    return s;
  }

  [MethodImpl(MethodImplOptions.NoInlining)]
  static long Middle(long n) { return Leaf(n) + 1; }

  [MethodImpl(MethodImplOptions.NoInlining)]
  static long Outer(long n) {
    long t = 0;
    for (int k = 0; k < 20; ++k) t += Middle(n);
    return t;
  }

  static int Main(string[] args) {
    double end = double.Parse(args[0], CultureInfo.InvariantCulture);
    Process self = Process.GetCurrentProcess();
    long total = 0;
    for (;;) {
      self.Refresh();
      if (self.TotalProcessorTime.TotalSeconds >= end) break;
      total += Outer(20000);
    }
    if (total == 0) throw new Exception("no work");
    return 0;
  }
}
