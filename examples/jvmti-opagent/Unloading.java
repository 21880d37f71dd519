// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Class unloading, for the JVM table's test: loads Unloadable (compiled into a directory of its
// own) through a new class loader each round, runs both its methods (its constructor and work),
// drops the loader and collects, so HotSpot unloads the class and frees its methods; a later
// round's class may get the same addresses.
// Each round waits for the JVMTI agent's thread, which reads every method's slot every 100 ms.
// Usage: java -cp <dir> Unloading <directory of Unloadable.class> [rounds]
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Paths;

public final class Unloading {
  // Makes an Unloadable and runs its work, in a frame of its own: no local of main's keeps the
  // class reachable.
  static long round(URLClassLoader loader, long seed) throws Exception {
    final Class<?> unloadable = loader.loadClass("Unloadable");
    unloadable.getConstructor().newInstance();
    return (Long) unloadable.getMethod("work", long.class).invoke(null, seed);
  }

  public static void main(String[] args) throws Exception {
    final URL[] path = {Paths.get(args[0]).toUri().toURL()};
    final int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    long sum = 0;
    for (int round = 0; round < rounds; round++) {
      URLClassLoader loader = new URLClassLoader(path, null);
      sum += round(loader, sum);
      loader.close();
      loader = null;
      for (int i = 0; i < 3; i++) System.gc();
      Thread.sleep(300);
    }
    System.out.println("Unloading: " + rounds + " rounds, checksum " + sum);
  }
}
