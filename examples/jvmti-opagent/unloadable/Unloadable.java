// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The class Unloading.java loads, runs and drops in a class loader of its own, again and again:
// compiled apart from the other classes, off their class path, so that only that loader finds it.
public final class Unloadable {
  public static long work(long seed) {
    long x = seed;
    for (int i = 0; i < 1000; i++) {
      x = x * 6364136223846793005L + 1442695040888963407L;
    }
    return x;
  }
}
