/* Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
 *
 * A JIT engine in miniature for lib32_test.cc: built with `cc -m32` against build/lib32's
 * libopagent.so.1, it reports through OProfile's agent API (OProfile's guide) what a 32-bit JVM
 * agent would: a method with a line table naming two files, code reported without its bytes, code
 * that is unloaded, then closes the agent. Plain C99 and opagent.h only, as an engine is written.
 *
 * The "code" is a static buffer, so its address is the process's own; the program prints it and
 * its pid for the test, then every call's result. */
#define _POSIX_C_SOURCE 200809L /* getpid() under -std=c99 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <opagent.h>

static unsigned char code[256];

static int Check(const char* what, int result) {
  if (result != 0) fprintf(stderr, "%s failed: %s\n", what, strerror(errno));
  return result != 0;
}

int main(void) {
  struct debug_line_info lines[3];
  unsigned long base = (unsigned long)code;
  op_agent_t agent;
  int failures = 0;

  if (sizeof(void*) != 4 || sizeof(unsigned long) != 4) {
    fprintf(stderr, "not an ILP32 build\n");
    return 2;
  }
  memset(code, 0x90, sizeof(code));
  agent = op_open_agent();
  if (agent == NULL) {
    fprintf(stderr, "op_open_agent failed: %s\n", strerror(errno));
    return 1;
  }
  printf("base=%lx pid=%ld\n", base, (long)getpid());

  /* Hot.loop()V: 32 bytes with their code; three line entries, absolute addresses. */
  failures += Check("load Hot", op_write_native_code(agent, "Hot.loop()V", base, code, 32));
  lines[0].vma = base;
  lines[0].lineno = 10;
  lines[0].filename = "Hot.java";
  lines[1].vma = base + 8;
  lines[1].lineno = 12;
  lines[1].filename = "Hot.java";
  lines[2].vma = base + 16;
  lines[2].lineno = 20;
  lines[2].filename = "util/Util.java";
  failures += Check("lines Hot", op_write_debug_line_info(agent, code, 3, lines));
  /* A stub reported without its bytes (code NULL). */
  failures +=
      Check("load stub", op_write_native_code(agent, "interpreter_stub", base + 64, NULL, 16));
  /* Code that is unloaded again. */
  failures +=
      Check("load Old", op_write_native_code(agent, "Old.gone()V", base + 128, code + 128, 16));
  failures += Check("unload Old", op_unload_native_code(agent, base + 128));
  failures += Check("close", op_close_agent(agent));
  return failures == 0 ? 0 : 1;
}
