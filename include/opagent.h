/* Copyright 2026 The jitscope Authors
 * SPDX-License-Identifier: Apache-2.0 */

/*
 * opagent.h: OProfile's JIT agent API, as implemented by jitscope's libopagent.so.1.
 *
 * A JIT engine (a JVMTI agent, a language VM) includes this header and links libopagent to tell
 * profilers about the code it generates (OProfile's JIT agent developer guide, docs/sources.md). It
 * is a drop-in replacement for OProfile's header of the same name: the types, the seven functions
 * and their signatures match OProfile's, and libopagent.so.1 exports them under OProfile's
 * version node OPAGENT_1.0, so an engine built against OProfile runs unchanged on jitscope's
 * library (OProfile's libopagent). It compiles as C99
 * and as C++.
 *
 * Rules (OProfile's guide, chapter 2):
 *  - Call op_open_agent() before anything else and keep the handle; op_close_agent() when done.
 *    Several handles may be open at once (two engines in one process).
 *  - Every function returns 0 on success, or -1 and sets errno; op_open_agent() returns NULL and
 *    sets errno. A NULL, unknown or already closed handle gives EINVAL, never a crash.
 *  - op_write_debug_line_info() describes code written before with the same `code` pointer; its
 *    entries carry absolute addresses and their own file names, and may leave holes.
 *  - op_unload_native_code() names code written before at the same `vma`.
 *  - The functions are thread-safe, but must not be called from signal handlers.
 */

/* OProfile's include guard, kept on purpose: a translation unit that sees both headers gets one
 * set of declarations. */
#ifndef _LIB_OPAGENT_H
#define _LIB_OPAGENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#if defined(__cplusplus)
extern "C" {
#endif

/* One entry of a line table: the source line of the code starting at `vma` (absolute). */
struct debug_line_info {
  unsigned long vma;
  unsigned int lineno;
  /* The filename format is unspecified: absolute path, relative, or a bare name. */
  const char* filename;
};

/* An opaque handle. jitscope's handles are tokens checked against a table, not pointers. */
typedef void* op_agent_t;

/* Creates the JIT dump <pid>.dump (see README: JITSCOPE_OPAGENT_DIR) and returns a handle, or
 * NULL with errno set. */
op_agent_t op_open_agent(void);

/* Writes the close record and releases the handle. 0, or -1 with errno (EINVAL: bad handle). */
int op_close_agent(op_agent_t hdl);

/* Reports `code_size` bytes of code that run at `vma`. `code` points at a copy of the bytes to
 * store (often equal to vma) or is NULL to store none. `symbol_name` should disambiguate the
 * symbol (class, method, signature) and must not be NULL. 0, or -1 with errno. */
int op_write_native_code(op_agent_t hdl, char const* symbol_name, uint64_t vma, void const* code,
                         const unsigned int code_size);

/* Attaches `nr_entry` line entries to the code written before with the same `code` pointer.
 * 0 (nothing is written for nr_entry == 0), or -1 with errno. */
int op_write_debug_line_info(op_agent_t hdl, void const* code, size_t nr_entry,
                             struct debug_line_info const* compile_map);

/* Reports that the code written before at `vma` is gone. 0, or -1 with errno. */
int op_unload_native_code(op_agent_t hdl, uint64_t vma);

/* The version of the agent library's interface: 1 and 0, as OProfile's. */
int op_major_version(void);
int op_minor_version(void);

#if defined(__cplusplus)
}
#endif

#endif /* _LIB_OPAGENT_H */
