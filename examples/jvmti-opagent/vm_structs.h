/* Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
 *
 * What JVMTI does not say about a Method*, from HotSpot's own description of its structures: the
 * tables libjvm.so exports for its serviceability agent (gHotSpotVMStructs, gHotSpotVMTypes and
 * the offsets and strides that say how to read them; vmStructs.hpp). Read once; a JVM without the
 * tables (another VM, a changed layout) lacks the entries, and the JVM table does without.
 *  - Where its bytecodes are, what an interpreter frame's bcp points into: the offset of
 *    Method::_constMethod and ConstMethod::_code_size, and the size of ConstMethod, after which
 *    the bytecodes start (ConstMethod::code_base()). Without them interpreter frames are named
 *    without lines.
 *  - Whether it has run: Method::_method_counters and Method::_method_data, which HotSpot's
 *    interpreter allocates or finds on a method's first call when it counts calls for the
 *    compilers (generate_counter_incr: every entry that builds a frame, native methods' too), and
 *    the compilers for what they compile or profile. Without them every method is named. */
#ifndef JVMTI_OPAGENT_VM_STRUCTS_H_
#define JVMTI_OPAGENT_VM_STRUCTS_H_

#include <stddef.h>
#include <stdint.h>

struct method_layout {
  int known;                     /* 0: the tables were not found or lack a bytecodes entry */
  size_t const_method_offset;    /* of Method::_constMethod */
  size_t code_size_offset;       /* of ConstMethod::_code_size (a u2) */
  size_t const_method_size;      /* sizeof(ConstMethod): the bytecodes follow it */
  int counters_known;            /* 0: the tables lack Method::_method_counters or _method_data */
  size_t method_counters_offset; /* of Method::_method_counters (a MethodCounters*) */
  size_t method_data_offset;     /* of Method::_method_data (a MethodData*) */
};

/* Reads the layout from the running JVM's tables. */
void read_method_layout(struct method_layout* layout);

/* The bytecodes of `method` (a live Method*): their address and length; 0 and 0 when the layout
 * is not known. */
void bytecodes_of(const struct method_layout* layout, const void* method, uint64_t* base,
                  uint32_t* size);

/* Whether `method` (a live Method*) has counters or profile data: 1 or 0; -1 when the layout does
 * not say. */
int method_has_counters(const struct method_layout* layout, const void* method);

#endif /* JVMTI_OPAGENT_VM_STRUCTS_H_ */
