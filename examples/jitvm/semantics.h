// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The meaning of jitvm's operators, in one place. The interpreter evaluates with these functions
// and the optimizing tier folds constants with them, so the three engines cannot disagree; the
// machine code of both tiers implements the same rules with x86-64 instructions:
//  - ints are 64-bit two's complement and wrap on overflow; x / -1 is -x (wrapping) and
//    x % -1 is 0 (idiv would fault on INT64_MIN / -1); x / 0 and x % 0 are runtime errors;
//    / truncates toward zero and % has the sign of the dividend, as idiv does.
//  - floats are IEEE doubles with round-to-nearest, as SSE2 computes them; comparisons with NaN
//    are false except !=.
//  - int(x) truncates toward zero; NaN and values outside the int range give
//    -9223372036854775808, the "integer indefinite" that cvttsd2si produces.
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <string>

#include "ast.h"
#include "jitscope/base/status.h"

namespace jitscope::jitvm {

inline uint64_t FloatBits(double value) { return std::bit_cast<uint64_t>(value); }
inline double BitsFloat(uint64_t bits) { return std::bit_cast<double>(bits); }

// The runtime errors a program can raise; the message names the source line.
enum class RuntimeError : uint32_t { kDivisionByZero = 1, kStackOverflow = 2 };
const char* RuntimeErrorText(RuntimeError error);

// `lhs op rhs` on values of `operand_type` (both operands have it), as raw bits. Returns
// nullopt for a division or remainder by zero. && and || are not handled here (they do not
// evaluate their right operand eagerly).
std::optional<uint64_t> EvaluateBinary(Op op, Type operand_type, uint64_t lhs, uint64_t rhs);

// -x or !x.
uint64_t EvaluateUnary(Op op, Type type, uint64_t operand);

// sqrt(x), int(x) and float(x) (print is not pure).
uint64_t EvaluateConversion(Builtin builtin, Type from, uint64_t operand);

// int(x) for a double, with cvttsd2si's result for NaN and out-of-range values.
int64_t FloatToInt(double value);

// How print() shows a value: ints in decimal; floats in the shortest form that reads back as
// the same double ("0.1", "1e+100", "inf", "nan"), with ".0" added when that form would read
// as an int ("2.0").
std::string FormatValue(Type type, uint64_t bits);

// The error a program stops with: "<file>:<line>: runtime error: <what>".
base::Status RuntimeErrorStatus(const Program& program, RuntimeError error, uint32_t line);

}  // namespace jitscope::jitvm
