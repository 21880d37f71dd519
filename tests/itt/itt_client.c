/* Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
 *
 * A program that carries an ittnotify static part (fake_static_part.h) and makes ITT calls into
 * the collector INTEL_LIBITTNOTIFY64 (INTEL_LIBITTNOTIFY32 when built for i386) names, as oneDNN
 * and TBB do, for itt_e2e_test.cc. Plain C99: the test builds it for i386 too.
 *
 *   itt_client calls [old-layout]   every call the collector records, once or more each, with a
 *                                   domain and a handle of the static part's own made before the
 *                                   collector was loaded; old-layout: a static part of build
 *                                   20100101, whose API list has no null_func
 *   itt_client hostile              NULL domains and handles, ends without begins, an id begun
 *                                   twice, tasks never ended
 *   itt_client strings N            N distinct string handles, each used by one task; prints
 *                                   "heap BYTES", what the process's heap grew by meanwhile
 *   itt_client timeline             a task "compute" that spins 120 ms of CPU time with a marker
 *                                   "halfway" in its middle, then a task "wait" that sleeps 80 ms,
 *                                   a counter "timeline/queue" 3, 7 and 0 before, between and
 *                                   after them, and 30 ms more of CPU time: what the HTML report's
 *                                   timeline draws
 *
 * Exits 0 after "done", 2 when no collector could be loaded, 3 when the collector wired a function
 * it does not implement, 4 when it left one it does unwired, 5 when a creation did not give the
 * same handle for the same name.
 */
#include <malloc.h>
#include <stdio.h>
#include <time.h>

#include "fake_static_part.h"

static FakeItt itt;

static int Calls(void) {
  FakeIttDomain* early = fake_itt_domain(&itt, "early.domain");
  FakeIttHandle* early_task = fake_itt_handle(&itt, "early_task");
  FakeIttDomain* domain;
  FakeIttHandle *outer, *inner;
  FakeIttCounter *requests, *load, *small;
  FakeIttId frame;
  unsigned long long now;
  double half = 0.5;
  short minus_two = -2;
  (void)early;
  domain = itt.domain_create("test.domain");
  if (itt.domain_create("test.domain") != domain) return 5;
  outer = itt.string_handle_create("outer");
  inner = itt.string_handle_create("inner");
  if (itt.string_handle_create("outer") != outer) return 5;
  itt.thread_set_name("main thread");
  /* Nested tasks, the inner naming the outer as its parent. */
  itt.task_begin(domain, fake_itt_id(1, 0), fake_itt_null, outer);
  itt.task_begin(domain, fake_itt_null, fake_itt_id(1, 0), inner);
  itt.task_end(domain);
  itt.task_end(domain);
  /* A domain and a name the static part made before the collector was loaded. */
  itt.task_begin(early, fake_itt_null, fake_itt_null, early_task);
  itt.task_end(early);
  itt.task_begin_fn(domain, fake_itt_null, fake_itt_null, (void*)0x1234);
  itt.task_end(domain);
  /* Overlapped tasks end in the order they began, not nested. */
  itt.task_begin_overlapped(domain, fake_itt_id(2, 0), fake_itt_null, outer);
  itt.task_begin_overlapped(domain, fake_itt_id(3, 0), fake_itt_null, inner);
  itt.task_end_overlapped(domain, fake_itt_id(2, 0));
  itt.task_end_overlapped(domain, fake_itt_id(3, 0));
  itt.region_begin(domain, fake_itt_id(4, 7), fake_itt_null, outer);
  itt.region_end(domain, fake_itt_id(4, 7));
  itt.task_group(domain, fake_itt_id(5, 0), fake_itt_null, outer);
  itt.frame_begin_v3(domain, NULL);
  itt.frame_end_v3(domain, NULL);
  itt.marker(domain, fake_itt_null, inner, 1);
  requests = itt.counter_create("requests", "test.domain");
  itt.counter_inc(requests);
  itt.counter_inc_delta(requests, 10);
  itt.counter_dec(requests);
  load = itt.counter_create_typed("load", NULL, 8);
  itt.counter_set_value(load, &half);
  itt.counter_inc(load);
  small = itt.counter_create_typed("small", "test.domain", 6);
  itt.counter_set_value(small, &minus_two);
  itt.counter_dec_delta(small, 32767); /* -32769 wraps to 32767 */
  itt.counter_inc_v3(domain, inner);
  itt.counter_inc_delta_v3(domain, inner, 5);
  /* Last: a frame of 1000 ns submitted from this collector's clock, after every record above. */
  frame = fake_itt_id(6, 0);
  now = itt.get_timestamp();
  itt.frame_submit_v3(domain, &frame, now, now + 1000);
  return 0;
}

static int Hostile(void) {
  FakeIttDomain* domain = itt.domain_create("hostile");
  FakeIttDomain* nameless = fake_itt_domain(&itt, NULL);
  FakeIttHandle* task = itt.string_handle_create("task");
  FakeIttCounter* counter = itt.counter_create("counter", NULL);
  int i;
  itt.task_begin(NULL, fake_itt_null, fake_itt_null, task);
  itt.task_end(NULL);
  itt.task_begin(nameless, fake_itt_null, fake_itt_null, task);
  itt.task_begin(domain, fake_itt_null, fake_itt_null, NULL);
  itt.task_end(domain);
  itt.task_end(domain); /* no task is open */
  itt.task_begin_overlapped(domain, fake_itt_id(9, 0), fake_itt_null, task);
  itt.task_begin_overlapped(domain, fake_itt_id(9, 0), fake_itt_null, task);
  itt.task_end_overlapped(domain, fake_itt_id(9, 0));
  itt.region_end(domain, fake_itt_id(10, 0)); /* never begun */
  if (itt.domain_create(NULL) != NULL || itt.string_handle_create(NULL) != NULL ||
      itt.counter_create(NULL, "x") != NULL) {
    return 5;
  }
  itt.thread_set_name(NULL);
  itt.marker(NULL, fake_itt_null, task, 1);
  itt.counter_inc(NULL);
  itt.counter_set_value(counter, NULL);
  itt.counter_inc_v3(domain, NULL);
  /* Tasks this thread never ends. */
  for (i = 0; i < 3; ++i) itt.task_begin(domain, fake_itt_null, fake_itt_null, task);
  return 0;
}

static int Strings(long count) {
  char name[32];
  long i;
  FakeIttDomain* domain = itt.domain_create("strings");
  struct mallinfo2 before = mallinfo2(), after;
  for (i = 0; i < count; ++i) {
    FakeIttHandle* handle;
    snprintf(name, sizeof(name), "handle-%ld", i);
    handle = itt.string_handle_create(name);
    if (handle == NULL) return 5;
    itt.task_begin(domain, fake_itt_null, fake_itt_null, handle);
    itt.task_end(domain);
  }
  after = mallinfo2();
  printf("heap %ld\n", (long)((after.uordblks + after.hblkhd) - (before.uordblks + before.hblkhd)));
  return 0;
}

/* Spins until this process has used `ms` more milliseconds of CPU time. */
static void Spin(long ms) {
  volatile unsigned long sink = 0;
  const clock_t until = clock() + (clock_t)(ms * (CLOCKS_PER_SEC / 1000));
  while (clock() < until) ++sink;
}

static int Timeline(void) {
  FakeIttDomain* domain = itt.domain_create("timeline");
  FakeIttHandle* compute = itt.string_handle_create("compute");
  FakeIttHandle* wait = itt.string_handle_create("wait");
  FakeIttHandle* halfway = itt.string_handle_create("halfway");
  FakeIttCounter* queue = itt.counter_create("queue", "timeline");
  unsigned long long depth = 3;
  struct timespec pause = {0, 80 * 1000 * 1000};
  itt.counter_set_value(queue, &depth);
  itt.task_begin(domain, fake_itt_null, fake_itt_null, compute);
  Spin(60);
  itt.marker(domain, fake_itt_null, halfway, 3); /* __itt_scope_track: this thread's */
  Spin(60);
  itt.task_end(domain);
  depth = 7;
  itt.counter_set_value(queue, &depth);
  itt.task_begin(domain, fake_itt_null, fake_itt_null, wait);
  if (nanosleep(&pause, NULL) != 0) return 1;
  itt.task_end(domain);
  depth = 0;
  itt.counter_set_value(queue, &depth);
  Spin(30);
  return 0;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  int old_layout = argc > 2 && strcmp(argv[2], "old-layout") == 0;
  int status = 1;
  fake_itt_init(&itt, old_layout);
  if (fake_itt_load(&itt, getenv(sizeof(void*) == 8 ? "INTEL_LIBITTNOTIFY64"
                                                    : "INTEL_LIBITTNOTIFY32")) != 0) {
    fprintf(stderr, "itt_client: no collector: %s\n", dlerror());
    return 2;
  }
  if (itt.sync_prepare != NULL || itt.heap_allocate_begin != NULL) return 3;
  if (itt.domain_create == NULL || itt.task_begin == NULL || itt.task_end == NULL ||
      itt.counter_set_value == NULL || itt.get_timestamp == NULL) {
    return 4;
  }
  if (strcmp(mode, "calls") == 0) status = Calls();
  if (strcmp(mode, "hostile") == 0) status = Hostile();
  if (strcmp(mode, "strings") == 0 && argc > 2) status = Strings(atol(argv[2]));
  if (strcmp(mode, "timeline") == 0) status = Timeline();
  if (status == 0) printf("done\n");
  return status;
}
