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
 *    the compilers for what they compile or profile. Without them every method is named.
 *  - What it is called, and its lines: Method::_access_flags; ConstMethod::_constants,
 *    _name_index and _signature_index, the constant pool's Symbol*s (after sizeof(ConstantPool),
 *    one word each), Symbol::_length and _body; and the line number table HotSpot keeps
 *    compressed right after the bytecodes (ConstMethod::_flags says whether there is one). These
 *    are what JVMTI's GetMethodModifiers, GetMethodName and GetLineNumberTable read, without
 *    their allocations and transitions into the VM: about a microsecond a method, nearly all of
 *    what naming the methods that ran at a JVM's start cost. Without them JVMTI names them.
 *  - Its class's name and source file: ConstantPool::_pool_holder, Klass::_name, and the
 *    class's constant pool's _source_file_name_index (what GetClassSignature and
 *    GetSourceFileName read). */
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
  int names_known;               /* 0: the tables lack an entry describe_method needs */
  size_t access_flags_offset;    /* of Method::_access_flags (a u4) */
  size_t constants_offset;       /* of ConstMethod::_constants (a ConstantPool*) */
  size_t name_index_offset;      /* of ConstMethod::_name_index (a u2) */
  size_t signature_index_offset; /* of ConstMethod::_signature_index (a u2) */
  size_t const_method_flags_offset; /* of ConstMethod::_flags (a u2) */
  uint32_t has_line_table;          /* ConstMethod::_has_linenumber_table, a bit of _flags */
  size_t pool_length_offset;        /* of ConstantPool::_length (an int) */
  size_t constant_pool_size;        /* sizeof(ConstantPool): its entries follow it */
  size_t symbol_length_offset;      /* of Symbol::_length (a u2) */
  size_t symbol_body_offset;        /* of Symbol::_body (the bytes) */
  int classes_known;                /* 0: the tables lack an entry describe_class needs */
  size_t pool_holder_offset;        /* of ConstantPool::_pool_holder (an InstanceKlass*) */
  size_t source_file_offset;        /* of ConstantPool::_source_file_name_index (a u2) */
  size_t klass_name_offset;         /* of Klass::_name (a Symbol*) */
  size_t klass_constants_offset;    /* of InstanceKlass::_constants (a ConstantPool*) */
};

/* What describe_method reads of a Method*: its names point into the JVM's Symbols (modified
 * UTF-8, as JVMTI gives them, not terminated). */
struct method_description {
  uint32_t access_flags; /* JVM_ACC_* (JVMS 4.6) and HotSpot's own bits above them */
  const char* name;
  uint16_t name_size;
  const char* signature;
  uint16_t signature_size;
  const unsigned char* line_table; /* the compressed line number table, or NULL: none */
  uint32_t code_size;              /* of its bytecodes */
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

/* Reads the names, flags and line table of `method` (a live Method*) into `description`. Returns
 * 0 when the layout does not say or what it read cannot be a method's (a name index outside its
 * constant pool, a Symbol* that is no pointer). */
int describe_method(const struct method_layout* layout, const void* method,
                    struct method_description* description);

/* Asks the CPU for what describe_method will read of each of `methods` (live Method*s), a step
 * of the chain Method, ConstMethod, constant pool, Symbol at a time for all of them: naming the
 * methods of a class one by one waits for each of those reads in turn, most of them memory no
 * one touched since the class was loaded. */
void prefetch_descriptions(const struct method_layout* layout, const void* const* methods,
                           size_t count);

/* Reads the name of the class that declares `method` (a live Method*), as HotSpot keeps it
 * ("pkg/Outer$Inner"), and its source file's ("Outer.java"; NULL and 0 when the class file does
 * not say). Returns 0 when the layout does not say or what it read cannot be a class's. */
int describe_class(const struct method_layout* layout, const void* method, const char** name,
                   uint16_t* name_size, const char** file, uint16_t* file_size);

/* One line of a method: from bytecode `start_bci` on (JVMTI's jvmtiLineNumberEntry). */
struct method_line {
  uint32_t start_bci;
  uint32_t line;
};

/* Decodes HotSpot's compressed line number table (CompressedLineNumberWriteStream: a byte
 * bci_delta << 3 | line_delta where both fit and it is not 0xff, else 0xff and the two deltas as
 * signed UNSIGNED5 numbers; a 0 byte ends it) of a method with `code_size` bytes of bytecodes,
 * into `lines` (room for `capacity`). Returns how many lines the table has, which may be more
 * than `capacity` (then call again with room for them all), or -1 when it is not one a method
 * can have (a bytecode index at or past its code, a line outside 0-65535, more than 65,535
 * lines). */
long decode_line_table(const unsigned char* table, uint32_t code_size, struct method_line* lines,
                       size_t capacity);

#endif /* JVMTI_OPAGENT_VM_STRUCTS_H_ */
