/* Copyright 2026 The jitscope Authors
 * SPDX-License-Identifier: Apache-2.0 */

/*
 * Compile-time ABI checks of include/jitprofiling.h against Intel's header. Every number comes
 * from Intel's jitprofiling.h, current and legacy (docs/sources.md).
 *
 * Compiled in every build, as C99 (abi_check.c) and as C++ (abi_check.cc), each also with
 * JITSCOPE_JIT_LEGACY_API, including the i386 build of the in-process libraries
 * (cmake/lib32.cmake): the x86-64 layouts are checked by the host build and the i386 ones by a
 * real -m32 compile. tests/api/abi_test.cc also compares the C and C++ sizes at run time.
 *
 * The includer defines:
 *   JITSCOPE_ABI_ASSERT(condition, name)  a static assertion (C99 has no _Static_assert)
 *   JITSCOPE_ABI_ALIGNOF(type)            the alignment of type
 * Layout numbers are checked on x86-64 and i386; on other targets only enum values, names and
 * signatures are checked.
 */

#ifndef JITSCOPE_API_ABI_CHECKS_H_
#define JITSCOPE_API_ABI_CHECKS_H_

#include <stddef.h>

#include "jitprofiling.h"

/* ---- Enum values (section 1) ---- */
JITSCOPE_ABI_ASSERT(iJVM_EVENT_TYPE_SHUTDOWN == 2, shutdown);
JITSCOPE_ABI_ASSERT(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED == 13, load_finished);
JITSCOPE_ABI_ASSERT(iJVM_EVENT_TYPE_METHOD_UNLOAD_START == 14, unload_start);
JITSCOPE_ABI_ASSERT(iJVM_EVENT_TYPE_METHOD_UPDATE == 15, update);
JITSCOPE_ABI_ASSERT(iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED == 16, inline_load_finished);
JITSCOPE_ABI_ASSERT(iJVM_EVENT_TYPE_METHOD_UPDATE_V2 == 17, update_v2);
JITSCOPE_ABI_ASSERT(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V2 == 21, load_finished_v2);
JITSCOPE_ABI_ASSERT(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V3 == 22, load_finished_v3);
JITSCOPE_ABI_ASSERT(iJIT_NOTHING_RUNNING == 0, nothing_running);
JITSCOPE_ABI_ASSERT(iJIT_SAMPLING_ON == 1, sampling_on);
JITSCOPE_ABI_ASSERT(iJIT_CA_NATIVE == 0, ca_native);
JITSCOPE_ABI_ASSERT(iJIT_CA_32 == 1, ca_32);
JITSCOPE_ABI_ASSERT(iJIT_CA_64 == 2, ca_64);
JITSCOPE_ABI_ASSERT(iJIT_CT_UNKNOWN == 0, ct_unknown);
JITSCOPE_ABI_ASSERT(iJIT_CT_CODE == 1, ct_code);
JITSCOPE_ABI_ASSERT(iJIT_CT_DATA == 2, ct_data);
JITSCOPE_ABI_ASSERT(iJIT_CT_KEEP == 3, ct_keep);
JITSCOPE_ABI_ASSERT(iJIT_CT_EOF == 4, ct_eof);
JITSCOPE_ABI_ASSERT(sizeof(iJIT_JVM_EVENT) == 4, event_size);
JITSCOPE_ABI_ASSERT(sizeof(iJIT_IsProfilingActiveFlags) == 4, flags_size);
JITSCOPE_ABI_ASSERT(sizeof(iJIT_CodeArchitecture) == 4, arch_size);
JITSCOPE_ABI_ASSERT(sizeof(iJIT_SegmentType) == 4, segment_size);

#ifdef JITSCOPE_JIT_LEGACY_API
JITSCOPE_ABI_ASSERT(iJVM_EVENT_TYPE_ENTER_NIDS == 19, enter_nids);
JITSCOPE_ABI_ASSERT(iJVM_EVENT_TYPE_LEAVE_NIDS == 20, leave_nids);
JITSCOPE_ABI_ASSERT(iJIT_CALLGRAPH_ON == 2, callgraph_on);
JITSCOPE_ABI_ASSERT(iJIT_NO_NOTIFICATIONS == 0, no_notifications);
JITSCOPE_ABI_ASSERT(iJIT_BE_NOTIFY_ON_LOAD == 1, notify_on_load);
JITSCOPE_ABI_ASSERT(iJIT_BE_NOTIFY_ON_UNLOAD == 2, notify_on_unload);
JITSCOPE_ABI_ASSERT(iJIT_BE_NOTIFY_ON_METHOD_ENTRY == 4, notify_on_entry);
JITSCOPE_ABI_ASSERT(iJIT_BE_NOTIFY_ON_METHOD_EXIT == 8, notify_on_exit);
JITSCOPE_ABI_ASSERT(iJDE_JittingAPI == 2, jitting_api);
JITSCOPE_ABI_ASSERT(sizeof(iJIT_ModeFlags) == 4, mode_flags_size);
JITSCOPE_ABI_ASSERT(sizeof(iJDEnvironmentType) == 4, environment_size);
#endif

/* ---- Names: tags, typedefs and pointer typedefs name the same types (section 2) ----
 * Declaring one object twice with different types is a compile error in C and C++. */
#define JITSCOPE_ABI_SAME_TYPE(a, b, name) \
  extern a jitscope_abi_same_##name;       \
  extern b jitscope_abi_same_##name
#define JITSCOPE_ABI_STRUCT_NAMES(type, pointer_type) \
  JITSCOPE_ABI_SAME_TYPE(struct _##type, type, type); \
  JITSCOPE_ABI_SAME_TYPE(pointer_type, type*, pointer_type)

JITSCOPE_ABI_STRUCT_NAMES(LineNumberInfo, pLineNumberInfo);
JITSCOPE_ABI_STRUCT_NAMES(iJIT_Method_Load, piJIT_Method_Load);
JITSCOPE_ABI_STRUCT_NAMES(iJIT_Method_Load_V2, piJIT_Method_Load_V2);
JITSCOPE_ABI_STRUCT_NAMES(iJIT_Method_Load_V3, piJIT_Method_Load_V3);
JITSCOPE_ABI_STRUCT_NAMES(iJIT_Method_Inline_Load, piJIT_Method_Inline_Load);
JITSCOPE_ABI_STRUCT_NAMES(iJIT_Method_Update, piJIT_Method_Update);
JITSCOPE_ABI_SAME_TYPE(enum iJIT_jvm_event, iJIT_JVM_EVENT, event_tag);
JITSCOPE_ABI_SAME_TYPE(enum _iJIT_IsProfilingActiveFlags, iJIT_IsProfilingActiveFlags, flags_tag);
JITSCOPE_ABI_SAME_TYPE(enum _iJIT_CodeArchitecture, iJIT_CodeArchitecture, arch_tag);
JITSCOPE_ABI_SAME_TYPE(enum _iJIT_SegmentType, iJIT_SegmentType, segment_tag);
#ifdef JITSCOPE_JIT_LEGACY_API
JITSCOPE_ABI_STRUCT_NAMES(iJIT_Method_Id, piJIT_Method_Id);
JITSCOPE_ABI_STRUCT_NAMES(iJIT_Method_NIDS, piJIT_Method_NIDS);
JITSCOPE_ABI_SAME_TYPE(enum _iJIT_ModeFlags, iJIT_ModeFlags, mode_flags_tag);
JITSCOPE_ABI_SAME_TYPE(enum _iJDEnvironmentType, iJDEnvironmentType, environment_tag);
typedef void (*JitscopeAbiModeCallback)(void*, iJIT_ModeFlags);
JITSCOPE_ABI_SAME_TYPE(iJIT_ModeChangedEx, JitscopeAbiModeCallback, callback_type);
#endif

/* ---- Signatures (section 3.2): a redeclaration with another type does not compile ---- */
unsigned int JITAPI iJIT_GetNewMethodID(void);
iJIT_IsProfilingActiveFlags JITAPI iJIT_IsProfilingActive(void);
int JITAPI iJIT_NotifyEvent(iJIT_JVM_EVENT event_type, void* EventSpecificData);
#ifdef JITSCOPE_JIT_LEGACY_API
void JITAPI iJIT_RegisterCallbackEx(void* userdata, iJIT_ModeChangedEx NewModeCallBackFuncEx);
void JITAPI FinalizeThread(void);
void JITAPI FinalizeProcess(void);
#endif

/* ---- Layouts (section 2): JITSCOPE_ABI_AT(x86-64 value, i386 value) ---- */
#if defined(__x86_64__) && defined(__LP64__)
#define JITSCOPE_ABI_AT(x86_64, i386) (x86_64)
#elif defined(__i386__)
#define JITSCOPE_ABI_AT(x86_64, i386) (i386)
#endif

#ifdef JITSCOPE_ABI_AT
#define JITSCOPE_ABI_FIELD(type, field, x86_64, i386) \
  JITSCOPE_ABI_ASSERT(offsetof(type, field) == JITSCOPE_ABI_AT(x86_64, i386), type##_at_##field)
#define JITSCOPE_ABI_SIZE(type, x86_64, i386, align_x86_64)                        \
  JITSCOPE_ABI_ASSERT(sizeof(type) == JITSCOPE_ABI_AT(x86_64, i386), type##_size); \
  JITSCOPE_ABI_ASSERT(JITSCOPE_ABI_ALIGNOF(type) == JITSCOPE_ABI_AT(align_x86_64, 4), type##_align)

/* 2.1 */
JITSCOPE_ABI_FIELD(LineNumberInfo, Offset, 0, 0);
JITSCOPE_ABI_FIELD(LineNumberInfo, LineNumber, 4, 4);
JITSCOPE_ABI_SIZE(LineNumberInfo, 8, 8, 4);

/* 2.2 */
JITSCOPE_ABI_FIELD(iJIT_Method_Load, method_id, 0, 0);
JITSCOPE_ABI_FIELD(iJIT_Method_Load, method_name, 8, 4);
JITSCOPE_ABI_FIELD(iJIT_Method_Load, method_load_address, 16, 8);
JITSCOPE_ABI_FIELD(iJIT_Method_Load, method_size, 24, 12);
JITSCOPE_ABI_FIELD(iJIT_Method_Load, line_number_size, 28, 16);
JITSCOPE_ABI_FIELD(iJIT_Method_Load, line_number_table, 32, 20);
JITSCOPE_ABI_FIELD(iJIT_Method_Load, class_id, 40, 24);
JITSCOPE_ABI_FIELD(iJIT_Method_Load, class_file_name, 48, 28);
JITSCOPE_ABI_FIELD(iJIT_Method_Load, source_file_name, 56, 32);
#ifdef JITSCOPE_JIT_LEGACY_API
JITSCOPE_ABI_FIELD(iJIT_Method_Load, user_data, 64, 36);
JITSCOPE_ABI_FIELD(iJIT_Method_Load, user_data_size, 72, 40);
JITSCOPE_ABI_FIELD(iJIT_Method_Load, env, 76, 44);
JITSCOPE_ABI_SIZE(iJIT_Method_Load, 80, 48, 8);
#else
JITSCOPE_ABI_SIZE(iJIT_Method_Load, 64, 36, 8);
#endif

/* 2.3 */
JITSCOPE_ABI_FIELD(iJIT_Method_Load_V2, method_id, 0, 0);
JITSCOPE_ABI_FIELD(iJIT_Method_Load_V2, method_name, 8, 4);
JITSCOPE_ABI_FIELD(iJIT_Method_Load_V2, method_load_address, 16, 8);
JITSCOPE_ABI_FIELD(iJIT_Method_Load_V2, method_size, 24, 12);
JITSCOPE_ABI_FIELD(iJIT_Method_Load_V2, line_number_size, 28, 16);
JITSCOPE_ABI_FIELD(iJIT_Method_Load_V2, line_number_table, 32, 20);
JITSCOPE_ABI_FIELD(iJIT_Method_Load_V2, class_file_name, 40, 24);
JITSCOPE_ABI_FIELD(iJIT_Method_Load_V2, source_file_name, 48, 28);
JITSCOPE_ABI_FIELD(iJIT_Method_Load_V2, module_name, 56, 32);
JITSCOPE_ABI_SIZE(iJIT_Method_Load_V2, 64, 36, 8);

/* 2.4 */
JITSCOPE_ABI_FIELD(iJIT_Method_Load_V3, method_id, 0, 0);
JITSCOPE_ABI_FIELD(iJIT_Method_Load_V3, method_name, 8, 4);
JITSCOPE_ABI_FIELD(iJIT_Method_Load_V3, method_load_address, 16, 8);
JITSCOPE_ABI_FIELD(iJIT_Method_Load_V3, method_size, 24, 12);
JITSCOPE_ABI_FIELD(iJIT_Method_Load_V3, line_number_size, 28, 16);
JITSCOPE_ABI_FIELD(iJIT_Method_Load_V3, line_number_table, 32, 20);
JITSCOPE_ABI_FIELD(iJIT_Method_Load_V3, class_file_name, 40, 24);
JITSCOPE_ABI_FIELD(iJIT_Method_Load_V3, source_file_name, 48, 28);
JITSCOPE_ABI_FIELD(iJIT_Method_Load_V3, module_name, 56, 32);
JITSCOPE_ABI_FIELD(iJIT_Method_Load_V3, module_arch, 64, 36);
JITSCOPE_ABI_SIZE(iJIT_Method_Load_V3, 72, 40, 8);

/* 2.5 */
JITSCOPE_ABI_FIELD(iJIT_Method_Inline_Load, method_id, 0, 0);
JITSCOPE_ABI_FIELD(iJIT_Method_Inline_Load, parent_method_id, 4, 4);
JITSCOPE_ABI_FIELD(iJIT_Method_Inline_Load, method_name, 8, 8);
JITSCOPE_ABI_FIELD(iJIT_Method_Inline_Load, method_load_address, 16, 12);
JITSCOPE_ABI_FIELD(iJIT_Method_Inline_Load, method_size, 24, 16);
JITSCOPE_ABI_FIELD(iJIT_Method_Inline_Load, line_number_size, 28, 20);
JITSCOPE_ABI_FIELD(iJIT_Method_Inline_Load, line_number_table, 32, 24);
JITSCOPE_ABI_FIELD(iJIT_Method_Inline_Load, class_file_name, 40, 28);
JITSCOPE_ABI_FIELD(iJIT_Method_Inline_Load, source_file_name, 48, 32);
JITSCOPE_ABI_SIZE(iJIT_Method_Inline_Load, 56, 36, 8);

/* 2.6 */
JITSCOPE_ABI_FIELD(iJIT_Method_Update, load_address, 0, 0);
JITSCOPE_ABI_FIELD(iJIT_Method_Update, size, 8, 4);
JITSCOPE_ABI_FIELD(iJIT_Method_Update, type, 12, 8);
JITSCOPE_ABI_FIELD(iJIT_Method_Update, data_format, 16, 12);
JITSCOPE_ABI_SIZE(iJIT_Method_Update, 24, 16, 8);

/* 2.7 */
#ifdef JITSCOPE_JIT_LEGACY_API
JITSCOPE_ABI_FIELD(iJIT_Method_Id, method_id, 0, 0);
JITSCOPE_ABI_SIZE(iJIT_Method_Id, 4, 4, 4);
JITSCOPE_ABI_FIELD(iJIT_Method_NIDS, method_id, 0, 0);
JITSCOPE_ABI_FIELD(iJIT_Method_NIDS, stack_id, 4, 4);
JITSCOPE_ABI_FIELD(iJIT_Method_NIDS, method_name, 8, 8);
JITSCOPE_ABI_SIZE(iJIT_Method_NIDS, 16, 12, 8);
#endif
#endif /* JITSCOPE_ABI_AT */

/* The types whose sizes the C and the C++ compiler must agree on, on every target. */
#ifdef JITSCOPE_JIT_LEGACY_API
#define JITSCOPE_ABI_LEGACY_TYPES(X) X(iJIT_Method_Id) X(iJIT_Method_NIDS) X(iJIT_ModeFlags)
#else
#define JITSCOPE_ABI_LEGACY_TYPES(X)
#endif
#define JITSCOPE_ABI_TYPES(X)    \
  X(iJIT_JVM_EVENT)              \
  X(iJIT_IsProfilingActiveFlags) \
  X(iJIT_CodeArchitecture)       \
  X(iJIT_SegmentType)            \
  X(LineNumberInfo)              \
  X(iJIT_Method_Load)            \
  X(iJIT_Method_Load_V2)         \
  X(iJIT_Method_Load_V3)         \
  X(iJIT_Method_Inline_Load) X(iJIT_Method_Update) JITSCOPE_ABI_LEGACY_TYPES(X)

#endif /* JITSCOPE_API_ABI_CHECKS_H_ */
