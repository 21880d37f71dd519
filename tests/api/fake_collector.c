/* Copyright 2026 The jitscope Authors
 * SPDX-License-Identifier: Apache-2.0 */

/*
 * A stand-in collector for the stub tests. It speaks the collector protocol (Intel's
 * stub: exports `unsigned int Initialize(void)` and
 * `unsigned int NotifyEvent(unsigned int, void*)`) and records what arrives, so stub_probe can
 * ask it afterwards through the FakeCollector* functions.
 *
 * One source, four libraries (tests/api/CMakeLists.txt):
 *   fake_collector_ok            Initialize returns 1
 *   fake_collector_init_zero     FAKE_INITIALIZE_RESULT=0
 *   fake_collector_no_notify     FAKE_WITHOUT_NOTIFY_EVENT: exports no NotifyEvent
 *   fake_collector_no_initialize FAKE_WITHOUT_INITIALIZE: exports no Initialize
 *   fake_collector_reentrant     FAKE_REENTER: Initialize calls iJIT_IsProfilingActive, as a
 *                                collector that is itself a JIT client might
 *   fake_collector_slow_load     FAKE_SLOW_LOAD: a constructor that holds dlopen open until the
 *                                probe says so (FAKE_LOAD_PIPES="<entered fd> <resume fd>"): it
 *                                writes a byte to the first fd, then reads one from the second
 */

#define _GNU_SOURCE /* RTLD_DEFAULT */

#include <dlfcn.h>
#include <stddef.h>
#include <time.h>

#ifndef FAKE_INITIALIZE_RESULT
#define FAKE_INITIALIZE_RESULT 1u
#endif

#ifdef FAKE_SLOW_LOAD
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void HoldTheLoad(void) {
  const char* pipes = getenv("FAKE_LOAD_PIPES");
  int entered = -1;
  int resume = -1;
  char byte = 1;
  if (pipes == NULL || sscanf(pipes, "%d %d", &entered, &resume) != 2) return;
  if (write(entered, &byte, 1) != 1 || read(resume, &byte, 1) != 1) abort();
}
#endif

static unsigned int g_initialize_calls;
static unsigned int g_notify_calls;
static unsigned int g_last_event;
static void* g_last_payload;
static int g_reentry_result = -1; /* FAKE_REENTER: what the nested call returned */

#ifndef FAKE_WITHOUT_INITIALIZE
unsigned int Initialize(void) {
  /* Keep the stub's loading window open long enough that racing first calls really overlap. */
  struct timespec delay = {0, 30 * 1000 * 1000};
  __atomic_add_fetch(&g_initialize_calls, 1u, __ATOMIC_SEQ_CST);
  nanosleep(&delay, NULL);
#ifdef FAKE_REENTER
  {
    /* Found in whichever stub loaded us, if that stub's symbols are global (libjitprofiling.so). */
    void* symbol = dlsym(RTLD_DEFAULT, "iJIT_IsProfilingActive");
    if (symbol != NULL) g_reentry_result = ((int (*)(void))symbol)();
  }
#endif
  return FAKE_INITIALIZE_RESULT;
}
#endif

#ifndef FAKE_WITHOUT_NOTIFY_EVENT
/* Returns 100 + event type, so a test can tell the collector's answer from the stub's own 0/1. */
unsigned int NotifyEvent(unsigned int event_type, void* data) {
  __atomic_store_n(&g_last_event, event_type, __ATOMIC_SEQ_CST);
  __atomic_store_n(&g_last_payload, data, __ATOMIC_SEQ_CST);
  __atomic_add_fetch(&g_notify_calls, 1u, __ATOMIC_SEQ_CST);
  return 100u + event_type;
}
#endif

unsigned int FakeCollectorInitializeCalls(void) {
  return __atomic_load_n(&g_initialize_calls, __ATOMIC_SEQ_CST);
}
unsigned int FakeCollectorNotifyCalls(void) {
  return __atomic_load_n(&g_notify_calls, __ATOMIC_SEQ_CST);
}
unsigned int FakeCollectorLastEvent(void) {
  return __atomic_load_n(&g_last_event, __ATOMIC_SEQ_CST);
}
int FakeCollectorReentryResult(void) { return g_reentry_result; }
void* FakeCollectorLastPayload(void) { return __atomic_load_n(&g_last_payload, __ATOMIC_SEQ_CST); }
