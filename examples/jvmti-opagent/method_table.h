/* Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
 *
 * The agent's JVM table (src/jitscope/formats/jvm_table_format.h): which Java method each Method*
 * holds, and when; and the inline scopes of compiled code.
 *
 * Methods. A jmethodID in HotSpot is the address of a slot that holds the method's Method*
 * (jniHandles, JNIMethodBlock: never freed, so always readable), so reading the slot turns every
 * method JVMTI lists into the Method* an interpreter frame holds. Classes are listed when the table
 * opens (GetLoadedClasses: those the JVM loaded before, at start or before a late attach) and as
 * they are prepared (ClassPrepare: a class's methods cannot run before). A class is only pinned
 * (a global reference) and queued by the thread that prepares it; a thread of the agent's own
 * lists its methods once it is initialized, so class loading pays a queue push and nothing more.
 * Only the methods a frame can hold are named (most methods listed at a JVM's start never run):
 * those that ran, which HotSpot's interpreter gave counters on their first call (vm_structs.h),
 * and those compiled code inlined (they run there without counting, and deoptimization turns
 * them into interpreter frames). Those that ran by the time their class is listed are named at
 * once, while what listing read of them is in the CPU's caches; names, signatures, line tables
 * and class names are read from HotSpot's structures (vm_structs.h: what JVMTI would answer,
 * without its transitions into the VM and allocations), from JVMTI where they cannot be. Each is
 * named as from when its class was listed, however much later the thread sees that it ran; the
 * others are looked at again every 100 ms, and when the table closes (whose last listing keeps
 * only the methods that ran or were inlined).
 * Under -Xint the interpreter counts nothing, and every method is named. The same thread reads
 * every known method's slot again every 100 ms: a slot that changed means the method is gone (its
 * class was unloaded: HotSpot clears the slot when it frees the method) or replaced (redefined:
 * the slot then holds the new Method*, named once it has run). The old Method* is ended at the
 * last time its slot still held it, so a frame sampled after that is never named from it: the
 * memory may hold another method by then. A slot may hold the same Method* again after two
 * redefinitions or more between two checks (HotSpot reuses the memory it frees at once), so each
 * class listed is also kept by a weak global reference with its java.lang.Class
 * classRedefinedCount, read before its methods are listed and again at each check: a class whose
 * count changed ends all its methods' entries the same way, and its slots' Method*s are named
 * anew once they ran. A class unloaded (its weak reference cleared) is dropped: its slots tell.
 *
 * Compiled code. CompiledMethodLoad's compile_info carries jvmtiCompiledMethodLoadInlineRecord:
 * for each debug pc of the code, the methods inlined there (innermost first) and their bytecode
 * indexes; gathered as they come (after the code's load in the trace), and written with the
 * naming thread's next batch, when the table closes, or once they fill a batch.
 *
 * Writes: records are gathered and written with one write() on an O_APPEND descriptor, whole, by
 * any thread; one mutex guards the descriptor's life. Failures are counted (the agent prints them
 * at unload), never stop the VM. */
#ifndef JVMTI_OPAGENT_METHOD_TABLE_H_
#define JVMTI_OPAGENT_METHOD_TABLE_H_

#include <jvmti.h>

/* Opens the table in `dir` (NULL: JITSCOPE_OUTPUT_DIR, else the current directory) and lists the
 * loaded classes into it; `since_start`: they are known from the JVM's start on (the table opens
 * at VMInit), else from now. Starts the agent's naming thread the first time. Needs ClassPrepare
 * enabled by the caller first, so that no class falls between the listing and the events.
 * Returns 0 or an errno value. Call on a Java thread (VMInit, Agent_OnAttach). */
int method_table_open(jvmtiEnv* jvmti, JNIEnv* jni, const char* dir, int since_start);

/* ClassPrepare: queues `klass` for naming. */
void method_table_class_prepared(jvmtiEnv* jvmti, JNIEnv* jni, jclass klass);

/* CompiledMethodLoad: writes the inline scopes of the code at `code`. */
void method_table_compiled(jvmtiEnv* jvmti, const void* code, jint size, const void* compile_info);

/* Names what is queued, writes the last record and closes the table (on a Java thread, or with
 * `jni` NULL at VM exit, when the queued classes are dropped unnamed). */
void method_table_close(jvmtiEnv* jvmti, JNIEnv* jni);

/* The capabilities the table needs, added to `capabilities`. */
void method_table_capabilities(jvmtiCapabilities* capabilities);

/* Writes and queries that failed since the last call (and resets the count). */
unsigned long method_table_failures(void);

#endif /* JVMTI_OPAGENT_METHOD_TABLE_H_ */
