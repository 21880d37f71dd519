// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// One root per path: the functions every thread's stack starts with, and the rule that keeps the
// innermost of them as a stack's root. A walk may stop at `__libc_start_call_main` (the frame
// records past a stack copy end there, and so does the frame-pointer chain: it keeps no frame
// pointer) where another of the same path goes on through `__libc_start_main` to `_start`; a
// thread's walk may or may not get from `start_thread` to `clone3`. Left as they are, the same
// path would be two trees in a flame graph.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "jitscope/report/profile.h"

namespace jitscope::report {

// The functions a thread's stack starts with, outermost first: the main thread's (`_start`,
// glibc's `__libc_start_main`, whose code is `__libc_start_main_impl` since glibc 2.34, and
// `__libc_start_call_main`, which calls main) and every other's (`clone3` or `clone`, then
// `start_thread`), under the names glibc's symbols give them (its `__GI_` aliases too, and a
// name with its symbol version, `__libc_start_main@GLIBC_2.2.5`). Only native frames that are not
// inlined count.
bool IsThreadEntry(const Location& location);

// Whether a location is native code of a file that has no symbol there ("FILE+0xOFFSET"): a
// stripped program's `_start`, say.
bool IsUnnamedNative(const Location& location);

// Leaves out of `frames` (leaf first) the frames outside the innermost thread-entry frame of the
// run the stack ends with, a run of thread-entry frames and of native frames without a name (a
// stripped program's `_start`): of `_start; __libc_start_main_impl; __libc_start_call_main; main`
// only `__libc_start_call_main; main` stay. `kind` says what a frame is.
enum class RootKind { kOther, kThreadEntry, kUnnamed };
void TrimOutsideThreadEntry(std::vector<uint32_t>& frames,
                            const std::function<RootKind(uint32_t)>& kind);

}  // namespace jitscope::report
