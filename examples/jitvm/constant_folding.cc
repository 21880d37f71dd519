// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "constant_folding.h"

#include "semantics.h"

namespace jitscope::jitvm {

std::optional<uint64_t> FoldConstant(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kIntLiteral:
      return static_cast<uint64_t>(e.int_value);
    case ExprKind::kFloatLiteral:
      return FloatBits(e.float_value);
    case ExprKind::kUnary: {
      auto operand = FoldConstant(*e.operands[0]);
      if (!operand) return std::nullopt;
      return EvaluateUnary(e.op, e.type, *operand);
    }
    case ExprKind::kBinary: {
      auto lhs = FoldConstant(*e.operands[0]);
      if (!lhs) return std::nullopt;
      if (e.op == Op::kAnd || e.op == Op::kOr) {
        // A deciding left operand makes the result constant: the right one never runs.
        if ((e.op == Op::kAnd) == (*lhs == 0)) return e.op == Op::kOr ? 1 : 0;
        auto rhs = FoldConstant(*e.operands[1]);
        if (!rhs) return std::nullopt;
        return *rhs != 0 ? 1 : 0;
      }
      auto rhs = FoldConstant(*e.operands[1]);
      if (!rhs) return std::nullopt;
      return EvaluateBinary(e.op, e.operands[0]->type, *lhs, *rhs);  // nullopt for x / 0
    }
    case ExprKind::kBuiltin: {
      if (e.builtin == Builtin::kPrint) return std::nullopt;
      auto operand = FoldConstant(*e.operands[0]);
      if (!operand) return std::nullopt;
      return EvaluateConversion(e.builtin, e.operands[0]->type, *operand);
    }
    case ExprKind::kLocal:
    case ExprKind::kCall:
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace jitscope::jitvm
