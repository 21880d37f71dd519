// A C# program for Mono's JIT (`mono --jitmap`, which writes /tmp/perf-PID.map): a main loop that
// calls through a few levels of methods doing what programs do (arithmetic, collections, strings,
// a recursion, an interface call), so samples land in JIT code several frames deep.
//
//   mcs -out:mono_work.exe mono_work.cs && mono --jitmap mono_work.exe SECONDS
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Text;

interface IShape { double Area(); }
sealed class Circle : IShape { public double R; public double Area() { return Math.PI * R * R; } }
sealed class Square : IShape { public double S; public double Area() { return S * S; } }

static class Work {
  static long Fib(int n) { return n < 2 ? n : Fib(n - 1) + Fib(n - 2); }

  static long Mix(long seed, int rounds) {
    long x = seed;
    for (int i = 0; i < rounds; ++i) x = (x * 6364136223846793005L + 1442695040888963407L) ^ (x >> 17);
    return x;
  }

  static int CountWords(int n) {
    var counts = new Dictionary<string, int>();
    var text = new StringBuilder();
    for (int i = 0; i < n; ++i) text.Append("w").Append(i % 97).Append(' ');
    foreach (var word in text.ToString().Split(' ')) {
      int c;
      counts.TryGetValue(word, out c);
      counts[word] = c + 1;
    }
    return counts.Count;
  }

  static double Shapes(int n) {
    var shapes = new List<IShape>();
    for (int i = 0; i < n; ++i) shapes.Add(i % 2 == 0 ? (IShape)new Circle { R = i } : new Square { S = i });
    double total = 0;
    foreach (var s in shapes) total += s.Area();
    return total;
  }

  static long Leaf(int i) { return Mix(i, 20000) + Fib(18); }
  static long Middle(int i) { return Leaf(i) + CountWords(200) + (long)Shapes(100); }
  static long Outer(int i) { long t = 0; for (int k = 0; k < 4; ++k) t += Middle(i + k); return t; }

  static int Main(string[] args) {
    double seconds = args.Length > 0 ? double.Parse(args[0]) : 2;
    var watch = Stopwatch.StartNew();
    long total = 0;
    for (int i = 0; watch.Elapsed.TotalSeconds < seconds; ++i) total += Outer(i);
    Console.WriteLine(total);
    return 0;
  }
}
