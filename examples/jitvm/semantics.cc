// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "semantics.h"

#include <charconv>
#include <cmath>
#include <limits>

namespace jitscope::jitvm {
namespace {

constexpr int64_t kIntMin = std::numeric_limits<int64_t>::min();

// Wrapping arithmetic: unsigned arithmetic is modular, and the conversion back is defined in
// C++20.
int64_t Wrap(uint64_t value) { return static_cast<int64_t>(value); }

// 1 or 0. For doubles every comparison with NaN is false except !=, as IEEE says.
template <typename T>
uint64_t Compare(Op op, T a, T b) {
  switch (op) {
    case Op::kEq:
      return a == b;
    case Op::kNe:
      return a != b;
    case Op::kLt:
      return a < b;
    case Op::kLe:
      return a <= b;
    case Op::kGt:
      return a > b;
    default:
      return a >= b;
  }
}

std::optional<uint64_t> IntBinary(Op op, int64_t a, int64_t b) {
  const uint64_t ua = static_cast<uint64_t>(a);
  const uint64_t ub = static_cast<uint64_t>(b);
  switch (op) {
    case Op::kAdd:
      return ua + ub;
    case Op::kSub:
      return ua - ub;
    case Op::kMul:
      return ua * ub;
    case Op::kDiv:
      if (b == 0) return std::nullopt;
      if (b == -1) return 0 - ua;
      return static_cast<uint64_t>(a / b);
    case Op::kMod:
      if (b == 0) return std::nullopt;
      if (b == -1) return 0;
      return static_cast<uint64_t>(a % b);
    case Op::kAnd:
      return a != 0 && b != 0;
    case Op::kOr:
      return a != 0 || b != 0;
    default:
      break;  // comparisons: Compare(); unary: EvaluateUnary()
  }
  return 0;
}

std::optional<uint64_t> FloatBinary(Op op, double a, double b) {
  switch (op) {
    case Op::kAdd:
      return FloatBits(a + b);
    case Op::kSub:
      return FloatBits(a - b);
    case Op::kMul:
      return FloatBits(a * b);
    case Op::kDiv:
      return FloatBits(a / b);  // IEEE: x/0 is inf or nan, not an error
    default:
      break;  // % && || ! are int-only (checker.h)
  }
  return 0;
}

}  // namespace

const char* RuntimeErrorText(RuntimeError error) {
  switch (error) {
    case RuntimeError::kDivisionByZero:
      return "division by zero";
    case RuntimeError::kStackOverflow:
      return "stack overflow (recursion too deep)";
  }
  return "unknown runtime error";
}

std::optional<uint64_t> EvaluateBinary(Op op, Type operand_type, uint64_t lhs, uint64_t rhs) {
  if (IsComparison(op)) {
    return operand_type == Type::kInt ? Compare(op, Wrap(lhs), Wrap(rhs))
                                      : Compare(op, BitsFloat(lhs), BitsFloat(rhs));
  }
  if (operand_type == Type::kInt) return IntBinary(op, Wrap(lhs), Wrap(rhs));
  return FloatBinary(op, BitsFloat(lhs), BitsFloat(rhs));
}

uint64_t EvaluateUnary(Op op, Type type, uint64_t operand) {
  if (op == Op::kNot) return operand == 0;
  if (type == Type::kInt) return 0 - operand;
  return operand ^ (uint64_t{1} << 63);  // flips the sign, as xorpd with the sign mask does
}

int64_t FloatToInt(double value) {
  // Representable results are the doubles in [-2^63, 2^63); NaN fails both comparisons.
  if (!(value >= -9223372036854775808.0 && value < 9223372036854775808.0)) return kIntMin;
  return static_cast<int64_t>(value);
}

uint64_t EvaluateConversion(Builtin builtin, Type from, uint64_t operand) {
  switch (builtin) {
    case Builtin::kSqrt:
      return FloatBits(std::sqrt(BitsFloat(operand)));
    case Builtin::kToInt:
      return from == Type::kInt ? operand : static_cast<uint64_t>(FloatToInt(BitsFloat(operand)));
    case Builtin::kToFloat:
      return from == Type::kFloat ? operand : FloatBits(static_cast<double>(Wrap(operand)));
    case Builtin::kPrint:
      break;
  }
  return operand;
}

std::string FormatValue(Type type, uint64_t bits) {
  char buffer[64];
  if (type == Type::kInt) {
    auto result = std::to_chars(buffer, buffer + sizeof buffer, Wrap(bits));
    return std::string(buffer, result.ptr);
  }
  const double value = BitsFloat(bits);
  if (std::isnan(value)) return "nan";
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  std::string text(buffer, result.ptr);
  if (text.find_first_of(".ein") == std::string::npos) text += ".0";
  return text;
}

base::Status RuntimeErrorStatus(const Program& program, RuntimeError error, uint32_t line) {
  return base::Status::Error("%s:%u: runtime error: %s", program.display_path.c_str(), line,
                             RuntimeErrorText(error));
}

}  // namespace jitscope::jitvm
