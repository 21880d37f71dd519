/* Copyright 2026 The jitscope Authors
 * SPDX-License-Identifier: Apache-2.0 */

/*
 * jitprofiling.c: jitscope's stub for the Intel JIT Profiling API.
 *
 * The stub is the part of the API that lives inside the JIT engine. It finds the collector named
 * by INTEL_JIT_PROFILER64 (INTEL_JIT_PROFILER32 in 32-bit processes), forwards every event to the
 * collector's NotifyEvent, and hands out method ids. With no collector every call is a no-op that
 * costs one load and one branch. The collector protocol (two C exports, Initialize and
 * NotifyEvent) is the one Intel's stub uses, so this stub works with VTune's collector and
 * Intel's stub works with jitscope's.
 *
 * Vendoring: this file and include/jitprofiling.h are all a project needs to copy. It is C99,
 * also compiles as C++, and depends on libc and dlopen only (link -ldl on glibc older than 2.34).
 * It uses the GCC/Clang __atomic builtins and __thread.
 *
 * Differences from Intel's stub (docs/sources.md), all invisible to well-behaved callers:
 *  - Thread-safe: concurrent first calls load the collector and call Initialize exactly once,
 *    and iJIT_GetNewMethodID never hands out an id twice. Intel's stub has no locking at all.
 *  - A child forked while another thread of its parent was loading the collector loads it afresh
 *    rather than waiting for a thread that does not exist in the child; if that thread was inside
 *    dlopen, where glibc makes loading in the child abort, the child runs without a collector.
 *  - A NULL payload for an event that needs one returns 0 instead of crashing.
 *  - Method ids start at 1000, not 1, so they also pass collectors that follow the old
 *    "ids below 999 are reserved" rule (Intel's guide; the legacy stubs).
 *  - An empty INTEL_JIT_PROFILER64 counts as unset; a failed load says why, once, on stderr.
 *
 * Compile-time options:
 *  - JITSCOPE_JIT_LEGACY_API: also define the legacy functions iJIT_RegisterCallbackEx,
 *    FinalizeThread and FinalizeProcess (see jitprofiling.h). Nothing else changes.
 *  - JITSCOPE_STUB_TEST_FIRST_ID: test-only. Sets the first id iJIT_GetNewMethodID returns, so
 *    tests can reach id exhaustion without four billion calls. Never set it in a product.
 */

#include "jitprofiling.h"

#include <dlfcn.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The collector's two exports (Intel's stub). Both return unsigned int; NotifyEvent's result is
 * handed to the caller of iJIT_NotifyEvent cast to int, unchanged. */
typedef unsigned int(JITAPI_CDECL* JitscopeInitializeFn)(void);
typedef unsigned int(JITAPI_CDECL* JitscopeNotifyEventFn)(unsigned int, void*);

/* Intel chooses the variable by architecture (Intel's stub). We choose it by pointer
 * width: a 32-bit process needs a 32-bit collector whatever the instruction set, and the two names
 * exist precisely so one environment can serve 32- and 64-bit processes. This matches Intel on
 * x86 and x86-64; it differs only on 32-bit non-x86 targets, where Intel reads the 64 name. */
#if UINTPTR_MAX == 0xFFFFFFFFu
#define JITSCOPE_COLLECTOR_ENV "INTEL_JIT_PROFILER32"
#else
#define JITSCOPE_COLLECTOR_ENV "INTEL_JIT_PROFILER64"
#endif

#if defined(__GNUC__)
#define JITSCOPE_COLD __attribute__((noinline, cold))
#define JITSCOPE_LIKELY(condition) __builtin_expect(!!(condition), 1)
#else
#define JITSCOPE_COLD
#define JITSCOPE_LIKELY(condition) (condition)
#endif

/* ---- Collector state ----
 *
 * g_state is a one-way state machine in one word, read and written only through __atomic
 * builtins: kUnloaded -> Loading(pid) -> kReady or kNoCollector (sticky). The CAS winner alone
 * runs dlopen and Initialize and publishes g_notify and g_mode with a release store, so the hot
 * path is one acquire load, a compare and a branch. The pid in Loading lets a child forked
 * mid-load load afresh. Why it is built this way, and the alternatives rejected:
 * docs/internals.md, "The stub's loading state machine". */
enum { kUnloaded = 0, kReady = 1, kNoCollector = 2, kLoadingBase = 3 };

static unsigned int g_state = kUnloaded;
static int g_in_dlopen; /* 1 while the loading thread is inside dlopen */
static JitscopeNotifyEventFn g_notify;
static unsigned int g_mode = iJIT_NOTHING_RUNNING;
#ifdef JITSCOPE_JIT_LEGACY_API
static void* g_handle; /* only FinalizeProcess closes it */
#endif

/* Set while this thread runs the loader. If the collector's Initialize calls back into the API on
 * the same thread, that call must not wait for the load it is part of: it would wait forever. It
 * answers "no collector" instead. Touched only on the slow path. */
static __thread int t_loading_here;

static void ReportLoadFailure(const char* why) {
  /* Only reached when the user named a collector and it cannot be used: a configuration error
   * worth one line, rather than profiling that silently never starts. */
  fprintf(stderr, "jitprofiling: profiling is off: %s does not name a usable collector: %s\n",
          JITSCOPE_COLLECTOR_ENV, why);
}

/* Looks up one of the collector's exports, saying why on failure. */
static void* LookUp(void* handle, const char* name) {
  void* symbol;
  (void)dlerror(); /* clear a stale error so the message below is about this lookup */
  symbol = dlsym(handle, name);
  if (symbol == NULL) {
    const char* error = dlerror();
    ReportLoadFailure(error != NULL ? error : "NotifyEvent or Initialize resolves to NULL");
  }
  return symbol;
}

/* Runs once per process, on the thread that claimed the load. Returns the final state. */
static unsigned int LoadCollector(void) {
  const char* path = getenv(JITSCOPE_COLLECTOR_ENV);
  void* handle;
  void* notify_symbol;
  void* initialize_symbol;
  JitscopeInitializeFn initialize;

  /* Intel's stub would dlopen(""), which glibc resolves to the main program; an empty value is
   * what `VAR= cmd` produces to switch profiling off, so treat it as unset. */
  if (path == NULL || path[0] == '\0') return kNoCollector;

  /* RTLD_LAZY: the flag Intel's stub uses, so a collector that loads
   * under Intel's stub loads under ours, including one with optional symbols bound late.
   * RTLD_LOCAL: the collector's symbols (a generic "Initialize", its copies of libraries) stay out
   * of the global namespace, so they cannot interpose on the application or on libraries it
   * loads later. RTLD_GLOBAL would buy nothing: we reach the collector only through dlsym. */
  __atomic_store_n(&g_in_dlopen, 1, __ATOMIC_SEQ_CST);
  handle = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
  __atomic_store_n(&g_in_dlopen, 0, __ATOMIC_SEQ_CST);
  if (handle == NULL) {
    const char* error = dlerror();
    ReportLoadFailure(error != NULL ? error : path);
    return kNoCollector;
  }

  /* On a missing symbol the handle is kept open on purpose: the library's constructors have
   * already run and may have started threads or registered atexit handlers that point into it,
   * so unloading it could crash the process later. Intel's stub leaks it too. */
  notify_symbol = LookUp(handle, "NotifyEvent");
  if (notify_symbol == NULL) return kNoCollector;
  initialize_symbol = LookUp(handle, "Initialize");
  if (initialize_symbol == NULL) return kNoCollector;
  /* dlsym returns an object pointer. POSIX guarantees that it can hold a function pointer;
   * copying the bytes avoids the object-to-function cast that ISO C and C++ both frown on. */
  memcpy(&g_notify, &notify_symbol, sizeof g_notify);
  memcpy(&initialize, &initialize_symbol, sizeof initialize);
#ifdef JITSCOPE_JIT_LEGACY_API
  g_handle = handle;
#endif

  /* The mode is whatever Initialize returns, kept as is (Intel's stub). Events are
   * forwarded even when it is iJIT_NOTHING_RUNNING: Intel's stub does not check the mode before
   * forwarding (Intel's stub), and collectors may rely on that. */
  t_loading_here = 1;
  g_mode = initialize();
  t_loading_here = 0;
  return kReady;
}

/* The Loading state of this process. */
static unsigned int LoadingHere(void) { return kLoadingBase + (unsigned int)getpid(); }

/* Waits while another thread of this process loads the collector; returns the state after. */
static unsigned int WaitWhileLoading(unsigned int loading_here) {
  unsigned int state;
  while ((state = __atomic_load_n(&g_state, __ATOMIC_ACQUIRE)) == loading_here) sched_yield();
  return state;
}

/* The slow path of the first calls: loads the collector unless that has been decided already.
 * Returns kReady or kNoCollector (or, for a re-entrant call from Initialize, the Loading state).
 * Kept out of line so the hot path of the public functions stays a load, a compare and a branch. */
JITSCOPE_COLD static unsigned int EnsureLoaded(void) {
  const unsigned int loading_here = LoadingHere();
  unsigned int state = __atomic_load_n(&g_state, __ATOMIC_ACQUIRE);
  for (;;) {
    if (state == kReady || state == kNoCollector) return state;
    if (state == loading_here) {
      if (t_loading_here) return state;
      state = WaitWhileLoading(loading_here);
      continue;
    }
    if (state != kUnloaded && __atomic_load_n(&g_in_dlopen, __ATOMIC_SEQ_CST)) {
      /* Another process's Loading state, left inside dlopen: we are a child forked mid-dlopen. */
      if (__atomic_compare_exchange_n(&g_state, &state, kNoCollector, 0, __ATOMIC_ACQ_REL,
                                      __ATOMIC_ACQUIRE)) {
        fprintf(stderr,
                "jitprofiling: profiling is off in process %d: it was forked while its parent "
                "was loading the collector, and glibc cannot load libraries in such a child\n",
                (int)getpid());
        return kNoCollector;
      }
      continue;
    }
    /* kUnloaded, or a load another process started before forking us: claim it. */
    if (__atomic_compare_exchange_n(&g_state, &state, loading_here, 0, __ATOMIC_ACQUIRE,
                                    __ATOMIC_ACQUIRE)) {
      state = LoadCollector();
      __atomic_store_n(&g_state, state, __ATOMIC_RELEASE); /* publishes g_notify and g_mode */
      return state;
    }
  }
}

/* True if the collector is (now) loaded. The no-collector case is decided by the first branch,
 * which is laid out as the fall-through path: with profiling off the public functions cost a
 * load, a compare, a not-taken branch and a return. With a collector the extra taken branch is
 * noise next to the collector's own work. */
static int CollectorReady(void) {
  unsigned int state = __atomic_load_n(&g_state, __ATOMIC_ACQUIRE);
  if (JITSCOPE_LIKELY(state == kNoCollector)) return 0;
  return state == kReady || EnsureLoaded() == kReady;
}

/* The stub's own checks before forwarding, as in Intel's stub plus NULL checks.
 * method_id and parent_method_id must not be 0 (Intel's jitprofiling.h and guide). Ids 1..998 pass:
 * the old "not below 999" rule is not the current API's, and jitscope's collector accepts them.
 * Events whose payload has no id to check (UNLOAD_START, UPDATE_V2) only need a payload. SHUTDOWN
 * (payload NULL) and unknown types, including the legacy NIDS events, are forwarded as they are:
 * the collector decides what it accepts and counts what it rejects. */
static int PayloadAccepted(iJIT_JVM_EVENT event_type, const void* data) {
  switch (event_type) {
    case iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED:
    case iJVM_EVENT_TYPE_METHOD_UPDATE:
      return data != NULL && ((const iJIT_Method_Load*)data)->method_id != 0;
    case iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V2:
      return data != NULL && ((const iJIT_Method_Load_V2*)data)->method_id != 0;
    case iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V3:
      return data != NULL && ((const iJIT_Method_Load_V3*)data)->method_id != 0;
    case iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED:
      return data != NULL && ((const iJIT_Method_Inline_Load*)data)->method_id != 0 &&
             ((const iJIT_Method_Inline_Load*)data)->parent_method_id != 0;
    case iJVM_EVENT_TYPE_METHOD_UNLOAD_START:
    case iJVM_EVENT_TYPE_METHOD_UPDATE_V2:
      return data != NULL;
    default:
      return 1;
  }
}

int JITAPI iJIT_NotifyEvent(iJIT_JVM_EVENT event_type, void* EventSpecificData) {
  if (!CollectorReady()) return 0;
  if (!PayloadAccepted(event_type, EventSpecificData)) return 0;
  return (int)g_notify((unsigned int)event_type, EventSpecificData);
}

iJIT_IsProfilingActiveFlags JITAPI iJIT_IsProfilingActive(void) {
  if (!CollectorReady()) return iJIT_NOTHING_RUNNING;
  return (iJIT_IsProfilingActiveFlags)g_mode;
}

/* ---- Method ids ----
 * Intel's guide requires unique ids and 0 once they run out (Intel's guide, iJIT_GetNewMethodID).
 * Intel's counter starts at 1 and is not thread-safe (Intel's stub). Ours starts at 1000: legacy
 * collectors and stubs reject ids up to 999 (the legacy stubs). A compare-and-swap loop, rather
 * than fetch-add, lets the counter stop at 0 after handing out UINT_MAX: fetch-add would wrap and
 * hand out 1, 2, ... again, duplicating ids that are still in use. */
#ifdef JITSCOPE_STUB_TEST_FIRST_ID
#define JITSCOPE_FIRST_METHOD_ID (JITSCOPE_STUB_TEST_FIRST_ID)
#else
#define JITSCOPE_FIRST_METHOD_ID 1000u
#endif

static unsigned int g_next_method_id = JITSCOPE_FIRST_METHOD_ID; /* 0: exhausted */

unsigned int JITAPI iJIT_GetNewMethodID(void) {
  /* Relaxed is enough: the counter orders nothing but itself, and the CAS makes every id unique. */
  unsigned int id = __atomic_load_n(&g_next_method_id, __ATOMIC_RELAXED);
  do {
    if (id == 0) return 0;
  } while (!__atomic_compare_exchange_n(&g_next_method_id, &id, id + 1u, 1, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED));
  return id;
}

/* ---- Legacy API (the legacy stubs, without the NIDS virtual stacks) ---- */
#ifdef JITSCOPE_JIT_LEGACY_API

void JITAPI iJIT_RegisterCallbackEx(void* userdata, iJIT_ModeChangedEx NewModeCallBackFuncEx) {
  /* Legacy stubs call back only to say that nothing will ever be notified. */
  if (!CollectorReady() && NewModeCallBackFuncEx != NULL) {
    NewModeCallBackFuncEx(userdata, iJIT_NO_NOTIFICATIONS);
  }
}

void JITAPI FinalizeThread(void) {
  /* Legacy stubs freed this thread's NIDS virtual stack here; this stub keeps none. */
}

void JITAPI FinalizeProcess(void) {
  /* Legacy stubs dlclose the collector but keep calling its NotifyEvent afterwards. We first make
   * the stub collector-less for good (so later calls return 0 and nothing loads again), then
   * unload. The caller guarantees that no other thread is inside the API, as with Intel's. */
  const unsigned int loading_here = LoadingHere();
  unsigned int state = WaitWhileLoading(loading_here);
  while (!__atomic_compare_exchange_n(&g_state, &state, kNoCollector, 0, __ATOMIC_ACQ_REL,
                                      __ATOMIC_ACQUIRE)) {
    if (state == loading_here) state = WaitWhileLoading(loading_here);
  }
  if (state == kReady && g_handle != NULL) {
    dlclose(g_handle);
    g_handle = NULL;
  }
}

#endif /* JITSCOPE_JIT_LEGACY_API */
