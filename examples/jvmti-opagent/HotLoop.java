// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// A small CPU-bound Java program for the JVMTI agent's end-to-end test: one hot method, called
// often enough that HotSpot's C2 compiles it, and run long enough to be sampled.
// Usage: java -agentpath:.../libjvmti_opagent.so -cp <dir> HotLoop [milliseconds]
public final class HotLoop {
  // The hot method: an integer hash, mixed in a loop.
  static long mix(long seed, int rounds) {
    long x = seed;
    for (int i = 0; i < rounds; i++) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
      x += i;
    }
    return x;
  }

  public static void main(String[] args) {
    final long millis = args.length > 0 ? Long.parseLong(args[0]) : 1500;
    final long deadline = System.nanoTime() + millis * 1_000_000L;
    long sum = 0;
    long calls = 0;
    while (System.nanoTime() < deadline) {
      sum += mix(calls, 10_000);
      calls++;
    }
    System.out.println("HotLoop: " + calls + " calls, checksum " + sum);
  }
}
