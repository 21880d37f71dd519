/* Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
 *
 * A JIT client that reports every event kind of the API once, plus two invalid events, through
 * the stub, which loads the collector named by INTEL_JIT_PROFILER64 (INTEL_JIT_PROFILER32 in a
 * 32-bit process): exactly what a real engine does. Prints "base=<hex> pid=<n>" first, so the
 * test can check addresses relative to the code it reported.
 *
 * Plain C99 with nothing but jitprofiling.h, so the same source is built as the 64-bit client
 * (tests/collector/CMakeLists.txt) and, by collector_e2e_test.cc, with `cc -m32` against
 * build/lib32/libjitprofiling.a: both must produce the same trace. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "jitprofiling.h"

int main(void) {
  char* base = (char*)mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) {
    perror("mmap");
    return 1;
  }
  memset(base, 0xC3, 4096);
  printf("base=%#llx pid=%d\n", (unsigned long long)(uintptr_t)base, (int)getpid());
  fflush(stdout);

  LineNumberInfo lines[] = {{1, 2}, {12, 4}, {15, 2}, {18, 1}, {21, 30}};
  iJIT_Method_Load load;
  memset(&load, 0, sizeof load);
  load.method_id = 1000;
  load.method_name = (char*)"Load";
  load.method_load_address = base;
  load.method_size = 21;
  load.line_number_size = 5;
  load.line_number_table = lines;
  load.class_id = 3;
  load.class_file_name = (char*)"Klass";
  load.source_file_name = (char*)"load.js";
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &load);

  iJIT_Method_Load_V2 v2;
  memset(&v2, 0, sizeof v2);
  v2.method_id = 1001;
  v2.method_name = (char*)"V2";
  v2.method_load_address = base + 0x100;
  v2.method_size = 0x40;
  v2.source_file_name = (char*)"v2.js";
  v2.module_name = (char*)"tier1";
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V2, &v2);

  iJIT_Method_Load_V3 v3;
  memset(&v3, 0, sizeof v3);
  v3.method_id = 1002;
  v3.method_name = (char*)"V3";
  v3.method_load_address = base + 0x200;
  v3.method_size = 0x40;
  v3.module_name = (char*)"tier2";
  v3.module_arch = iJIT_CA_64;
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V3, &v3);

  LineNumberInfo inline_lines[] = {{4, 7}, {8, 8}};
  iJIT_Method_Inline_Load in;
  memset(&in, 0, sizeof in);
  in.method_id = 2000;
  in.parent_method_id = 1001;
  in.method_name = (char*)"Inlined";
  in.method_load_address = base + 0x110;
  in.method_size = 8;
  in.line_number_size = 2;
  in.line_number_table = inline_lines;
  in.class_file_name = (char*)"K2";
  in.source_file_name = (char*)"inl.js";
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED, &in);

  iJIT_Method_Load update;
  memset(&update, 0, sizeof update);
  update.method_id = 1000;
  update.method_load_address = base + 4;
  update.method_size = 8;
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_UPDATE, &update);

  iJIT_Method_Update update_v2;
  memset(&update_v2, 0, sizeof update_v2);
  update_v2.load_address = base + 0x208;
  update_v2.size = 4;
  update_v2.type = iJIT_CT_DATA;
  update_v2.data_format = "%x";
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_UPDATE_V2, &update_v2);

  unsigned int unload = 1002;
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_UNLOAD_START, &unload);

  load.method_size = 0; /* refused: "not accepted" */
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &load);
  /* An event type the API does not define. C allows any int in an enum parameter. */
  iJIT_NotifyEvent((iJIT_JVM_EVENT)99, &load);

  iJIT_NotifyEvent(iJVM_EVENT_TYPE_SHUTDOWN, NULL);
  return 0;
}
