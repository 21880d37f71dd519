// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// A Java program shaped like a service's work, for bench/stack_completeness's `java-service`:
// a pool of worker threads takes requests from a queue, and each request is handled the way
// services handle theirs: a JSON-like body built with StringBuilder and String.format, parsed
// back with a regex and split, records grouped and sorted through streams and lambdas, a
// SHA-256 digest of the body, a BigInteger modPow, HashMap churn that keeps the garbage collector
// busy, and a recursive helper a few levels deep. Most of it is the JDK's code, interpreted at
// first and compiled as it gets hot, with inlining across the JDK and into lambdas.
// Usage: java JavaService [milliseconds [workers]]
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

public final class JavaService {
  record Order(int id, String customer, long cents, List<String> items) {}

  private static final Pattern FIELD = Pattern.compile("\"(\\w+)\":\"?([^\",}]*)\"?");
  private static final String[] CUSTOMERS = {"ada", "brian", "chen", "dana", "emil", "fatou"};
  private static final String[] ITEMS = {"tea", "bread", "rice", "soap", "lamp", "pens", "milk"};

  static String toJson(Order order) {
    StringBuilder body = new StringBuilder(128);
    body.append("{\"id\":").append(order.id()).append(",\"customer\":\"").append(order.customer())
        .append("\",\"total\":\"").append(String.format("%d.%02d", order.cents() / 100,
                                                         order.cents() % 100))
        .append("\",\"items\":\"").append(String.join(";", order.items())).append("\"}");
    return body.toString();
  }

  static Order fromJson(String body) {
    Map<String, String> fields = new HashMap<>();
    Matcher m = FIELD.matcher(body);
    while (m.find()) fields.put(m.group(1), m.group(2));
    String[] total = fields.get("total").split("\\.");
    List<String> items = List.of(fields.get("items").split(";"));
    return new Order(Integer.parseInt(fields.get("id")), fields.get("customer"),
                     Long.parseLong(total[0]) * 100 + Long.parseLong(total[1]), items);
  }

  // A few frames of recursion, as tree walks and visitors make.
  static long checksum(byte[] bytes, int from, int to, int depth) {
    if (depth == 0 || to - from < 8) {
      long sum = 17;
      for (int i = from; i < to; i++) sum = sum * 31 + bytes[i];
      return sum;
    }
    int middle = (from + to) >>> 1;
    return checksum(bytes, from, middle, depth - 1) ^ checksum(bytes, middle, to, depth - 1);
  }

  static long handle(int request, MessageDigest sha) {
    List<Order> orders = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      int n = request * 40 + i;
      List<String> items = new ArrayList<>();
      for (int k = 0; k <= n % 4; k++) items.add(ITEMS[(n + k) % ITEMS.length]);
      Order order = new Order(n, CUSTOMERS[n % CUSTOMERS.length], 99L + (n * 37L) % 10_000, items);
      orders.add(fromJson(toJson(order)));
    }
    Map<String, Long> byCustomer = orders.stream().collect(
        Collectors.groupingBy(Order::customer, Collectors.summingLong(Order::cents)));
    String report = byCustomer.entrySet().stream()
                        .sorted(Map.Entry.comparingByValue())
                        .map(e -> e.getKey() + "=" + e.getValue())
                        .collect(Collectors.joining(","));
    byte[] digest = sha.digest(report.getBytes(StandardCharsets.UTF_8));
    BigInteger power = new BigInteger(1, digest).modPow(BigInteger.valueOf(65537),
                                                          BigInteger.valueOf(1_000_000_007L));
    return power.longValue() ^ checksum(report.getBytes(StandardCharsets.UTF_8), 0,
                                         report.length(), 4);
  }

  public static void main(String[] args) throws InterruptedException {
    final long millis = args.length > 0 ? Long.parseLong(args[0]) : 2000;
    final int workers = args.length > 1 ? Integer.parseInt(args[1]) : 2;
    final long deadline = System.nanoTime() + millis * 1_000_000L;
    final BlockingQueue<Integer> requests = new ArrayBlockingQueue<>(64);
    final AtomicLong handled = new AtomicLong();
    final AtomicLong result = new AtomicLong();
    List<Thread> threads = new ArrayList<>();
    for (int w = 0; w < workers; w++) {
      Thread worker = new Thread(() -> {
        try {
          MessageDigest sha = MessageDigest.getInstance("SHA-256");
          for (int request; (request = requests.take()) >= 0;) {
            result.addAndGet(handle(request, sha));
            handled.incrementAndGet();
          }
        } catch (InterruptedException | NoSuchAlgorithmException e) {
          throw new IllegalStateException(e);
        }
      }, "worker-" + w);
      worker.start();
      threads.add(worker);
    }
    for (int request = 0; System.nanoTime() < deadline; request++) requests.put(request);
    for (int w = 0; w < workers; w++) requests.put(-1);
    for (Thread worker : threads) worker.join();
    System.out.println("JavaService: " + handled.get() + " requests, checksum " + result.get());
  }
}
