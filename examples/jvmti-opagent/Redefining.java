// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Class redefinition, for the JVM table's tests: runs Redefined.hot round after round, and between
// rounds redefines Redefined (java.lang.instrument's redefineClasses, which is JVMTI's
// RedefineClasses) from one of its versions to the other: version 1 (Redefined.java), whose hot
// calls before, and version 2 (redefined/Redefined.java, compiled apart), whose hot calls after.
// Run as an executable jar whose manifest (Redefining.mf) names this class its
// Launcher-Agent-Class and lets it redefine classes: the JVM calls agentmain with an
// Instrumentation before main, without -javaagent.
// Each round waits `pause` milliseconds before and after its work for the JVMTI agent's thread,
// which reads every method's slot every 100 ms (300: it sees each version in the slots, and each
// version's methods after they ran; 0: versions come and go between its looks). A fixed amount
// of work, whatever the machine's speed: rounds × calls of hot, each running `iterations`
// iterations of its callee's loop. Each round but the first redefines the class `burst` times
// in a row, from one version to the other (an even number: back to the version it ran, mostly
// between two of the agent's looks, with the memory HotSpot freed and gave again on the way);
// with more than one, the program prints when each burst began and ended (System.nanoTime:
// CLOCK_MONOTONIC, as the agent's times), a line "burst <begin> <end>" each, after the versions.
// Usage: java -jar redefining.jar <directory of version 2's Redefined.class> [rounds [calls
// [iterations [pause [burst]]]]]; prints the version each round ran.
import java.io.InputStream;
import java.lang.instrument.ClassDefinition;
import java.lang.instrument.Instrumentation;
import java.nio.file.Files;
import java.nio.file.Paths;

public final class Redefining {
  private static Instrumentation instrumentation;

  public static void agentmain(String args, Instrumentation given) {
    instrumentation = given;
  }

  public static void main(String[] args) throws Exception {
    if (instrumentation == null || !instrumentation.isRedefineClassesSupported()) {
      throw new IllegalStateException("run as java -jar redefining.jar: no Instrumentation");
    }
    final byte[] first;
    try (InputStream in = Redefining.class.getResourceAsStream("/Redefined.class")) {
      first = in.readAllBytes();
    }
    final byte[][] versions = {first, Files.readAllBytes(Paths.get(args[0], "Redefined.class"))};
    final int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 6;
    final int calls = args.length > 2 ? Integer.parseInt(args[2]) : 20;
    final int iterations = args.length > 3 ? Integer.parseInt(args[3]) : 1_000_000;
    final long pause = args.length > 4 ? Long.parseLong(args[4]) : 300;
    final int burst = args.length > 5 ? Integer.parseInt(args[5]) : 1;
    final StringBuilder ran = new StringBuilder();
    final StringBuilder bursts = new StringBuilder();
    long sum = 0;
    int redefinitions = 0;
    for (int round = 0; round < rounds; round++) {
      if (round > 0) {
        final long begin = System.nanoTime();
        for (int i = 0; i < burst; i++) {
          ++redefinitions;
          instrumentation.redefineClasses(
              new ClassDefinition(Redefined.class, versions[redefinitions % 2]));
        }
        bursts.append("\nburst ").append(begin).append(' ').append(System.nanoTime());
      }
      Thread.sleep(pause);
      for (int call = 0; call < calls; call++) {
        sum += Redefined.hot(sum, iterations);
      }
      ran.append(' ').append(Redefined.version());
      Thread.sleep(pause);
    }
    System.out.println(
        "Redefining: versions" + ran + ", checksum " + sum + (burst > 1 ? bursts : ""));
  }
}
