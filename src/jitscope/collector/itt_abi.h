// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The ITT API's binary interface between a program's copy of ittnotify's *static part* (compiled
// into the program: oneDNN, TBB) and a collector it loads from INTEL_LIBITTNOTIFY64/32. The
// layouts are C's, in the pointer size and `long` of the process (the i386 collector reads an
// i386 static part), as ittnotify.h and its configuration header define them ("Intel's
// ittnotify", docs/sources.md).
//
// How a static part loads a collector (version 2 of the protocol, the one both Debian 12 copies
// use when the collector exports __itt_api_init): on its first call that needs it, it dlopen()s
// the library, finds __itt_api_init and calls it with its IttGlobal while holding the global's
// mutex. The collector walks `api_list`, an array of IttApiInfo ended by a NULL name, and stores
// its own function into `*func_ptr` of each name it implements; the static part calls through
// those pointers from then on. What the collector leaves alone stays the static part's
// initialising stub, which does nothing once the API is initialised.
//
// Domains and string handles a program created *before* the collector was loaded are the static
// part's own (oneDNN creates its domain and its 24 task names at start-up, before any task): the
// collector must accept any IttDomain or IttStringHandle laid out as below, not only its own. Their
// `extra1`/`extra2` are reserved to the runtime, that is to the collector, and zero until it
// writes them.
#pragma once

#include <pthread.h>

#include <cstddef>
#include <cstdint>

namespace jitscope::collector::itt {

// ittnotify.h's __itt_domain. The header's macros skip every call in a domain whose `flags` is 0.
struct Domain {
  volatile int flags;
  const char* name;  // nameA
  void* name_wide;   // nameW (Windows only)
  int extra1;        // the collector's: the string number of the name, 0 until known
  void* extra2;
  Domain* next;
};

// ittnotify.h's __itt_string_handle.
struct StringHandle {
  const char* text;  // strA
  void* text_wide;   // strW (Windows only)
  int extra1;        // the collector's: the string number, 0 until known
  void* extra2;
  StringHandle* next;
};

// ittnotify.h's __itt_id; __itt_null is all zeros, and __itt_id_make leaves d3 (reserved) 0.
struct Id {
  unsigned long long d1;
  unsigned long long d2;
  unsigned long long d3;
};

// The static part's counter (__itt_counter is an opaque pointer to this): a counter the program
// created before the collector was loaded is the static part's.
struct CounterInfo {
  const char* name;  // nameA
  void* name_wide;
  const char* domain;  // domainA
  void* domain_wide;
  int type;  // __itt_metadata_type
  long index;
  int extra1;
  void* extra2;  // the collector's: its state of the counter, nullptr until known
  CounterInfo* next;
};

using Timestamp = unsigned long long;             // __itt_timestamp
inline constexpr Timestamp kNoTimestamp = ~0ull;  // __itt_timestamp_none

// One function of the static part's API list, in the layout of copies built after 2010-10-01
// (both Debian 12 copies: build 20180723).
struct ApiInfo {
  const char* name;  // "__itt_task_begin"; several entries may share a name
  void** func_ptr;   // where the static part calls through
  void* init_func;   // its initialising stub
  void* null_func;   // what it restores when the collector goes away
  int group;         // __itt_group_id
};

// The same in copies of build 20101001 and before, which have no null_func.
struct ApiInfoBefore20101001 {
  const char* name;
  void** func_ptr;
  void* init_func;
  int group;
};
inline constexpr unsigned long kLastBuildWithoutNullFunc = 20101001;

inline constexpr unsigned char kGlobalMagic[8] = {0xED, 0xAB, 0xAB, 0xEC, 0x0D, 0xEE, 0xDA, 0x30};

// The head of the static part's __itt_global, as far as the collector reads it. What follows
// `next` (lists of threads, domains, string handles, counters, ...) differs between versions.
struct Global {
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
  void* api_list;  // ApiInfo[] or ApiInfoBefore20101001[], by version_build
  Global* next;
};

// __itt_metadata_type, a counter's value type.
enum MetadataType : int {
  kMetadataUnknown = 0,
  kMetadataU64 = 1,
  kMetadataS64 = 2,
  kMetadataU32 = 3,
  kMetadataS32 = 4,
  kMetadataU16 = 5,
  kMetadataS16 = 6,
  kMetadataFloat = 7,
  kMetadataDouble = 8,
};

}  // namespace jitscope::collector::itt
