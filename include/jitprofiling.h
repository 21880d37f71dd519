/* Copyright 2026 The jitscope Authors
 * SPDX-License-Identifier: Apache-2.0 */

/*
 * jitprofiling.h: the Intel JIT Profiling API, as implemented by jitscope.
 *
 * A JIT engine includes this header to tell profilers about the machine code it generates at run
 * time. It is a drop-in replacement for Intel's header of the same name: every enum value, struct
 * layout and function signature below matches Intel's current (ittapi) header, so code compiled
 * against either header works with either stub and with any collector that speaks the protocol
 * (Intel's jitprofiling.h). It compiles as C99 and as C++.
 *
 * Rules callers must follow (seeds 000 "JIT Profiling API" and 001 "iJIT_NotifyEvent"):
 *  - Report code after it is generated and before it first runs (Intel's guide, iJIT_NotifyEvent).
 *  - method_id must not be 0; ids from iJIT_GetNewMethodID are always valid. Old documentation
 *    says ids below 999 are reserved; this stub accepts every non-zero id, and its generator
 *    starts at 1000 so its ids also satisfy the old rule (Intel's jitprofiling.h and guide).
 *  - LineNumberInfo.Offset is the END of a code range, measured from the method start: entry i
 *    covers [Offset of entry i-1 (or 0), Offset of entry i) (Intel's guide, "LineNumberInfo
 * Structure").
 *  - When several lines map to one address, the first wins. A method id reported again (split
 *    function) keeps the name, source file and module of its first report (Intel's guide, usage
 * tips).
 *  - A new load that overlaps reported code invalidates the old code, and for inline trees the
 *    whole tree (Intel's guide, "Analyzing Split Functions" and "Exploring Inline Functions").
 *  - Every pointer in a payload only has to live until iJIT_NotifyEvent returns (Intel's guide,
 *    "Lifetime of Allocated Data").
 *
 * Legacy API: define JITSCOPE_JIT_LEGACY_API before including this header to get the items that
 * Intel's current header dropped but older headers (and LLVM's in-tree copy) still declare:
 * events 19/20 (ENTER/LEAVE_NIDS), iJIT_CALLGRAPH_ON, iJIT_ModeFlags, iJDEnvironmentType,
 * iJIT_Method_Id, iJIT_Method_NIDS, iJIT_ModeChangedEx, iJIT_RegisterCallbackEx, FinalizeThread,
 * FinalizeProcess and the CDECL macro. It also switches iJIT_Method_Load to the old 12-field layout
 * (80 bytes on x86-64 instead of 64) that LLVM fills in. The first nine fields are the same in both
 * layouts, so collectors read either. The legacy functions exist only in a stub compiled with the
 * same macro (Intel's jitprofiling.h, current and legacy).
 */

/* Intel's include guard, kept on purpose: a translation unit that sees both Intel's header and
 * this one gets one set of declarations instead of redefinition errors. */
#ifndef __JITPROFILING_H__
#define __JITPROFILING_H__

/* ---- Enumerations (Intel's jitprofiling.h; the values never changed between releases) ---- */

/* Event types for iJIT_NotifyEvent. Values 0, 1, 3-12 and 18 were never defined; 19 and 20 are
 * the legacy NIDS events and stay reserved in the current API. */
typedef enum iJIT_jvm_event {
  iJVM_EVENT_TYPE_SHUTDOWN = 2,              /* payload: NULL */
  iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED = 13, /* payload: iJIT_Method_Load* */
  iJVM_EVENT_TYPE_METHOD_UNLOAD_START = 14,  /* payload: starts with unsigned int method_id */
  iJVM_EVENT_TYPE_METHOD_UPDATE = 15,        /* payload: iJIT_Method_Load* (id, address, size) */
  iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED = 16, /* payload: iJIT_Method_Inline_Load* */
  iJVM_EVENT_TYPE_METHOD_UPDATE_V2 = 17,            /* payload: iJIT_Method_Update* */
#ifdef JITSCOPE_JIT_LEGACY_API
  iJVM_EVENT_TYPE_ENTER_NIDS = 19, /* payload: iJIT_Method_NIDS* */
  iJVM_EVENT_TYPE_LEAVE_NIDS = 20, /* payload: iJIT_Method_NIDS* */
#endif
  iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V2 = 21, /* payload: iJIT_Method_Load_V2* */
  iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V3 = 22  /* payload: iJIT_Method_Load_V3* */
} iJIT_JVM_EVENT;

/* What iJIT_IsProfilingActive reports: the value the collector's Initialize returned. */
typedef enum _iJIT_IsProfilingActiveFlags {
  iJIT_NOTHING_RUNNING = 0x0000, /* no collector: notifications are dropped */
  iJIT_SAMPLING_ON = 0x0001,     /* a collector is loaded and takes notifications */
#ifdef JITSCOPE_JIT_LEGACY_API
  iJIT_CALLGRAPH_ON = 0x0002, /* legacy: enabled the NIDS virtual call stack */
#endif
} iJIT_IsProfilingActiveFlags;

/* Instruction set of a code region (iJIT_Method_Load_V3.module_arch). */
typedef enum _iJIT_CodeArchitecture {
  iJIT_CA_NATIVE = 0, /* same as the calling process */
  iJIT_CA_32 = 1,     /* 32-bit code */
  iJIT_CA_64 = 2      /* 64-bit code */
} iJIT_CodeArchitecture;

/* Content type of an iJIT_Method_Update (event 17). */
typedef enum _iJIT_SegmentType {
  iJIT_CT_UNKNOWN = 0,
  iJIT_CT_CODE = 1, /* executable code */
  iJIT_CT_DATA = 2, /* not code; shown through iJIT_Method_Update.data_format */
  iJIT_CT_KEEP = 3, /* reuse the markup of the previous update of this range */
  iJIT_CT_EOF = 4
} iJIT_SegmentType;

#ifdef JITSCOPE_JIT_LEGACY_API
/* Legacy: modes passed to an iJIT_ModeChangedEx callback. */
typedef enum _iJIT_ModeFlags {
  iJIT_NO_NOTIFICATIONS = 0x0000,
  iJIT_BE_NOTIFY_ON_LOAD = 0x0001,
  iJIT_BE_NOTIFY_ON_UNLOAD = 0x0002,
  iJIT_BE_NOTIFY_ON_METHOD_ENTRY = 0x0004,
  iJIT_BE_NOTIFY_ON_METHOD_EXIT = 0x0008
} iJIT_ModeFlags;

/* Legacy: the obsolete iJIT_Method_Load.env field; LLVM still stores iJDE_JittingAPI there. */
typedef enum _iJDEnvironmentType { iJDE_JittingAPI = 2 } iJDEnvironmentType;
#endif /* JITSCOPE_JIT_LEGACY_API */

/* ---- Payload structures (Intel's jitprofiling.h) ----
 * No member is wider than 8 bytes, so the natural layout is Intel's layout on x86-64 and i386.
 * Like Intel's header we pin packing to 8, so a `#pragma pack` active in the including file
 * cannot change these layouts. */
#pragma pack(push, 8)

/* One line-table entry. Offset is the exclusive END of the range, counted from the method start;
 * the range starts at the previous entry's Offset, or at 0. Entries (1, line 2), (12, line 4) mean
 * bytes [0,1) are line 2 and [1,12) are line 4 (Intel's guide, "LineNumberInfo Structure"). */
typedef struct _LineNumberInfo {
  unsigned int Offset;     /* end of the range, in bytes from the method start */
  unsigned int LineNumber; /* source line of that range */
} LineNumberInfo, *pLineNumberInfo;

/* Payload of METHOD_LOAD_FINISHED (13), METHOD_UPDATE (15) and, by its first field, of
 * METHOD_UNLOAD_START (14). */
typedef struct _iJIT_Method_Load {
  unsigned int method_id;            /* not 0; same id for every region of one method */
  char* method_name;                 /* must not be NULL */
  void* method_load_address;         /* start of the code; NULL: the event is not accepted */
  unsigned int method_size;          /* bytes of code; 0: the event is not accepted */
  unsigned int line_number_size;     /* entries in line_number_table; 0 if none */
  pLineNumberInfo line_number_table; /* may be NULL when line_number_size is 0 */
  unsigned int class_id;             /* obsolete */
  char* class_file_name;             /* may be NULL */
  char* source_file_name;            /* may be NULL */
#ifdef JITSCOPE_JIT_LEGACY_API
  void* user_data;             /* obsolete */
  unsigned int user_data_size; /* obsolete */
  iJDEnvironmentType env;      /* obsolete */
#endif
} iJIT_Method_Load, *piJIT_Method_Load;

/* Payload of METHOD_LOAD_FINISHED_V2 (21). Like iJIT_Method_Load without class_id, plus a module
 * name; for one method id the first module name reported wins (Intel's guide, usage tips). */
typedef struct _iJIT_Method_Load_V2 {
  unsigned int method_id;
  char* method_name;
  void* method_load_address;
  unsigned int method_size;
  unsigned int line_number_size;
  pLineNumberInfo line_number_table;
  char* class_file_name;  /* may be NULL */
  char* source_file_name; /* may be NULL */
  char* module_name;      /* may be NULL; groups methods by JIT engine */
} iJIT_Method_Load_V2, *piJIT_Method_Load_V2;

/* Payload of METHOD_LOAD_FINISHED_V3 (22): iJIT_Method_Load_V2 plus the code's architecture. */
typedef struct _iJIT_Method_Load_V3 {
  unsigned int method_id;
  char* method_name;
  void* method_load_address;
  unsigned int method_size;
  unsigned int line_number_size;
  pLineNumberInfo line_number_table;
  char* class_file_name;
  char* source_file_name;
  char* module_name;
  iJIT_CodeArchitecture module_arch; /* 32- and 64-bit code of one module become two modules */
} iJIT_Method_Load_V3, *piJIT_Method_Load_V3;

/* Payload of METHOD_INLINE_LOAD_FINISHED (16): code of method_id inlined into parent_method_id.
 * Inlines of one parent must not overlap; report the whole tree before the parent runs. */
typedef struct _iJIT_Method_Inline_Load {
  unsigned int method_id;        /* not 0 */
  unsigned int parent_method_id; /* immediate parent; not 0 */
  char* method_name;
  void* method_load_address; /* where the inlined code starts */
  unsigned int method_size;
  unsigned int line_number_size;
  pLineNumberInfo line_number_table;
  char* class_file_name;
  char* source_file_name;
} iJIT_Method_Inline_Load, *piJIT_Method_Inline_Load;

/* Payload of METHOD_UPDATE_V2 (17): new content for part of an already reported method. There is
 * no method id; the collector finds the method by address. */
typedef struct _iJIT_Method_Update {
  void* load_address;      /* start of the updated range */
  unsigned int size;       /* bytes in the updated range */
  iJIT_SegmentType type;   /* what the range now holds */
  const char* data_format; /* printf-style format for iJIT_CT_DATA content */
} iJIT_Method_Update, *piJIT_Method_Update;

#ifdef JITSCOPE_JIT_LEGACY_API
/* Legacy: a bare method id (older UNLOAD_START payload). */
typedef struct _iJIT_Method_Id {
  unsigned int method_id;
} iJIT_Method_Id, *piJIT_Method_Id;

/* Legacy: payload of ENTER_NIDS/LEAVE_NIDS. */
typedef struct _iJIT_Method_NIDS {
  unsigned int method_id;
  unsigned int stack_id; /* filled in by legacy stubs; jitscope's stub leaves it alone */
  char* method_name;
} iJIT_Method_NIDS, *piJIT_Method_NIDS;
#endif /* JITSCOPE_JIT_LEGACY_API */

#pragma pack(pop)

/* ---- Functions (Intel's jitprofiling.h) ---- */

/* Calling convention: cdecl, which only needs spelling out on 32-bit x86. Predefine JITAPI_CDECL
 * to override it. */
#ifndef JITAPI_CDECL
#if defined(_WIN32) || defined(WIN32)
#define JITAPI_CDECL __cdecl
#elif defined(__i386__) || defined(_M_IX86)
#define JITAPI_CDECL __attribute__((cdecl))
#else
#define JITAPI_CDECL
#endif
#endif /* JITAPI_CDECL */

#ifndef JITAPI
#define JITAPI JITAPI_CDECL
#endif

#if defined(JITSCOPE_JIT_LEGACY_API) && !defined(CDECL)
#define CDECL JITAPI_CDECL /* the name older headers used */
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Returns a new method id, unique within the process and never 0; returns 0 once the ids run
 * out. Thread-safe. Never loads the collector. */
unsigned int JITAPI iJIT_GetNewMethodID(void);

/* Returns the profiling mode: what the collector's Initialize returned (normally
 * iJIT_SAMPLING_ON), or iJIT_NOTHING_RUNNING when no collector is loaded. The first call (of this
 * function or iJIT_NotifyEvent) loads the collector named by INTEL_JIT_PROFILER64
 * (INTEL_JIT_PROFILER32 in 32-bit processes). */
iJIT_IsProfilingActiveFlags JITAPI iJIT_IsProfilingActive(void);

/* Reports an event; EventSpecificData points to the payload named next to the event type above.
 * Returns the collector's answer (1: accepted), or 0 when no collector is loaded or the stub
 * rejects the payload (NULL, method id 0, parent id 0). For METHOD_LOAD_FINISHED the documented
 * return value is undefined, so callers should not depend on it (Intel's reference). Thread-safe.
 */
int JITAPI iJIT_NotifyEvent(iJIT_JVM_EVENT event_type, void* EventSpecificData);

#ifdef JITSCOPE_JIT_LEGACY_API
/* Legacy: the callback type of iJIT_RegisterCallbackEx (no JITAPI attribute, as in Intel's). */
typedef void (*iJIT_ModeChangedEx)(void* UserData, iJIT_ModeFlags Flags);

/* Legacy: calls NewModeCallBackFuncEx(userdata, iJIT_NO_NOTIFICATIONS) once if no collector can
 * be loaded; does nothing otherwise. */
void JITAPI iJIT_RegisterCallbackEx(void* userdata, iJIT_ModeChangedEx NewModeCallBackFuncEx);

/* Legacy: freed a thread's NIDS call stack; jitscope's stub keeps none, so this does nothing. */
void JITAPI FinalizeThread(void);

/* Legacy: unloads the collector. Afterwards the stub behaves as if no collector were present. No
 * other thread may be inside an iJIT_* call while this runs. */
void JITAPI FinalizeProcess(void);
#endif /* JITSCOPE_JIT_LEGACY_API */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* __JITPROFILING_H__ */
