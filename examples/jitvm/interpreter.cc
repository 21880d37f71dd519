// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "interpreter.h"

#include <vector>

#include "semantics.h"
#include "stack_limit.h"

namespace jitscope::jitvm {
namespace {

class Interpreter {
 public:
  Interpreter(const Program& program, Output& output)
      : program_(program), output_(output), stack_limit_(CurrentThreadStackLimit()) {}

  base::StatusOr<uint64_t> Run(std::span<const int64_t> args) {
    const Function& main = program_.functions[program_.main_index];
    if (args.size() != main.param_count) {
      return base::Status::Error("main takes %u arguments, not %zu", main.param_count, args.size());
    }
    std::vector<uint64_t> values(args.begin(), args.end());
    uint64_t result = 0;
    if (!Call(program_.main_index, values.data(), result)) return error_;
    return result;
  }

 private:
  enum class Flow { kNext, kReturn, kError };

  bool Fail(RuntimeError error, uint32_t line) {
    error_ = RuntimeErrorStatus(program_, error, line);
    return false;
  }

  bool Call(int32_t index, const uint64_t* args, uint64_t& result) {
    const Function& f = program_.functions[index];
    // The same check as the JIT prologue's, reported at the same line (the callee's `fn`).
    char probe;
    if (reinterpret_cast<uintptr_t>(&probe) < stack_limit_) {
      return Fail(RuntimeError::kStackOverflow, f.line);
    }
    std::vector<uint64_t> locals(f.locals.size());
    for (uint32_t i = 0; i < f.param_count; ++i) locals[i] = args[i];
    result = 0;  // falling off the end returns 0 (or 0.0, which has the same bits)
    return Exec(f.body, locals, result) != Flow::kError;
  }

  Flow Exec(const std::vector<std::unique_ptr<Stmt>>& body, std::vector<uint64_t>& locals,
            uint64_t& result) {
    for (const auto& stmt : body) {
      Flow flow = Exec(*stmt, locals, result);
      if (flow != Flow::kNext) return flow;
    }
    return Flow::kNext;
  }

  Flow Exec(const Stmt& stmt, std::vector<uint64_t>& locals, uint64_t& result) {
    uint64_t value = 0;
    switch (stmt.kind) {
      case StmtKind::kVar:
      case StmtKind::kAssign:
        if (!Eval(*stmt.expr, locals, value)) return Flow::kError;
        locals[stmt.local] = value;
        return Flow::kNext;
      case StmtKind::kIf:
        if (!Eval(*stmt.expr, locals, value)) return Flow::kError;
        return Exec(value != 0 ? stmt.body : stmt.else_body, locals, result);
      case StmtKind::kWhile:
        for (;;) {
          if (!Eval(*stmt.expr, locals, value)) return Flow::kError;
          if (value == 0) return Flow::kNext;
          Flow flow = Exec(stmt.body, locals, result);
          if (flow != Flow::kNext) return flow;
        }
      case StmtKind::kReturn:
        if (!Eval(*stmt.expr, locals, result)) return Flow::kError;
        return Flow::kReturn;
      case StmtKind::kExpr:
        return Eval(*stmt.expr, locals, value) ? Flow::kNext : Flow::kError;
    }
    return Flow::kNext;
  }

  bool Eval(const Expr& e, std::vector<uint64_t>& locals, uint64_t& out) {
    switch (e.kind) {
      case ExprKind::kIntLiteral:
        out = static_cast<uint64_t>(e.int_value);
        return true;
      case ExprKind::kFloatLiteral:
        out = FloatBits(e.float_value);
        return true;
      case ExprKind::kLocal:
        out = locals[e.index];
        return true;
      case ExprKind::kCall: {
        // Arguments are evaluated left to right, like every engine does.
        uint64_t args[kMaxParams] = {};
        for (size_t i = 0; i < e.operands.size(); ++i) {
          if (!Eval(*e.operands[i], locals, args[i])) return false;
        }
        return Call(e.index, args, out);
      }
      case ExprKind::kBuiltin: {
        uint64_t operand = 0;
        if (!Eval(*e.operands[0], locals, operand)) return false;
        if (e.builtin == Builtin::kPrint) {
          output_.Append(FormatValue(e.operands[0]->type, operand));
          output_.Append("\n");
          out = 0;
        } else {
          out = EvaluateConversion(e.builtin, e.operands[0]->type, operand);
        }
        return true;
      }
      case ExprKind::kUnary: {
        uint64_t operand = 0;
        if (!Eval(*e.operands[0], locals, operand)) return false;
        out = EvaluateUnary(e.op, e.type, operand);
        return true;
      }
      case ExprKind::kBinary: {
        uint64_t lhs = 0;
        uint64_t rhs = 0;
        if (!Eval(*e.operands[0], locals, lhs)) return false;
        if (e.op == Op::kAnd || e.op == Op::kOr) {
          // Short circuit: the right operand runs only when it decides the result.
          if ((e.op == Op::kAnd) == (lhs == 0)) {
            out = e.op == Op::kOr;
            return true;
          }
          if (!Eval(*e.operands[1], locals, rhs)) return false;
          out = rhs != 0;
          return true;
        }
        if (!Eval(*e.operands[1], locals, rhs)) return false;
        auto value = EvaluateBinary(e.op, e.operands[0]->type, lhs, rhs);
        if (!value) return Fail(RuntimeError::kDivisionByZero, e.line);
        out = *value;
        return true;
      }
    }
    return true;
  }

  const Program& program_;
  Output& output_;
  const uintptr_t stack_limit_;
  base::Status error_;
};

}  // namespace

base::StatusOr<uint64_t> Interpret(const Program& program, std::span<const int64_t> args,
                                   Output& output) {
  return Interpreter(program, output).Run(args);
}

}  // namespace jitscope::jitvm
