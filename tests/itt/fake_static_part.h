/* Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
 *
 * A minimal ittnotify *static part* for the tests: what a program that carries ittnotify (oneDNN,
 * TBB) has compiled in, reduced to the loading protocol and the calls the tests make. It lays out
 * its global and its API list as ittnotify's copies do (src/jitscope/collector/itt_abi.h), in
 * either layout: build 20180723 (entries with null_func, what Debian 12's libdnnl2 and libtbb12
 * carry) or build 20100101 (entries without). Plain C99, so the tests can build it for i386.
 *
 *   FakeItt itt;
 *   fake_itt_load(&itt, getenv("INTEL_LIBITTNOTIFY64"), 0);   // dlopen + __itt_api_init
 *   itt.task_begin(domain, fake_itt_null, fake_itt_null, handle);
 *
 * Unlike the real static part, a function the collector did not wire is NULL (the header's macros
 * then skip the call), and fake_itt_domain()/fake_itt_handle() make domains and handles of the
 * static part's own, as a program does before the collector is loaded.
 */
#ifndef JITSCOPE_TESTS_ITT_FAKE_STATIC_PART_H_
#define JITSCOPE_TESTS_ITT_FAKE_STATIC_PART_H_

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct FakeIttDomain {
  volatile int flags;
  const char* name;
  void* name_wide;
  int extra1;
  void* extra2;
  struct FakeIttDomain* next;
} FakeIttDomain;

typedef struct FakeIttHandle {
  const char* text;
  void* text_wide;
  int extra1;
  void* extra2;
  struct FakeIttHandle* next;
} FakeIttHandle;

typedef struct FakeIttId {
  unsigned long long d1, d2, d3;
} FakeIttId;

typedef struct FakeIttCounter {
  const char* name;
  void* name_wide;
  const char* domain;
  void* domain_wide;
  int type;
  long index;
  int extra1;
  void* extra2;
  struct FakeIttCounter* next;
} FakeIttCounter;

typedef struct {
  const char* name;
  void** func_ptr;
  void* init_func;
  void* null_func;
  int group;
} FakeIttApiInfo;

typedef struct {
  const char* name;
  void** func_ptr;
  void* init_func;
  int group;
} FakeIttApiInfoBefore20101001;

typedef struct {
  unsigned char magic[8];
  unsigned long version_major;
  unsigned long version_minor;
  unsigned long version_build;
  volatile long api_initialized;
  volatile long mutex_initialized;
  volatile long atomic_counter;
  pthread_mutex_t mutex;
  void* lib;
  void* error_handler;
  const char** dll_path;
  void* api_list;
  void* next;
  /* What the real globals carry after here differs between versions; the collector never reads
     it. */
  void* thread_list;
  FakeIttDomain* domain_list;
  FakeIttHandle* string_list;
} FakeIttGlobal;

typedef struct {
  FakeIttGlobal global;
  FakeIttApiInfo list[30];
  FakeIttApiInfoBefore20101001 old_list[30];
  FakeIttDomain* (*domain_create)(const char*);
  FakeIttHandle* (*string_handle_create)(const char*);
  void (*thread_set_name)(const char*);
  void (*task_begin)(const FakeIttDomain*, FakeIttId, FakeIttId, FakeIttHandle*);
  void (*task_begin_fn)(const FakeIttDomain*, FakeIttId, FakeIttId, void*);
  void (*task_end)(const FakeIttDomain*);
  void (*task_begin_overlapped)(const FakeIttDomain*, FakeIttId, FakeIttId, FakeIttHandle*);
  void (*task_end_overlapped)(const FakeIttDomain*, FakeIttId);
  void (*region_begin)(const FakeIttDomain*, FakeIttId, FakeIttId, FakeIttHandle*);
  void (*region_end)(const FakeIttDomain*, FakeIttId);
  void (*task_group)(const FakeIttDomain*, FakeIttId, FakeIttId, FakeIttHandle*);
  void (*frame_begin_v3)(const FakeIttDomain*, FakeIttId*);
  void (*frame_end_v3)(const FakeIttDomain*, FakeIttId*);
  void (*frame_submit_v3)(const FakeIttDomain*, FakeIttId*, unsigned long long, unsigned long long);
  unsigned long long (*get_timestamp)(void);
  void (*marker)(const FakeIttDomain*, FakeIttId, FakeIttHandle*, int);
  FakeIttCounter* (*counter_create)(const char*, const char*);
  FakeIttCounter* (*counter_create_typed)(const char*, const char*, int);
  void (*counter_inc)(FakeIttCounter*);
  void (*counter_inc_delta)(FakeIttCounter*, unsigned long long);
  void (*counter_dec)(FakeIttCounter*);
  void (*counter_dec_delta)(FakeIttCounter*, unsigned long long);
  void (*counter_inc_v3)(const FakeIttDomain*, FakeIttHandle*);
  void (*counter_inc_delta_v3)(const FakeIttDomain*, FakeIttHandle*, unsigned long long);
  void (*counter_set_value)(FakeIttCounter*, void*);
  /* Functions of ittnotify no collector of the tests implements: they must stay NULL. */
  void* sync_prepare;
  void* heap_allocate_begin;
} FakeItt;

static const FakeIttId fake_itt_null = {0, 0, 0};

static inline FakeIttId fake_itt_id(unsigned long long d1, unsigned long long d2) {
  FakeIttId id;
  id.d1 = d1;
  id.d2 = d2;
  id.d3 = 0;
  return id;
}

static inline void fake_itt_add(FakeItt* itt, int* n, const char* name, void** func_ptr) {
  itt->list[*n].name = name;
  itt->list[*n].func_ptr = func_ptr;
  itt->list[*n].group = 0x1000;
  itt->old_list[*n].name = name;
  itt->old_list[*n].func_ptr = func_ptr;
  itt->old_list[*n].group = 0x1000;
  ++*n;
}

/* Sets up the static part: its global and list, every pointer NULL. */
static inline void fake_itt_init(FakeItt* itt, int before_20101001) {
  static const unsigned char magic[8] = {0xED, 0xAB, 0xAB, 0xEC, 0x0D, 0xEE, 0xDA, 0x30};
  int n = 0;
  memset(itt, 0, sizeof(*itt));
  memcpy(itt->global.magic, magic, sizeof(magic));
  itt->global.version_major = 3;
  itt->global.version_minor = 0;
  itt->global.version_build = before_20101001 ? 20100101ul : 20180723ul;
  pthread_mutex_init(&itt->global.mutex, NULL);
#define FAKE_ITT_ENTRY(field) fake_itt_add(itt, &n, "__itt_" #field, (void**)&itt->field)
  FAKE_ITT_ENTRY(domain_create);
  FAKE_ITT_ENTRY(string_handle_create);
  FAKE_ITT_ENTRY(thread_set_name);
  FAKE_ITT_ENTRY(sync_prepare);
  FAKE_ITT_ENTRY(task_begin);
  FAKE_ITT_ENTRY(task_begin_fn);
  FAKE_ITT_ENTRY(task_end);
  FAKE_ITT_ENTRY(task_begin_overlapped);
  FAKE_ITT_ENTRY(task_end_overlapped);
  FAKE_ITT_ENTRY(region_begin);
  FAKE_ITT_ENTRY(region_end);
  FAKE_ITT_ENTRY(task_group);
  FAKE_ITT_ENTRY(frame_begin_v3);
  FAKE_ITT_ENTRY(frame_end_v3);
  FAKE_ITT_ENTRY(frame_submit_v3);
  FAKE_ITT_ENTRY(get_timestamp);
  FAKE_ITT_ENTRY(marker);
  FAKE_ITT_ENTRY(heap_allocate_begin);
  FAKE_ITT_ENTRY(counter_create);
  FAKE_ITT_ENTRY(counter_create_typed);
  FAKE_ITT_ENTRY(counter_inc);
  FAKE_ITT_ENTRY(counter_inc_delta);
  FAKE_ITT_ENTRY(counter_dec);
  FAKE_ITT_ENTRY(counter_dec_delta);
  FAKE_ITT_ENTRY(counter_inc_v3);
  FAKE_ITT_ENTRY(counter_inc_delta_v3);
  FAKE_ITT_ENTRY(counter_set_value);
#undef FAKE_ITT_ENTRY
  itt->global.api_list = before_20101001 ? (void*)itt->old_list : (void*)itt->list;
}

/* A domain or handle of the static part's own, as its stubs make them before a collector is
   loaded (flags 1, extra1 0). */
static inline FakeIttDomain* fake_itt_domain(FakeItt* itt, const char* name) {
  FakeIttDomain* domain = (FakeIttDomain*)calloc(1, sizeof(FakeIttDomain));
  domain->flags = 1;
  domain->name = name;
  domain->next = itt->global.domain_list;
  itt->global.domain_list = domain;
  return domain;
}

static inline FakeIttHandle* fake_itt_handle(FakeItt* itt, const char* text) {
  FakeIttHandle* handle = (FakeIttHandle*)calloc(1, sizeof(FakeIttHandle));
  handle->text = text;
  handle->next = itt->global.string_list;
  itt->global.string_list = handle;
  return handle;
}

/* Loads the collector at `path` as the static part does: dlopen, then __itt_api_init with the
   global, under its mutex. Returns 0, or -1 when there is no library or no __itt_api_init. */
static inline int fake_itt_load(FakeItt* itt, const char* path) {
  /* The collector's own type: a call through another is undefined (UBSan's function check). */
  void (*api_init)(void*, int);
  if (path == NULL) return -1;
  itt->global.lib = dlopen(path, RTLD_LAZY);
  if (itt->global.lib == NULL) return -1;
  *(void**)&api_init = dlsym(itt->global.lib, "__itt_api_init");
  if (api_init == NULL) return -1;
  pthread_mutex_lock(&itt->global.mutex);
  api_init(&itt->global, -1);
  itt->global.api_initialized = 1;
  pthread_mutex_unlock(&itt->global.mutex);
  return 0;
}

#endif /* JITSCOPE_TESTS_ITT_FAKE_STATIC_PART_H_ */
