/* Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
 *
 * libjvmti_opagent.so: a JVMTI agent that reports the code HotSpot generates to OProfile's agent
 * API (opagent.h), the job OProfile's libjvmti_oprofile does (fact sheet
 * ../shared/reference/perf-jitdump-oprofile.md §4.6). Linked against jitscope's libopagent.so.1,
 * every method the JIT compiles lands in the OProfile dump and in jitscope's outputs
 * (JITSCOPE_FORMATS: trace, jitdump, perf map).
 *
 *   java -agentpath:<lib>/libjvmti_opagent.so MyApp
 *
 * What it forwards:
 *  - CompiledMethodLoad → op_write_native_code("pkg.Class.method(signature)", code, code, size),
 *    then op_write_debug_line_info with one entry per pc→bci pair of the compiled method, the bci
 *    turned into a source line through the method's line-number table, the file named by its
 *    package path ("pkg/Class.java") so files of different packages are told apart;
 *  - CompiledMethodUnload → op_unload_native_code(code);
 *  - DynamicCodeGenerated (interpreter, stubs, adapters) → op_write_native_code(name, ...);
 *  - at VM start, GenerateEvents replays code generated before the callbacks were enabled;
 *  - Agent_OnUnload → op_close_agent.
 *
 * HotSpot's pc→bci map is that of the outermost method (inlined callees' pcs map to the bci of
 * their call site), so lines inside inlined code are attributed to the call's line.
 *
 * Failures of op_* calls are counted and printed once at unload; they never stop the VM. */
#include <jvmti.h>
#include <opagent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static op_agent_t agent;
static volatile unsigned long failed_calls; /* approximate under races; only reported */

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

static void report_lines(jvmtiEnv* jvmti, jmethodID method, const char* class_signature,
                         jclass klass, const void* code, jint map_length,
                         const jvmtiAddrLocationMap* map) {
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
      if (line <= 0) continue; /* a hole: the array may have them (seed 004 §4) */
      lines[count].vma = (unsigned long)(uintptr_t)map[i].start_address;
      lines[count].lineno = (unsigned int)line;
      lines[count].filename = path;
      ++count;
    }
    if (count > 0) note_failure(op_write_debug_line_info(agent, code, count, lines));
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
  (void)compile_info;
  if ((*jvmti)->GetMethodDeclaringClass(jvmti, method, &klass) != JVMTI_ERROR_NONE ||
      (*jvmti)->GetClassSignature(jvmti, klass, &class_signature, NULL) != JVMTI_ERROR_NONE ||
      (*jvmti)->GetMethodName(jvmti, method, &name, &signature, NULL) != JVMTI_ERROR_NONE) {
    note_failure(-1);
  } else {
    class_name(class_signature, class_buffer, sizeof(class_buffer));
    snprintf(symbol, sizeof(symbol), "%s.%s%s", class_buffer, name, signature);
    note_failure(op_write_native_code(agent, symbol, (uint64_t)(uintptr_t)code_addr, code_addr,
                                      (unsigned int)code_size));
    report_lines(jvmti, method, class_signature, klass, code_addr, map_length, map);
  }
  deallocate(jvmti, class_signature);
  deallocate(jvmti, name);
  deallocate(jvmti, signature);
}

static void JNICALL compiled_method_unload(jvmtiEnv* jvmti, jmethodID method,
                                           const void* code_addr) {
  (void)jvmti;
  (void)method;
  note_failure(op_unload_native_code(agent, (uint64_t)(uintptr_t)code_addr));
}

static void JNICALL dynamic_code_generated(jvmtiEnv* jvmti, const char* name, const void* address,
                                           jint length) {
  (void)jvmti;
  note_failure(op_write_native_code(agent, name, (uint64_t)(uintptr_t)address, address,
                                    (unsigned int)length));
}

/* Code generated before the callbacks were enabled (e.g. stubs made during VM start) is
 * replayed once the VM is up. */
static void JNICALL vm_init(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread) {
  (void)jni;
  (void)thread;
  (*jvmti)->GenerateEvents(jvmti, JVMTI_EVENT_DYNAMIC_CODE_GENERATED);
  (*jvmti)->GenerateEvents(jvmti, JVMTI_EVENT_COMPILED_METHOD_LOAD);
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char* options, void* reserved) {
  jvmtiEnv* jvmti = NULL;
  jvmtiCapabilities capabilities;
  jvmtiEventCallbacks callbacks;
  static const jvmtiEvent events[] = {JVMTI_EVENT_VM_INIT, JVMTI_EVENT_COMPILED_METHOD_LOAD,
                                      JVMTI_EVENT_COMPILED_METHOD_UNLOAD,
                                      JVMTI_EVENT_DYNAMIC_CODE_GENERATED};
  size_t i;
  (void)reserved;
  if (options != NULL && strcmp(options, "version") == 0) {
    fprintf(stderr, "jvmti_opagent: libopagent %d.%d\n", op_major_version(), op_minor_version());
  }
  if ((*vm)->GetEnv(vm, (void**)&jvmti, JVMTI_VERSION_1_0) != JNI_OK) {
    fprintf(stderr, "jvmti_opagent: no JVMTI 1.0 environment\n");
    return JNI_ERR;
  }
  agent = op_open_agent();
  if (agent == NULL) {
    perror("jvmti_opagent: op_open_agent");
    return JNI_ERR;
  }
  memset(&capabilities, 0, sizeof(capabilities));
  capabilities.can_generate_compiled_method_load_events = 1;
  capabilities.can_get_line_numbers = 1;
  capabilities.can_get_source_file_name = 1;
  if ((*jvmti)->AddCapabilities(jvmti, &capabilities) != JVMTI_ERROR_NONE) {
    fprintf(stderr, "jvmti_opagent: the VM cannot report compiled methods\n");
    return JNI_ERR;
  }
  memset(&callbacks, 0, sizeof(callbacks));
  callbacks.VMInit = vm_init;
  callbacks.CompiledMethodLoad = compiled_method_load;
  callbacks.CompiledMethodUnload = compiled_method_unload;
  callbacks.DynamicCodeGenerated = dynamic_code_generated;
  if ((*jvmti)->SetEventCallbacks(jvmti, &callbacks, (jint)sizeof(callbacks)) != JVMTI_ERROR_NONE) {
    return JNI_ERR;
  }
  for (i = 0; i < sizeof(events) / sizeof(events[0]); ++i) {
    if ((*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, events[i], NULL) !=
        JVMTI_ERROR_NONE) {
      return JNI_ERR;
    }
  }
  return JNI_OK;
}

JNIEXPORT void JNICALL Agent_OnUnload(JavaVM* vm) {
  (void)vm;
  if (failed_calls != 0) {
    fprintf(stderr, "jvmti_opagent: %lu op_* calls failed (see the jitscope log)\n",
            (unsigned long)failed_calls);
  }
  if (op_close_agent(agent) != 0) perror("jvmti_opagent: op_close_agent");
}
