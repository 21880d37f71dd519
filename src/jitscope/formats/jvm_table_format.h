/* Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
 *
 * The JVM table (jvm-<pid>.jsm): what jitscope's JVMTI agent (examples/jvmti-opagent) writes
 * beside its trace so that report can name what the trace cannot.
 *  - Methods: which Java method a Method* held, and when. HotSpot's interpreter frames hold the
 *    Method* they run (unwind/hotspot_interpreter.h); the table turns it into the class, the
 *    method, its signature and source file, and the frame's bytecode pointer into a line.
 *  - Compiled code's inline scopes: CompiledMethodLoad's jvmtiCompiledMethodLoadInlineRecord
 *    (jvmticmlr.h): at each of the code's debug pcs, the methods inlined there, innermost first,
 *    with their bytecode indexes.
 *
 * Byte for byte, in the writer's (little-endian) order. The file is a header, then records, each
 * a JvmRecordHeader and its payload, 8-aligned; a record is written whole with one write(), so
 * only the last one can be cut short (a JVM killed while writing). Times are CLOCK_MONOTONIC
 * nanoseconds, the samples' clock; records are in the order they were written, not of their
 * times (the agent names classes on a thread of its own, after they were prepared).
 *
 * A C header (C99 and C++): the agent is C. The C++ reader (jvm_table_reader.h) asserts the
 * sizes. */
#ifndef JITSCOPE_FORMATS_JVM_TABLE_FORMAT_H_
#define JITSCOPE_FORMATS_JVM_TABLE_FORMAT_H_

#include <stdint.h>

#define JITSCOPE_JVM_TABLE_MAGIC 0x4d4a534aU /* "JSJM" */
#define JITSCOPE_JVM_TABLE_VERSION 1U

/* Record types. */
#define JITSCOPE_JVM_RECORD_METHOD 1U   /* a Method* holds a method from the record's time on */
#define JITSCOPE_JVM_RECORD_END 2U      /* a Method* no longer holds the method it held */
#define JITSCOPE_JVM_RECORD_COMPILED 3U /* compiled code's inline scopes */

/* JitscopeJvmMethod's flags. */
#define JITSCOPE_JVM_METHOD_NATIVE 1U

struct JitscopeJvmTableHeader {
  uint32_t magic;       /* JITSCOPE_JVM_TABLE_MAGIC */
  uint32_t version;     /* JITSCOPE_JVM_TABLE_VERSION */
  uint32_t header_size; /* sizeof(struct JitscopeJvmTableHeader); records start there */
  uint32_t pid;
  uint64_t start_ns; /* when the agent opened the table */
};

struct JitscopeJvmRecordHeader {
  uint32_t type; /* JITSCOPE_JVM_RECORD_* */
  uint32_t size; /* the whole record, this header included; a multiple of 8 */
  uint64_t time_ns;
};

/* METHOD. time_ns: from when the Method* holds the method (0: since the JVM started, for the
 * classes its boot loader loaded before the agent's first look). Followed by line_count
 * JitscopeJvmLine entries, then the four strings (modified UTF-8, no NUL) in the order of their
 * sizes below, then zero bytes up to the record's size. */
struct JitscopeJvmMethod {
  uint64_t method;         /* the Method* */
  uint64_t code_base;      /* its bytecodes' address (ConstMethod's code base); 0: not known */
  uint32_t code_size;      /* its bytecodes' length; 0 for native and abstract methods */
  uint32_t flags;          /* JITSCOPE_JVM_METHOD_* */
  uint32_t class_size;     /* "pkg.Outer$Inner" */
  uint32_t name_size;      /* "run" */
  uint32_t signature_size; /* "(IJ)V" */
  uint32_t file_size;      /* "pkg/Outer.java"; 0: not known */
  uint32_t line_count;
  uint32_t reserved; /* 0 */
};

/* One entry of a method's line table (JVMTI GetLineNumberTable): the bytecodes from start_bci up
 * to the next entry's start are of `line`. */
struct JitscopeJvmLine {
  uint32_t start_bci;
  uint32_t line;
};

/* END. time_ns: when the agent saw that the Method* holds the method no longer (its class was
 * unloaded, or redefined); valid_until_ns: the last time it saw that it still did. Between the
 * two, nothing is known of the Method*. */
struct JitscopeJvmEnd {
  uint64_t method;
  uint64_t valid_until_ns;
};

/* COMPILED. time_ns: when the agent reported the code (after its load in the trace). Followed by
 * pc_count JitscopeJvmPc entries, then frame_count JitscopeJvmFrame entries. */
struct JitscopeJvmCompiled {
  uint64_t address; /* the code's start */
  uint32_t size;    /* its length */
  uint32_t pc_count;
  uint32_t frame_count;
  uint32_t reserved; /* 0 */
};

/* A debug pc of compiled code: the code up to and including `pc`, after the previous debug pc,
 * runs the frames [first_frame, first_frame + frames), innermost first (HotSpot's approximate pc
 * lookup, nmethod::pc_desc_near). */
struct JitscopeJvmPc {
  uint64_t pc;
  uint32_t first_frame;
  uint32_t frames;
};

struct JitscopeJvmFrame {
  uint64_t method; /* the Method* */
  int32_t bci;     /* its bytecode index; negative: none (a synchronization entry) */
  uint32_t reserved;
};

#endif /* JITSCOPE_FORMATS_JVM_TABLE_FORMAT_H_ */
