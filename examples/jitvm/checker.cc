// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "checker.h"

#include <limits.h>
#include <stdlib.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "jitscope/base/files.h"
#include "parser.h"

namespace jitscope::jitvm {
namespace {

struct BuiltinInfo {
  const char* name;
  Builtin builtin;
};
constexpr BuiltinInfo kNamedBuiltins[] = {{"print", Builtin::kPrint}, {"sqrt", Builtin::kSqrt}};

class Checker {
 public:
  explicit Checker(Program& program) : program_(program) {}

  base::Status Run() {
    for (size_t i = 0; i < program_.functions.size(); ++i) {
      const Function& f = program_.functions[i];
      for (const BuiltinInfo& b : kNamedBuiltins) {
        if (f.name == b.name) return Error(f.line, 1, "'%s' is a builtin function", b.name);
      }
      if (f.param_count > kMaxParams) {
        return Error(f.line, 1, "'%s' has %u parameters; at most %u are supported", f.name.c_str(),
                     f.param_count, kMaxParams);
      }
      auto [it, inserted] = functions_.emplace(f.name, static_cast<int32_t>(i));
      if (!inserted) return Error(f.line, 1, "function '%s' is defined twice", f.name.c_str());
    }
    auto main = functions_.find("main");
    if (main == functions_.end()) {
      return base::Status::Error("%s: error: the program has no function 'main'",
                                 program_.path.c_str());
    }
    program_.main_index = main->second;
    const Function& main_function = program_.functions[main->second];
    for (uint32_t p = 0; p < main_function.param_count; ++p) {
      if (main_function.locals[p].type != Type::kInt) {
        return Error(main_function.line, 1, "the parameters of 'main' must be int");
      }
    }
    if (main_function.return_type != Type::kInt) {
      return Error(main_function.line, 1, "'main' must return int");
    }
    for (Function& f : program_.functions) {
      function_ = &f;
      scopes_.assign(1, {});
      for (uint32_t p = 0; p < f.param_count; ++p) {
        auto [it, inserted] = scopes_.back().emplace(f.locals[p].name, static_cast<int32_t>(p));
        if (!inserted) {
          return Error(f.line, 1, "parameter '%s' appears twice", f.locals[p].name.c_str());
        }
      }
      f.node_count = 0;
      RETURN_IF_ERROR(CheckBlock(f.body, /*new_scope=*/false));
    }
    return base::Status::Ok();
  }

 private:
  [[gnu::format(printf, 4, 5)]] base::Status Error(uint32_t line, uint32_t column,
                                                   const char* format, ...) {
    va_list args;
    va_start(args, format);
    char message[512];
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    return base::Status::Error("%s:%u:%u: error: %s", program_.path.c_str(), line, column, message);
  }

  int32_t Lookup(const std::string& name) const {
    for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope) {
      auto it = scope->find(name);
      if (it != scope->end()) return it->second;
    }
    return -1;
  }

  base::Status CheckBlock(std::vector<std::unique_ptr<Stmt>>& body, bool new_scope = true) {
    if (new_scope) scopes_.emplace_back();
    for (auto& stmt : body) RETURN_IF_ERROR(CheckStmt(*stmt));
    if (new_scope) scopes_.pop_back();
    return base::Status::Ok();
  }

  base::Status CheckCondition(Expr& condition) {
    RETURN_IF_ERROR(CheckExpr(condition));
    if (condition.type != Type::kInt) {
      return Error(condition.line, condition.column, "a condition must be int, not float");
    }
    return base::Status::Ok();
  }

  base::Status CheckStmt(Stmt& stmt) {
    ++function_->node_count;
    switch (stmt.kind) {
      case StmtKind::kVar: {
        RETURN_IF_ERROR(CheckExpr(*stmt.expr));
        if (scopes_.back().count(stmt.name) != 0) {
          return Error(stmt.line, stmt.column, "'%s' is already declared in this block",
                       stmt.name.c_str());
        }
        stmt.local = static_cast<int32_t>(function_->locals.size());
        function_->locals.push_back({stmt.name, stmt.expr->type});
        scopes_.back().emplace(stmt.name, stmt.local);
        return base::Status::Ok();
      }
      case StmtKind::kAssign: {
        RETURN_IF_ERROR(CheckExpr(*stmt.expr));
        stmt.local = Lookup(stmt.name);
        if (stmt.local < 0) {
          return Error(stmt.line, stmt.column, "assignment to undeclared variable '%s'",
                       stmt.name.c_str());
        }
        const Type type = function_->locals[stmt.local].type;
        if (type != stmt.expr->type) {
          return Error(stmt.line, stmt.column, "cannot assign %s to '%s', which is %s",
                       TypeName(stmt.expr->type), stmt.name.c_str(), TypeName(type));
        }
        return base::Status::Ok();
      }
      case StmtKind::kIf:
        RETURN_IF_ERROR(CheckCondition(*stmt.expr));
        RETURN_IF_ERROR(CheckBlock(stmt.body));
        return CheckBlock(stmt.else_body);
      case StmtKind::kWhile:
        RETURN_IF_ERROR(CheckCondition(*stmt.expr));
        return CheckBlock(stmt.body);
      case StmtKind::kReturn:
        RETURN_IF_ERROR(CheckExpr(*stmt.expr));
        if (stmt.expr->type != function_->return_type) {
          return Error(stmt.line, stmt.column, "'%s' returns %s, not %s", function_->name.c_str(),
                       TypeName(function_->return_type), TypeName(stmt.expr->type));
        }
        return base::Status::Ok();
      case StmtKind::kExpr:
        return CheckExpr(*stmt.expr);
    }
    return base::Status::Ok();
  }

  base::Status CheckExpr(Expr& e) {
    ++function_->node_count;
    for (auto& operand : e.operands) RETURN_IF_ERROR(CheckExpr(*operand));
    switch (e.kind) {
      case ExprKind::kIntLiteral:
        e.type = Type::kInt;
        return base::Status::Ok();
      case ExprKind::kFloatLiteral:
        e.type = Type::kFloat;
        return base::Status::Ok();
      case ExprKind::kLocal:
        e.index = Lookup(e.name);
        if (e.index < 0) {
          return Error(e.line, e.column, "undeclared variable '%s'", e.name.c_str());
        }
        e.type = function_->locals[e.index].type;
        return base::Status::Ok();
      case ExprKind::kCall:
        return CheckCall(e);
      case ExprKind::kBuiltin:
        return CheckBuiltin(e);
      case ExprKind::kUnary: {
        const Type t = e.operands[0]->type;
        if (e.op == Op::kNot && t != Type::kInt) {
          return Error(e.line, e.column, "'!' needs an int operand, not float");
        }
        e.type = t;
        return base::Status::Ok();
      }
      case ExprKind::kBinary: {
        const Type lhs = e.operands[0]->type;
        const Type rhs = e.operands[1]->type;
        if (e.op == Op::kAnd || e.op == Op::kOr) {
          if (lhs != Type::kInt || rhs != Type::kInt) {
            return Error(e.line, e.column, "'%s' needs int operands", OpSpelling(e.op));
          }
          e.type = Type::kInt;
          return base::Status::Ok();
        }
        if (lhs != rhs) {
          return Error(e.line, e.column,
                       "'%s' on %s and %s: convert one side with int(...) or float(...)",
                       OpSpelling(e.op), TypeName(lhs), TypeName(rhs));
        }
        if (e.op == Op::kMod && lhs != Type::kInt) {
          return Error(e.line, e.column, "'%%' needs int operands");
        }
        e.type = IsComparison(e.op) ? Type::kInt : lhs;
        return base::Status::Ok();
      }
    }
    return base::Status::Ok();
  }

  base::Status CheckCall(Expr& e) {
    for (const BuiltinInfo& b : kNamedBuiltins) {
      if (e.name == b.name) {
        e.kind = ExprKind::kBuiltin;
        e.builtin = b.builtin;
        return CheckBuiltin(e);
      }
    }
    auto it = functions_.find(e.name);
    if (it == functions_.end()) {
      return Error(e.line, e.column, "call of undefined function '%s'", e.name.c_str());
    }
    e.index = it->second;
    const Function& callee = program_.functions[e.index];
    if (e.operands.size() != callee.param_count) {
      return Error(e.line, e.column, "'%s' takes %u arguments, not %zu", e.name.c_str(),
                   callee.param_count, e.operands.size());
    }
    for (uint32_t i = 0; i < callee.param_count; ++i) {
      if (e.operands[i]->type != callee.locals[i].type) {
        return Error(e.operands[i]->line, e.operands[i]->column,
                     "argument %u of '%s' must be %s, not %s", i + 1, e.name.c_str(),
                     TypeName(callee.locals[i].type), TypeName(e.operands[i]->type));
      }
    }
    e.type = callee.return_type;
    return base::Status::Ok();
  }

  base::Status CheckBuiltin(Expr& e) {
    static constexpr const char* kNames[] = {"print", "sqrt", "int", "float"};
    const char* name = kNames[static_cast<int>(e.builtin)];
    if (e.operands.size() != 1) {
      return Error(e.line, e.column, "'%s' takes 1 argument, not %zu", name, e.operands.size());
    }
    const Type arg = e.operands[0]->type;
    switch (e.builtin) {
      case Builtin::kPrint:
        e.type = Type::kInt;
        break;
      case Builtin::kSqrt:
        if (arg != Type::kFloat) return Error(e.line, e.column, "'sqrt' needs a float argument");
        e.type = Type::kFloat;
        break;
      case Builtin::kToInt:
        e.type = Type::kInt;
        break;
      case Builtin::kToFloat:
        e.type = Type::kFloat;
        break;
    }
    return base::Status::Ok();
  }

  Program& program_;
  std::unordered_map<std::string, int32_t> functions_;
  Function* function_ = nullptr;
  std::vector<std::unordered_map<std::string, int32_t>> scopes_;
};

}  // namespace

const char* TypeName(Type type) { return type == Type::kInt ? "int" : "float"; }

const char* OpSpelling(Op op) {
  static constexpr const char* kSpellings[] = {"+",  "-", "*",  "/",  "%",  "==", "!=", "<",
                                               "<=", ">", ">=", "&&", "||", "-",  "!"};
  return kSpellings[static_cast<int>(op)];
}

bool IsComparison(Op op) { return op >= Op::kEq && op <= Op::kGe; }

base::Status Check(Program& program) { return Checker(program).Run(); }

base::StatusOr<Program> Compile(std::string_view source, const std::string& path) {
  ASSIGN_OR_RETURN(Program program, Parse(source, path));
  program.display_path = path;
  RETURN_IF_ERROR(Check(program));
  return program;
}

base::StatusOr<Program> LoadProgram(const std::string& path) {
  ASSIGN_OR_RETURN(base::MappedFile file, base::MappedFile::Open(path));
  ASSIGN_OR_RETURN(Program program, Compile(file.bytes(), path));
  char resolved[PATH_MAX];
  if (::realpath(path.c_str(), resolved) != nullptr) program.path = resolved;
  return program;
}

}  // namespace jitscope::jitvm
