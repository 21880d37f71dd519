/* Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
 *
 * libjvmti_opagent.so: a JVMTI agent that reports the code HotSpot generates to OProfile's agent
 * API (opagent.h), the job OProfile's libjvmti_oprofile does. Linked against jitscope's
 * libopagent.so.1, every method the JIT compiles lands in the OProfile dump and in jitscope's
 * outputs (JITSCOPE_FORMATS: trace, jitdump, perf map).
 *
 *   java -agentpath:<lib>/libjvmti_opagent.so MyApp             at start, configured by JITSCOPE_*
 *   java -agentpath:<lib>/libjvmti_opagent.so=dir=DIR MyApp     a trace and dump in DIR
 *   jcmd PID JVMTI.agent_load <lib>/libjvmti_opagent.so dir=DIR  into a running VM (record -p
 *   jcmd PID JVMTI.agent_load <lib>/libjvmti_opagent.so stop     --jvm-agent does both)
 *
 * What it forwards:
 *  - CompiledMethodLoad → op_write_native_code("pkg.Class.method(signature)", code, code, size),
 *    then op_write_debug_line_info with one entry per pc→bci pair of the compiled method, the bci
 *    turned into a source line through the method's line-number table, the file named by its
 *    package path ("pkg/Class.java") so files of different packages are told apart;
 *  - CompiledMethodUnload → op_unload_native_code(code);
 *  - DynamicCodeGenerated (interpreter, stubs, adapters) → op_write_native_code(name, ...);
 *  - GenerateEvents replays the code generated before the callbacks were enabled: at VM start, or
 *    at once when loaded into a running VM;
 *  - beside the trace, the JVM table (jvm-PID.jsm, method_table.h): which Java method each Method*
 *    holds, for naming interpreter frames, and compiled code's inline scopes, for inline frames;
 *    JITSCOPE_JVM_TABLE=0 leaves it out;
 *  - "stop", and Agent_OnUnload → op_close_agent.
 *
 * HotSpot's pc→bci map is that of the outermost method (inlined callees' pcs map to the bci of
 * their call site), so lines inside inlined code are attributed to the call's line.
 *
 * Failures of op_* calls are counted and printed once at unload; they never stop the VM. */
/* setenv, unsetenv, strdup: POSIX.1-2008, which strict C99 leaves out. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <jvmti.h>
#include <opagent.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "method_table.h"

static jvmtiEnv* jvmti_env;
/* NULL while not reporting. Callbacks on the VM's threads read it as a stop swaps it out. */
static op_agent_t agent;
/* Reporting since the VM started (-agentpath): the VM's own configuration, which a load at run
 * time neither moves nor stops. */
static int reporting_since_start;
/* The directory the VM's own configuration names (-agentpath:...=dir=DIR), for the JVM table that
 * opens at VMInit; NULL: the environment's. */
static char* start_dir;
/* Approximate under races; only reported. */
static volatile unsigned long failed_calls;   /* op_* calls that failed */
static volatile unsigned long failed_queries; /* compiled methods JVMTI could not describe */

static void note_failure(int result) {
  if (result != 0) __atomic_add_fetch(&failed_calls, 1, __ATOMIC_RELAXED);
}

static void deallocate(jvmtiEnv* jvmti, void* p) {
  if (p != NULL) (*jvmti)->Deallocate(jvmti, (unsigned char*)p);
}

/* "Lpkg/Outer$Inner;" → "pkg.Outer$Inner" into out (always NUL-terminated). */
static void class_name(const char* signature, char* out, size_t size) {
  size_t n = 0;
  const char* p = signature;
  if (*p == 'L') ++p;
  for (; *p != '\0' && *p != ';' && n + 1 < size; ++p) out[n++] = *p == '/' ? '.' : *p;
  out[n] = '\0';
}

/* The source file with the package path of the class: "pkg/Outer.java". */
static void source_path(const char* signature, const char* file, char* out, size_t size) {
  const char* start = signature[0] == 'L' ? signature + 1 : signature;
  const char* slash = strrchr(start, '/');
  const int package = slash != NULL ? (int)(slash - start + 1) : 0;
  snprintf(out, size, "%.*s%s", package, start, file);
}

/* The line of `bci` in a line table: that of the last entry starting at or before it. */
static jint line_of(const jvmtiLineNumberEntry* table, jint count, jlocation bci) {
  jint line = 0;
  jlocation best = -1;
  jint i;
  for (i = 0; i < count; ++i) {
    if (table[i].start_location <= bci && table[i].start_location > best) {
      best = table[i].start_location;
      line = table[i].line_number;
    }
  }
  return line;
}

static op_agent_t current_agent(void) { return __atomic_load_n(&agent, __ATOMIC_ACQUIRE); }

static void report_lines(op_agent_t reporter, jvmtiEnv* jvmti, jmethodID method,
                         const char* class_signature, jclass klass, const void* code,
                         jint map_length, const jvmtiAddrLocationMap* map) {
  jvmtiLineNumberEntry* table = NULL;
  jint table_size = 0;
  char* file = NULL;
  char path[1024];
  struct debug_line_info* lines;
  jint i;
  size_t count = 0;
  if (map == NULL || map_length <= 0) return;
  if ((*jvmti)->GetLineNumberTable(jvmti, method, &table_size, &table) != JVMTI_ERROR_NONE) return;
  if ((*jvmti)->GetSourceFileName(jvmti, klass, &file) != JVMTI_ERROR_NONE) file = NULL;
  source_path(class_signature, file != NULL ? file : "<unknown>", path, sizeof(path));
  lines = calloc((size_t)map_length, sizeof(*lines));
  if (lines != NULL) {
    for (i = 0; i < map_length; ++i) {
      const jint line = line_of(table, table_size, map[i].location);
      if (line <= 0) continue; /* a hole: the array may have them (OProfile's guide §4) */
      lines[count].vma = (unsigned long)(uintptr_t)map[i].start_address;
      lines[count].lineno = (unsigned int)line;
      lines[count].filename = path;
      ++count;
    }
    if (count > 0) note_failure(op_write_debug_line_info(reporter, code, count, lines));
    free(lines);
  }
  deallocate(jvmti, file);
  deallocate(jvmti, table);
}

static void JNICALL compiled_method_load(jvmtiEnv* jvmti, jmethodID method, jint code_size,
                                         const void* code_addr, jint map_length,
                                         const jvmtiAddrLocationMap* map,
                                         const void* compile_info) {
  jclass klass = NULL;
  char *class_signature = NULL, *name = NULL, *signature = NULL;
  char class_buffer[512], symbol[2048];
  const op_agent_t reporter = current_agent();
  if (reporter == NULL) return;
  jvmtiError error;
  if ((error = (*jvmti)->GetMethodDeclaringClass(jvmti, method, &klass)) != JVMTI_ERROR_NONE ||
      (error = (*jvmti)->GetClassSignature(jvmti, klass, &class_signature, NULL)) !=
          JVMTI_ERROR_NONE ||
      (error = (*jvmti)->GetMethodName(jvmti, method, &name, &signature, NULL)) !=
          JVMTI_ERROR_NONE) {
    /* The VM posts what its compilers finish while it exits, after VMDeath, when JVMTI answers
     * nothing (JVMTI_ERROR_WRONG_PHASE): that code never runs, and there is nothing to report. */
    if (error != JVMTI_ERROR_WRONG_PHASE) __atomic_add_fetch(&failed_queries, 1, __ATOMIC_RELAXED);
  } else {
    class_name(class_signature, class_buffer, sizeof(class_buffer));
    snprintf(symbol, sizeof(symbol), "%s.%s%s", class_buffer, name, signature);
    note_failure(op_write_native_code(reporter, symbol, (uint64_t)(uintptr_t)code_addr, code_addr,
                                      (unsigned int)code_size));
    report_lines(reporter, jvmti, method, class_signature, klass, code_addr, map_length, map);
    /* After the code's load in the trace: the table's inline scopes describe that load. */
    method_table_compiled(jvmti, code_addr, code_size, compile_info);
  }
  deallocate(jvmti, class_signature);
  deallocate(jvmti, name);
  deallocate(jvmti, signature);
}

static void JNICALL compiled_method_unload(jvmtiEnv* jvmti, jmethodID method,
                                           const void* code_addr) {
  const op_agent_t reporter = current_agent();
  (void)jvmti;
  (void)method;
  if (reporter == NULL) return;
  note_failure(op_unload_native_code(reporter, (uint64_t)(uintptr_t)code_addr));
}

static void JNICALL dynamic_code_generated(jvmtiEnv* jvmti, const char* name, const void* address,
                                           jint length) {
  const op_agent_t reporter = current_agent();
  (void)jvmti;
  if (reporter == NULL) return;
  note_failure(op_write_native_code(reporter, name, (uint64_t)(uintptr_t)address, address,
                                    (unsigned int)length));
}

/* The code generated before the callbacks were enabled: stubs made during VM start, and when
 * loaded into a running VM, every method compiled so far. GenerateEvents posts them on this
 * thread before it returns. A method compiled meanwhile may be reported twice, which a reader
 * takes as a second load of the same code. */
static void replay(jvmtiEnv* jvmti) {
  (*jvmti)->GenerateEvents(jvmti, JVMTI_EVENT_DYNAMIC_CODE_GENERATED);
  (*jvmti)->GenerateEvents(jvmti, JVMTI_EVENT_COMPILED_METHOD_LOAD);
}

/* Whether the JVM table is wanted: JITSCOPE_JVM_TABLE=0 leaves it out. */
static int table_wanted(void) {
  const char* value = getenv("JITSCOPE_JVM_TABLE");
  return value == NULL || strcmp(value, "0") != 0;
}

static void open_table(jvmtiEnv* jvmti, JNIEnv* jni, const char* dir, int since_start) {
  int error;
  if (!table_wanted()) return;
  error = method_table_open(jvmti, jni, dir, since_start);
  if (error != 0) {
    fprintf(stderr, "jvmti_opagent: the JVM table in %s: %s\n",
            dir != NULL ? dir : "the output directory", strerror(error));
  }
}

static void JNICALL vm_init(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread) {
  (void)thread;
  replay(jvmti);
  if (current_agent() != NULL) open_table(jvmti, jni, start_dir, 1);
}

static void JNICALL class_prepare(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread, jclass klass) {
  (void)thread;
  method_table_class_prepared(jvmti, jni, klass);
}

/* The last moment with JNI: the table names what is queued and closes. */
static void JNICALL vm_death(jvmtiEnv* jvmti, JNIEnv* jni) { method_table_close(jvmti, jni); }

/* The JVMTI environment, its capabilities and callbacks: set up once per load of the library
 * (a second JVMTI.agent_load of the same path finds them in place). */
static jvmtiError prepare(JavaVM* vm) {
  jvmtiCapabilities capabilities;
  jvmtiEventCallbacks callbacks;
  jvmtiEnv* jvmti = NULL;
  jvmtiError error;
  if (jvmti_env != NULL) return JVMTI_ERROR_NONE;
  if ((*vm)->GetEnv(vm, (void**)&jvmti, JVMTI_VERSION_1_0) != JNI_OK) {
    fprintf(stderr, "jvmti_opagent: no JVMTI 1.0 environment\n");
    return JVMTI_ERROR_UNSUPPORTED_VERSION;
  }
  memset(&capabilities, 0, sizeof(capabilities));
  capabilities.can_generate_compiled_method_load_events = 1;
  capabilities.can_get_line_numbers = 1;
  capabilities.can_get_source_file_name = 1;
  method_table_capabilities(&capabilities);
  error = (*jvmti)->AddCapabilities(jvmti, &capabilities);
  if (error != JVMTI_ERROR_NONE) {
    fprintf(stderr, "jvmti_opagent: the VM cannot report compiled methods (JVMTI error %d)\n",
            (int)error);
  } else {
    memset(&callbacks, 0, sizeof(callbacks));
    callbacks.VMInit = vm_init;
    callbacks.CompiledMethodLoad = compiled_method_load;
    callbacks.CompiledMethodUnload = compiled_method_unload;
    callbacks.DynamicCodeGenerated = dynamic_code_generated;
    callbacks.ClassPrepare = class_prepare;
    callbacks.VMDeath = vm_death;
    error = (*jvmti)->SetEventCallbacks(jvmti, &callbacks, (jint)sizeof(callbacks));
  }
  if (error != JVMTI_ERROR_NONE) {
    (*jvmti)->DisposeEnvironment(jvmti);
    return error;
  }
  jvmti_env = jvmti;
  return JVMTI_ERROR_NONE;
}

/* A load that failed is undone by the VM (it unloads the library if no earlier load holds it):
 * its environment must not keep callbacks into it. */
static void release(void) {
  if (jvmti_env == NULL) return;
  (*jvmti_env)->DisposeEnvironment(jvmti_env);
  jvmti_env = NULL;
}

/* The environment variables libopagent reads when op_open_agent starts a session. */
static const char* const session_variables[] = {"JITSCOPE_OUTPUT_DIR", "JITSCOPE_OPAGENT_DIR",
                                                "JITSCOPE_FORMATS", "JITSCOPE_LOG"};
#define SESSION_VARIABLES (sizeof(session_variables) / sizeof(session_variables[0]))

/* op_open_agent with every output in `dir` (NULL: as the process's environment says).
 *
 * libopagent takes its configuration from the environment only (its exports are exactly
 * OProfile's seven functions, which have no parameter for it), so the variables are set around the
 * call and then put back as they were: the JVM's child processes and later sessions see its own
 * environment. Changing the environment of a running multi-threaded process is tolerable here:
 * glibc's setenv never frees a value getenv may have returned, HotSpot reads its environment at
 * start, and attaching is rare. Rejected: a jitscope-specific libopagent export taking the
 * directory (libopagent must stay OProfile's ABI), and writing to the defaults and letting record
 * copy the files (the JVM's working directory and /tmp may not be record's: a container). */
static op_agent_t open_agent_in(const char* dir) {
  char* saved[SESSION_VARIABLES];
  char log[4096];
  op_agent_t opened;
  int error;
  size_t i;
  if (dir == NULL) return op_open_agent();
  if (snprintf(log, sizeof(log), "%s/jvmti-opagent-%ld.log", dir, (long)getpid()) >=
      (int)sizeof(log)) {
    errno = ENAMETOOLONG;
    return NULL;
  }
  for (i = 0; i < SESSION_VARIABLES; ++i) {
    const char* value = getenv(session_variables[i]);
    saved[i] = value != NULL ? strdup(value) : NULL;
  }
  setenv("JITSCOPE_OUTPUT_DIR", dir, 1);
  setenv("JITSCOPE_OPAGENT_DIR", dir, 1);
  setenv("JITSCOPE_FORMATS", "trace", 1);
  setenv("JITSCOPE_LOG", log, 1);
  opened = op_open_agent();
  error = errno;
  for (i = 0; i < SESSION_VARIABLES; ++i) {
    if (saved[i] != NULL) {
      setenv(session_variables[i], saved[i], 1);
    } else {
      unsetenv(session_variables[i]);
    }
    free(saved[i]);
  }
  errno = error;
  return opened;
}

static jvmtiError set_reporting(jvmtiEventMode mode) {
  static const jvmtiEvent events[] = {
      JVMTI_EVENT_COMPILED_METHOD_LOAD, JVMTI_EVENT_COMPILED_METHOD_UNLOAD,
      JVMTI_EVENT_DYNAMIC_CODE_GENERATED, JVMTI_EVENT_CLASS_PREPARE, JVMTI_EVENT_VM_DEATH};
  size_t i;
  for (i = 0; i < sizeof(events) / sizeof(events[0]); ++i) {
    const jvmtiError error =
        (*jvmti_env)->SetEventNotificationMode(jvmti_env, mode, events[i], NULL);
    if (error != JVMTI_ERROR_NONE) return error;
  }
  return JVMTI_ERROR_NONE;
}

/* Stops reporting and ends the libopagent session, which closes its files, and the JVM table
 * (`jni`: the calling thread's, NULL when there is none). A callback already past its load of the
 * handle gets EINVAL from libopagent (a closed handle), counted. */
static void stop_reporting(JNIEnv* jni) {
  op_agent_t closing;
  if (jvmti_env != NULL) {
    set_reporting(JVMTI_DISABLE);
    method_table_close(jvmti_env, jni);
  }
  closing = __atomic_exchange_n(&agent, NULL, __ATOMIC_ACQ_REL);
  if (closing != NULL && op_close_agent(closing) != 0) perror("jvmti_opagent: op_close_agent");
}

/* The agent's options: "" (report as the process's environment says), "dir=PATH" (every
 * output into PATH, all of the rest of the string, commas included), "stop", "version". */
struct options {
  const char* dir;
  int stop;
};

static int parse_options(const char* text, struct options* out) {
  out->dir = NULL;
  out->stop = 0;
  if (text == NULL || *text == '\0') return 0;
  if (strcmp(text, "version") == 0) {
    fprintf(stderr, "jvmti_opagent: libopagent %d.%d\n", op_major_version(), op_minor_version());
    return 0;
  }
  if (strcmp(text, "stop") == 0) {
    out->stop = 1;
    return 0;
  }
  if (strncmp(text, "dir=", 4) == 0 && text[4] != '\0') {
    out->dir = text + 4;
    return 0;
  }
  fprintf(stderr, "jvmti_opagent: unknown options '%s' (dir=PATH, stop or version)\n", text);
  return -1;
}

/* Starts (or restarts, in a new session) reporting; 0 or the errno of op_open_agent's failure,
 * JNI_ERR for a JVMTI failure. */
static jint start_reporting(const char* dir, JNIEnv* jni) {
  op_agent_t opened;
  stop_reporting(jni); /* an earlier attach that was never stopped: its session ends here */
  opened = open_agent_in(dir);
  if (opened == NULL) {
    const int error = errno != 0 ? errno : EIO;
    fprintf(stderr, "jvmti_opagent: op_open_agent%s%s: %s\n", dir != NULL ? " in " : "",
            dir != NULL ? dir : "", strerror(error));
    return error;
  }
  __atomic_store_n(&agent, opened, __ATOMIC_RELEASE);
  if (set_reporting(JVMTI_ENABLE) != JVMTI_ERROR_NONE) {
    stop_reporting(jni);
    return JNI_ERR;
  }
  return JNI_OK;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char* options, void* reserved) {
  struct options parsed;
  (void)reserved;
  if (parse_options(options, &parsed) != 0 || parsed.stop) return JNI_ERR;
  /* Loaded twice at start (jitscope record gives a JVM the agent in JAVA_TOOL_OPTIONS, which
   * HotSpot reads before the command line, and the command line names it too): the first load
   * reports, the second is this same copy of the library and adds nothing. */
  if (reporting_since_start) return JNI_OK;
  if (prepare(vm) != JVMTI_ERROR_NONE) return JNI_ERR;
  if ((*jvmti_env)->SetEventNotificationMode(jvmti_env, JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, NULL) !=
      JVMTI_ERROR_NONE) {
    return JNI_ERR;
  }
  if (parsed.dir != NULL) start_dir = strdup(parsed.dir);
  if (start_reporting(parsed.dir, NULL) != JNI_OK) return JNI_ERR;
  reporting_since_start = 1;
  return JNI_OK;
}

/* Loaded into a running VM (jcmd PID JVMTI.agent_load <this library> [options]; jitscope record -p
 * --jvm-agent). The VM is in its live phase: the code compiled before the agent arrived is
 * replayed at once, so it is reported before this returns. Loading the library again runs this
 * again in the same copy of it: "dir=" moves reporting into a new session, "stop" ends it (record
 * does so when its recording ends, so that nothing more is written into its directory).
 *
 * The result jcmd prints ("return code: N"): 0, JNI_ERR (-1) for a JVMTI failure or unknown
 * options, EBUSY when the VM was started with this agent (this copy of it) and it still reports
 * as the VM's environment asked, or the errno value with which op_open_agent failed (so that
 * record can say why: EACCES for a directory this VM's user may not write). Calls are serialised
 * by the VM's attach listener; the lock guards against anything else. */
JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM* vm, char* options, void* reserved) {
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  struct options parsed;
  jint result = JNI_OK;
  JNIEnv* jni = NULL;
  (void)reserved;
  if (parse_options(options, &parsed) != 0) return JNI_ERR;
  if ((*vm)->GetEnv(vm, (void**)&jni, JNI_VERSION_1_6) != JNI_OK) jni = NULL;
  pthread_mutex_lock(&lock);
  if (reporting_since_start && current_agent() != NULL) {
    result = EBUSY;
  } else if (parsed.stop) {
    stop_reporting(jni);
  } else if (prepare(vm) != JVMTI_ERROR_NONE) {
    result = JNI_ERR;
  } else {
    result = start_reporting(parsed.dir, jni);
    if (result == JNI_OK) {
      replay(jvmti_env);
      if (jni != NULL) open_table(jvmti_env, jni, parsed.dir, 0);
    } else {
      release();
    }
  }
  pthread_mutex_unlock(&lock);
  return result;
}

/* Once for each successful load of the library, at VM exit. */
JNIEXPORT void JNICALL Agent_OnUnload(JavaVM* vm) {
  const unsigned long failed = __atomic_exchange_n(&failed_calls, 0, __ATOMIC_RELAXED);
  const unsigned long undescribed = __atomic_exchange_n(&failed_queries, 0, __ATOMIC_RELAXED);
  unsigned long table_failed;
  (void)vm;
  if (failed != 0) {
    fprintf(stderr, "jvmti_opagent: %lu op_* calls failed (see the jitscope log)\n", failed);
  }
  if (undescribed != 0) {
    fprintf(stderr,
            "jvmti_opagent: %lu compiled methods were not reported: JVMTI could not name them\n",
            undescribed);
  }
  stop_reporting(NULL);
  table_failed = method_table_failures();
  if (table_failed != 0) {
    fprintf(stderr, "jvmti_opagent: %lu writes or queries of the JVM table failed\n", table_failed);
  }
}
