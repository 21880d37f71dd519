// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// A ground truth for Java stacks: main → a → b → c, and c runs nearly all the time, so nearly
// every sample of the main thread has exactly that chain. Shaped so that, in mixed mode, the
// outer frames stay interpreted while the inner ones are compiled: main calls a at most 50 times
// and each a calls b 400 times (so neither reaches HotSpot's thresholds for compiling, 100
// invocations with 2,000 loop iterations, or 60,000 iterations for on-stack replacement), while b
// runs 20,000 times and C2 compiles it with c inlined. Under -Xint every frame is interpreted.
// Usage: java -cp <dir> CallChain [milliseconds [iterations of c [calls of a, at most 50]]]; it
// ends when the time is up or the calls are made, whichever comes first (a test that must not
// depend on the machine's speed gives it all the time and counts calls).
public final class CallChain {
  static long c(long seed, int rounds) {
    long x = seed;
    for (int i = 0; i < rounds; i++) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
      x += i;
    }
    return x;
  }

  static long b(long seed, int rounds) {
    return c(seed, rounds) + 1;
  }

  static long a(long seed, int rounds) {
    long sum = 0;
    for (int k = 0; k < 400; k++) {
      sum += b(seed + k, rounds);
    }
    return sum;
  }

  public static void main(String[] args) {
    final long millis = args.length > 0 ? Long.parseLong(args[0]) : 2000;
    final int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
    final int most = Math.min(args.length > 2 ? Integer.parseInt(args[2]) : 50, 50);
    final long deadline = System.nanoTime() + millis * 1_000_000L;
    long sum = 0;
    int calls = 0;
    while (calls < most && System.nanoTime() < deadline) {
      sum += a(sum, rounds);
      calls++;
    }
    System.out.println("CallChain: " + calls + " calls of a, checksum " + sum);
  }
}
