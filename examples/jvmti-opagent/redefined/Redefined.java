// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Version 2 of the class Redefining.java redefines (version 1 is ../Redefined.java), compiled
// apart, into a directory of its own. It has the same methods, as a redefinition must keep them
// (the same names, signatures and modifiers), but its hot calls after, not before, and each
// method is at lines version 1's same method does not use, so that a frame's line says which
// version ran it: the tests hold a stack whose hot is at this file's lines to calling after, and
// one at version 1's lines to calling before.
//
// What HotSpot does when the class is redefined (VM_RedefineClasses, at a safepoint): the class
// keeps its identity and takes the new version's methods, each a new Method* (with its own
// ConstMethod: bytecodes, line table); each jmethodID, the slot JVMTI hands out for a method,
// is pointed at the new Method* of the same name and signature; the old methods become
// "previous versions", kept while a frame still runs them (obsolete, or equivalent modulo the
// constant pool, EMCP) and freed otherwise, their memory free for whatever is allocated next.
// A frame of hot, as the interpreter runs it, holds the Method* of the version it was called
// in; the JVMTI agent's table says which version each Method* was when.
//
// The driver waits for the agent between redefinitions, so the agent sees every version; its
// table names each version's methods from the version's own bytecodes and lines.
public final class Redefined {
  static int version() {
    return 2;
  }

  static long hot(long seed, int iterations) {
    return after(seed, iterations) + 1;
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
