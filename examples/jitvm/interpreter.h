// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// A plain tree-walking interpreter of checked jitvm programs. It is the reference the JIT tiers
// are tested against (same output, same result, same runtime errors), so it favours obviousness
// over speed and shares the operator semantics with the optimizer (semantics.h).
#pragma once

#include <cstdint>
#include <span>

#include "ast.h"
#include "jitscope/base/status.h"
#include "output.h"

namespace jitscope::jitvm {

// Runs main(args...) of `program` and returns its result as raw bits. `args` must match main's
// parameter count (all ints).
base::StatusOr<uint64_t> Interpret(const Program& program, std::span<const int64_t> args,
                                   Output& output);

}  // namespace jitscope::jitvm
