/* Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
 *
 * Where a Method*'s bytecodes are, from HotSpot's own description of its structures: the tables
 * libjvm.so exports for its serviceability agent (gHotSpotVMStructs, gHotSpotVMTypes and the
 * offsets and strides that say how to read them; vmStructs.hpp). They give the offset of
 * Method::_constMethod and ConstMethod::_code_size, and the size of ConstMethod, after which the
 * bytecodes start (ConstMethod::code_base()). JVMTI has no call for the address, which is what an
 * interpreter frame's bcp points into. Read once; a JVM without the tables (another VM, a changed
 * layout) gives no addresses, and the table then names interpreter frames without lines. */
#ifndef JVMTI_OPAGENT_VM_STRUCTS_H_
#define JVMTI_OPAGENT_VM_STRUCTS_H_

#include <stddef.h>
#include <stdint.h>

struct bytecode_layout {
  int known;                  /* 0: the tables were not found or lack an entry */
  size_t const_method_offset; /* of Method::_constMethod */
  size_t code_size_offset;    /* of ConstMethod::_code_size (a u2) */
  size_t const_method_size;   /* sizeof(ConstMethod): the bytecodes follow it */
};

/* Reads the layout from the running JVM's tables. */
void read_bytecode_layout(struct bytecode_layout* layout);

/* The bytecodes of `method` (a live Method*): their address and length; 0 and 0 when the layout
 * is not known. */
void bytecodes_of(const struct bytecode_layout* layout, const void* method, uint64_t* base,
                  uint32_t* size);

#endif /* JVMTI_OPAGENT_VM_STRUCTS_H_ */
