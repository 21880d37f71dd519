// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Version 1 of the class Redefining.java redefines: hot calls before. Version 2
// (redefined/Redefined.java) has the same methods (a redefinition keeps them) at other lines, and
// its hot calls after: a frame's line says which version ran it.
public final class Redefined {
  static int version() {
    return 1;
  }

  static long hot(long seed, int iterations) {
    return before(seed, iterations) + 1;
  }

  static long before(long seed, int iterations) {
    long x = seed;
    for (int i = 0; i < iterations; i++) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
    }
    return x;
  }

  static long after(long seed, int iterations) {
    long x = seed;
    for (int i = 0; i < iterations; i++) {
      x = x * 6364136223846793005L + 1442695040888963407L;
    }
    return x;
  }
}
