// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Constant folding for the optimizing tier: the value of an expression that can be known at
// compile time, computed with the same rules as the interpreter (semantics.h), so folding never
// changes what a program prints.
#pragma once

#include <cstdint>
#include <optional>

#include "ast.h"

namespace jitscope::jitvm {

// The raw bits of `e`'s value if it is constant: literals, and operators and conversions of
// constants. Not constant: locals, calls, print, and a division by a constant zero (which must
// raise its error when it runs). `0 && e` and `1 || e` are constant whatever `e` is, because
// `e` never runs.
std::optional<uint64_t> FoldConstant(const Expr& e);

}  // namespace jitscope::jitvm
