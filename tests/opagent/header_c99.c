/* Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
 *
 * opagent.h as strict C99 (and, through the CTest entry, as C++): OProfile's types and signatures,
 * checked by assigning each function to a pointer of the exact OProfile type. */
#include <opagent.h>

typedef op_agent_t (*open_fn)(void);
typedef int (*close_fn)(op_agent_t);
typedef int (*write_code_fn)(op_agent_t, char const*, uint64_t, void const*, const unsigned int);
typedef int (*write_lines_fn)(op_agent_t, void const*, size_t, struct debug_line_info const*);
typedef int (*unload_fn)(op_agent_t, uint64_t);
typedef int (*version_fn)(void);

int opagent_header_check(void);
int opagent_header_check(void) {
  open_fn open = op_open_agent;
  close_fn close = op_close_agent;
  write_code_fn write_code = op_write_native_code;
  write_lines_fn write_lines = op_write_debug_line_info;
  unload_fn unload = op_unload_native_code;
  version_fn major = op_major_version, minor = op_minor_version;
  struct debug_line_info line = {0x1000ul, 1u, "A.java"};
  /* The LP64 layout libopagent's users rely on: vma, lineno, then the name pointer. */
  typedef char vma_is_a_long[sizeof(line.vma) == sizeof(long) ? 1 : -1];
  typedef char op_agent_t_is_a_pointer[sizeof(op_agent_t) == sizeof(void*) ? 1 : -1];
  (void)sizeof(vma_is_a_long);
  (void)sizeof(op_agent_t_is_a_pointer);
  return open != 0 && close != 0 && write_code != 0 && write_lines != 0 && unload != 0 &&
         major != 0 && minor != 0 && line.lineno == 1u;
}
