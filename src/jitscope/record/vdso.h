// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Keeps the vDSO with a session. The kernel maps the same vDSO image into every 64-bit process,
// so jitscope's own copy is the recorded processes' one: its code is sampled (clock_gettime,
// gettimeofday) and its CFI is what unwinding through it needs after the processes are gone.
// (An i386 process has the 32-bit vDSO, which this copy is not.)
#pragma once

#include <string>

#include "jitscope/base/status.h"

namespace jitscope::record {

// Writes this process's [vdso] mapping to `directory`/vdso.so (session::kVdsoFileName).
base::Status SaveVdso(const std::string& directory);

}  // namespace jitscope::record
