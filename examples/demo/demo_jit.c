/* Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
 *
 * A minimal JIT client: it copies a few machine-code bytes into executable memory and reports
 * them the ways Intel's guide (../shared/seeds/000_*.txt) describes — a method with the guide's
 * line table, a split function (two regions, one id), a nested inline tree (a/b/c/d), a method
 * with a module name — then runs the code and sends SHUTDOWN. It stands in for the example JIT
 * VM until that lands. */
#include <jitprofiling.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

static unsigned char* code_page;

/* x86-64: mov eax, 42; ret — padded with int3 to the size reported. */
static void* emit(size_t offset, size_t size) {
  static const unsigned char body[] = {0xb8, 0x2a, 0x00, 0x00, 0x00, 0xc3};
  memset(code_page + offset, 0xcc, size);
  memcpy(code_page + offset, body, sizeof(body) < size ? sizeof(body) : size);
  return code_page + offset;
}

int main(void) {
  code_page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
  if (code_page == MAP_FAILED) {
    perror("mmap");
    return 1;
  }
  printf("profiling active: %s\n", iJIT_IsProfilingActive() == iJIT_SAMPLING_ON ? "yes" : "no");

  /* A method with the guide's line table: offsets end ranges (0-1:2, 1-12:4, ...). */
  LineNumberInfo lines[] = {{1, 2}, {12, 4}, {15, 2}, {18, 1}, {21, 30}};
  iJIT_Method_Load answer = {0};
  answer.method_id = iJIT_GetNewMethodID();
  answer.method_name = (char*)"answer";
  answer.method_load_address = emit(0, 32);
  answer.method_size = 21;
  answer.line_number_size = 5;
  answer.line_number_table = lines;
  answer.source_file_name = (char*)"demo.js";
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &answer);

  /* A split function: two disjoint regions under one method id. */
  unsigned int split_id = iJIT_GetNewMethodID();
  iJIT_Method_Load hot = {0}, cold = {0};
  hot.method_id = cold.method_id = split_id;
  hot.method_name = cold.method_name = (char*)"split";
  hot.method_load_address = emit(256, 0x20);
  hot.method_size = 0x20;
  cold.method_load_address = emit(512, 0x30);
  cold.method_size = 0x30;
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &hot);
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &cold);

  /* The guide's nested inline tree: a contains b and d, b contains c. */
  iJIT_Method_Load_V2 a = {0};
  a.method_id = iJIT_GetNewMethodID();
  a.method_name = (char*)"a";
  a.method_load_address = emit(1024, 64);
  a.method_size = 64;
  a.module_name = (char*)"demo-tier1";
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V2, &a);
  iJIT_Method_Inline_Load b = {0}, c = {0}, d = {0};
  b.method_id = iJIT_GetNewMethodID();
  b.parent_method_id = a.method_id;
  b.method_name = (char*)"b";
  b.method_load_address = code_page + 1024 + 8;
  b.method_size = 24;
  c.method_id = iJIT_GetNewMethodID();
  c.parent_method_id = b.method_id;
  c.method_name = (char*)"c";
  c.method_load_address = code_page + 1024 + 12;
  c.method_size = 8;
  d.method_id = iJIT_GetNewMethodID();
  d.parent_method_id = a.method_id;
  d.method_name = (char*)"d";
  d.method_load_address = code_page + 1024 + 40;
  d.method_size = 16;
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED, &c); /* order does not matter */
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED, &b);
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED, &d);

  int (*fn)(void) = (int (*)(void))answer.method_load_address;
  printf("answer() = %d\n", fn());

  /* The code of `answer` goes away. */
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_UNLOAD_START, &answer.method_id);
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_SHUTDOWN, NULL);
  return 0;
}
