// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The syntax tree of a jitvm program, shared by the checker, the interpreter and both JIT tiers.
// The parser fills in names, lines and structure; the checker (checker.h) resolves every name to
// a local slot or a function index and gives every expression its static type. Later stages only
// read a checked tree.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace jitscope::jitvm {

// Every value is a 64-bit integer or a 64-bit IEEE double; both travel as 64 raw bits.
enum class Type : uint8_t { kInt, kFloat };

const char* TypeName(Type type);

enum class ExprKind : uint8_t {
  kIntLiteral,
  kFloatLiteral,
  kLocal,    // a parameter or variable: `index` is its slot in Function::locals
  kCall,     // a call of a program function: `index` is its position in Program::functions
  kBuiltin,  // print(x), sqrt(x), int(x), float(x): `builtin` says which
  kUnary,    // -x, !x: `op`, one operand
  kBinary,   // arithmetic, comparison and the short-circuit && and ||: `op`, two operands
};

enum class Op : uint8_t {
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMod,  // arithmetic
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,  // comparisons: int 0 or 1
  kAnd,
  kOr,  // short-circuit logic on ints
  kNeg,
  kNot,  // unary
};

enum class Builtin : uint8_t { kPrint, kSqrt, kToInt, kToFloat };

const char* OpSpelling(Op op);
bool IsComparison(Op op);

struct Expr {
  ExprKind kind = ExprKind::kIntLiteral;
  Type type = Type::kInt;  // set by the checker
  Op op = Op::kAdd;
  Builtin builtin = Builtin::kPrint;
  uint32_t line = 0;  // line of the token that names the operation (operator, callee, literal)
  uint32_t column = 0;
  int64_t int_value = 0;
  double float_value = 0;
  std::string name;                             // identifier of kLocal and kCall before resolution
  int32_t index = -1;                           // kLocal: local slot; kCall: function index
  std::vector<std::unique_ptr<Expr>> operands;  // operands or call arguments, in source order
};

enum class StmtKind : uint8_t {
  kVar,     // var name = expr;       declares `local`
  kAssign,  // name = expr;           stores into `local`
  kIf,      // if expr { body } else { else_body }
  kWhile,   // while expr { body }
  kReturn,  // return expr;
  kExpr,    // expr;  (a call, for its effect)
};

struct Stmt {
  StmtKind kind = StmtKind::kExpr;
  uint32_t line = 0;
  uint32_t column = 0;
  std::string name;    // kVar, kAssign before resolution
  int32_t local = -1;  // kVar, kAssign: the slot written
  std::unique_ptr<Expr> expr;
  std::vector<std::unique_ptr<Stmt>> body;
  std::vector<std::unique_ptr<Stmt>> else_body;
};

struct Local {
  std::string name;
  Type type = Type::kInt;
};

struct Function {
  std::string name;
  uint32_t line = 0;      // line of `fn`
  uint32_t end_line = 0;  // line of the closing brace: where falling off the end returns
  Type return_type = Type::kInt;
  uint32_t param_count = 0;  // parameters are locals[0 .. param_count)
  std::vector<Local> locals;
  std::vector<std::unique_ptr<Stmt>> body;
  uint32_t node_count = 0;  // statements plus expressions: the size the inliner budgets with
};

struct Program {
  std::string path;          // the source file as reported to profilers (absolute when known)
  std::string display_path;  // the source file as the user named it, for messages
  std::vector<Function> functions;
  int32_t main_index = -1;
};

// At most this many parameters: they arrive in the six System V integer argument registers.
inline constexpr uint32_t kMaxParams = 6;

}  // namespace jitscope::jitvm
