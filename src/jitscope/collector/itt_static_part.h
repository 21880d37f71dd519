// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Wiring a program's ittnotify static part to the collector's functions (itt_abi.h says how the
// static part calls __itt_api_init and what it passes).
//
// The static part's copy decides the layout of its API list: build 20101001 and before have no
// null_func in each entry, later builds have one. The build is read from the global, and the list
// is checked before anything is written: every entry up to the NULL name must have an "__itt_"
// name and a function pointer, within kMaxApiEntries. A global that fails a check (a newer layout
// this collector does not know, or not a static part at all) is left untouched and the reason
// returned, so the program runs on without a collector rather than with a corrupted static part.
//
// Every function the collector implements is wired, whatever groups the static part passes: the
// groups say which functions the program will call (TBB asks for thread, sync, counter, stitch
// and structure only), and a function outside them is simply never called.
#pragma once

#include <cstddef>
#include <span>

#include "jitscope/base/status.h"
#include "jitscope/collector/itt_abi.h"

namespace jitscope::collector::itt {

struct Implementation {
  const char* name;  // as in the API list: "__itt_task_begin"
  void* function;
};

struct Wiring {
  size_t entries = 0;  // in the static part's list
  size_t wired = 0;    // entries now calling the collector
  bool without_null_func = false;
};

// More than any ittnotify has (ittapi's newest lists about 210 functions).
inline constexpr size_t kMaxApiEntries = 4096;

base::StatusOr<Wiring> WireStaticPart(Global* global,
                                      std::span<const Implementation> implementations);

}  // namespace jitscope::collector::itt
