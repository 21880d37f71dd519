// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "parser.h"

#include <cstdio>
#include <limits>
#include <utility>

#include "lexer.h"

namespace jitscope::jitvm {
namespace {

// Deeper nesting than this is refused: every later stage recurses over the tree, and a hostile
// file must not overflow the native stack.
constexpr int kMaxNesting = 200;

class Parser {
 public:
  Parser(std::string_view source, const std::string& path) : lexer_(source, path), path_(path) {}

  base::StatusOr<Program> ParseProgram() {
    Program program;
    program.path = path_;
    while (Peek().kind != TokenKind::kEnd) {
      Function function;
      if (!ParseFunction(function)) return error_;
      program.functions.push_back(std::move(function));
    }
    if (!error_.ok()) return error_;  // the lexer stopped early
    return program;
  }

 private:
  // The parser looks at most two tokens ahead (an assignment starts `name =`).
  Token Peek(size_t ahead = 0) {
    while (buffered_ <= ahead) {
      lookahead_[buffered_++] = lexer_.Next();
      if (!lexer_.error().ok() && error_.ok()) error_ = lexer_.error();
    }
    return lookahead_[ahead];
  }
  Token Next() {
    Token token = Peek();
    lookahead_[0] = lookahead_[1];
    --buffered_;
    return token;
  }
  bool Is(std::string_view text) {
    const Token t = Peek();
    return (t.kind == TokenKind::kPunctuation || t.kind == TokenKind::kKeyword) && t.text == text;
  }
  bool Accept(std::string_view text) {
    if (!Is(text)) return false;
    Next();
    return true;
  }
  bool Fail(const Token& at, const std::string& message) {
    if (error_.ok()) {
      error_ = base::Status::Error("%s:%u:%u: error: %s", path_.c_str(), at.line, at.column,
                                   message.c_str());
    }
    return false;
  }
  static std::string Describe(const Token& token) {
    if (token.kind == TokenKind::kEnd) return "end of file";
    return "'" + std::string(token.text) + "'";
  }
  bool Expect(std::string_view text) {
    if (Accept(text)) return true;
    return Fail(Peek(), "expected '" + std::string(text) + "' but found " + Describe(Peek()));
  }
  bool ExpectName(std::string& name) {
    if (Peek().kind != TokenKind::kIdentifier) {
      return Fail(Peek(), "expected a name but found " + Describe(Peek()));
    }
    name = std::string(Next().text);
    return true;
  }
  bool ParseType(Type& type) {
    if (Accept("int")) {
      type = Type::kInt;
    } else if (Accept("float")) {
      type = Type::kFloat;
    } else {
      return Fail(Peek(), "expected a type (int or float) but found " + Describe(Peek()));
    }
    return true;
  }

  // Counts nesting on the way down; the destructor undoes it on every path out.
  class NestingScope {
   public:
    explicit NestingScope(Parser& parser) : parser_(parser) { ++parser_.nesting_; }
    ~NestingScope() { --parser_.nesting_; }
    bool ok() const { return parser_.nesting_ <= kMaxNesting; }

   private:
    Parser& parser_;
  };

  bool ParseFunction(Function& function) {
    const Token fn = Peek();
    if (!Expect("fn")) return false;
    function.line = fn.line;
    if (!ExpectName(function.name) || !Expect("(")) return false;
    if (!Is(")")) {
      do {
        Local param;
        if (!ExpectName(param.name) || !Expect(":") || !ParseType(param.type)) return false;
        function.locals.push_back(std::move(param));
      } while (Accept(","));
    }
    if (!Expect(")")) return false;
    function.param_count = static_cast<uint32_t>(function.locals.size());
    if (Accept("->") && !ParseType(function.return_type)) return false;
    return ParseBlock(function.body, &function.end_line);
  }

  bool ParseBlock(std::vector<std::unique_ptr<Stmt>>& body, uint32_t* end_line = nullptr) {
    NestingScope scope(*this);
    if (!scope.ok()) return Fail(Peek(), "blocks nested too deeply");
    if (!Expect("{")) return false;
    while (!Is("}")) {
      if (Peek().kind == TokenKind::kEnd) return Fail(Peek(), "expected '}' but found end of file");
      auto stmt = ParseStatement();
      if (!stmt) return false;
      body.push_back(std::move(stmt));
    }
    if (end_line != nullptr) *end_line = Peek().line;
    return Expect("}");
  }

  std::unique_ptr<Stmt> ParseStatement() {
    auto stmt = std::make_unique<Stmt>();
    const Token first = Peek();
    stmt->line = first.line;
    stmt->column = first.column;
    if (Accept("var")) {
      stmt->kind = StmtKind::kVar;
      if (!ExpectName(stmt->name) || !Expect("=")) return nullptr;
      if (!(stmt->expr = ParseExpr()) || !Expect(";")) return nullptr;
    } else if (Is("if")) {
      return ParseIf();
    } else if (Accept("while")) {
      stmt->kind = StmtKind::kWhile;
      if (!(stmt->expr = ParseExpr()) || !ParseBlock(stmt->body)) return nullptr;
    } else if (Accept("return")) {
      stmt->kind = StmtKind::kReturn;
      if (!(stmt->expr = ParseExpr()) || !Expect(";")) return nullptr;
    } else if (first.kind == TokenKind::kIdentifier && Peek(1).kind == TokenKind::kPunctuation &&
               Peek(1).text == "=") {
      stmt->kind = StmtKind::kAssign;
      stmt->name = std::string(Next().text);
      Next();  // '='
      if (!(stmt->expr = ParseExpr()) || !Expect(";")) return nullptr;
    } else {
      stmt->kind = StmtKind::kExpr;
      if (!(stmt->expr = ParseExpr()) || !Expect(";")) return nullptr;
    }
    return stmt;
  }

  std::unique_ptr<Stmt> ParseIf() {
    NestingScope scope(*this);
    if (!scope.ok()) return Fail(Peek(), "statements nested too deeply"), nullptr;
    auto stmt = std::make_unique<Stmt>();
    stmt->kind = StmtKind::kIf;
    stmt->line = Peek().line;
    stmt->column = Peek().column;
    Next();  // 'if'
    if (!(stmt->expr = ParseExpr()) || !ParseBlock(stmt->body)) return nullptr;
    if (Accept("else")) {
      if (Is("if")) {
        auto nested = ParseIf();
        if (!nested) return nullptr;
        stmt->else_body.push_back(std::move(nested));
      } else if (!ParseBlock(stmt->else_body)) {
        return nullptr;
      }
    }
    return stmt;
  }

  static std::unique_ptr<Expr> MakeExpr(ExprKind kind, const Token& at) {
    auto expr = std::make_unique<Expr>();
    expr->kind = kind;
    expr->line = at.line;
    expr->column = at.column;
    return expr;
  }
  static std::unique_ptr<Expr> MakeBinary(Op op, const Token& at, std::unique_ptr<Expr> lhs,
                                          std::unique_ptr<Expr> rhs) {
    auto expr = MakeExpr(ExprKind::kBinary, at);
    expr->op = op;
    expr->operands.push_back(std::move(lhs));
    expr->operands.push_back(std::move(rhs));
    return expr;
  }

  std::unique_ptr<Expr> ParseExpr() {
    NestingScope scope(*this);
    if (!scope.ok()) return Fail(Peek(), "expression nested too deeply"), nullptr;
    return ParseOr();
  }

  // operand (op operand)*, left-associative, for the operators in `ops`.
  template <size_t N>
  std::unique_ptr<Expr> ParseChain(const std::pair<std::string_view, Op> (&ops)[N],
                                   std::unique_ptr<Expr> (Parser::*operand)()) {
    auto lhs = (this->*operand)();
    while (lhs) {
      const std::pair<std::string_view, Op>* matched = nullptr;
      for (const auto& op : ops) {
        if (Is(op.first)) matched = &op;
      }
      if (matched == nullptr) break;
      const Token at = Next();
      auto rhs = (this->*operand)();
      if (!rhs) return nullptr;
      lhs = MakeBinary(matched->second, at, std::move(lhs), std::move(rhs));
    }
    return lhs;
  }

  std::unique_ptr<Expr> ParseOr() {
    static constexpr std::pair<std::string_view, Op> kOps[] = {{"||", Op::kOr}};
    return ParseChain(kOps, &Parser::ParseAnd);
  }

  std::unique_ptr<Expr> ParseAnd() {
    static constexpr std::pair<std::string_view, Op> kOps[] = {{"&&", Op::kAnd}};
    return ParseChain(kOps, &Parser::ParseCompare);
  }

  std::unique_ptr<Expr> ParseCompare() {
    static constexpr std::pair<std::string_view, Op> kComparisons[] = {
        {"==", Op::kEq}, {"!=", Op::kNe}, {"<", Op::kLt},
        {"<=", Op::kLe}, {">", Op::kGt},  {">=", Op::kGe}};
    auto lhs = ParseSum();
    if (!lhs) return nullptr;
    for (const auto& [text, op] : kComparisons) {
      if (Is(text)) {
        const Token at = Next();
        auto rhs = ParseSum();
        if (!rhs) return nullptr;
        lhs = MakeBinary(op, at, std::move(lhs), std::move(rhs));
        for (const auto& [again, unused] : kComparisons) {
          if (Is(again)) {
            Fail(Peek(), "comparisons do not chain; use && between them");
            return nullptr;
          }
        }
        break;
      }
    }
    return lhs;
  }

  std::unique_ptr<Expr> ParseSum() {
    static constexpr std::pair<std::string_view, Op> kOps[] = {{"+", Op::kAdd}, {"-", Op::kSub}};
    return ParseChain(kOps, &Parser::ParseProduct);
  }

  std::unique_ptr<Expr> ParseProduct() {
    static constexpr std::pair<std::string_view, Op> kOps[] = {
        {"*", Op::kMul}, {"/", Op::kDiv}, {"%", Op::kMod}};
    return ParseChain(kOps, &Parser::ParseUnary);
  }

  std::unique_ptr<Expr> ParseUnary() {
    if (Is("-") || Is("!")) {
      NestingScope scope(*this);
      if (!scope.ok()) return Fail(Peek(), "expression nested too deeply"), nullptr;
      const Token at = Next();
      // -9223372036854775808 is the one literal that is only valid negated.
      negated_literal_ = at.text == "-" && Peek().kind == TokenKind::kIntLiteral;
      auto operand = ParseUnary();
      negated_literal_ = false;
      if (!operand) return nullptr;
      auto expr = MakeExpr(ExprKind::kUnary, at);
      expr->op = at.text == "-" ? Op::kNeg : Op::kNot;
      expr->operands.push_back(std::move(operand));
      return expr;
    }
    return ParsePrimary();
  }

  std::unique_ptr<Expr> ParsePrimary() {
    const Token at = Peek();
    switch (at.kind) {
      case TokenKind::kIntLiteral: {
        Next();
        if (at.int_value == std::numeric_limits<int64_t>::min() && !negated_literal_) {
          Fail(at, "integer literal out of range");
          return nullptr;
        }
        auto expr = MakeExpr(ExprKind::kIntLiteral, at);
        expr->int_value = at.int_value;
        return expr;
      }
      case TokenKind::kFloatLiteral: {
        Next();
        auto expr = MakeExpr(ExprKind::kFloatLiteral, at);
        expr->type = Type::kFloat;
        expr->float_value = at.float_value;
        return expr;
      }
      case TokenKind::kIdentifier: {
        Next();
        if (!Is("(")) {
          auto expr = MakeExpr(ExprKind::kLocal, at);
          expr->name = std::string(at.text);
          return expr;
        }
        auto expr = MakeExpr(ExprKind::kCall, at);
        expr->name = std::string(at.text);
        return ParseArguments(std::move(expr));
      }
      case TokenKind::kKeyword:
        if (at.text == "int" || at.text == "float") {
          Next();
          auto expr = MakeExpr(ExprKind::kBuiltin, at);
          expr->builtin = at.text == "int" ? Builtin::kToInt : Builtin::kToFloat;
          return ParseArguments(std::move(expr));
        }
        break;
      case TokenKind::kPunctuation:
        if (at.text == "(") {
          Next();
          auto inner = ParseExpr();
          if (!inner || !Expect(")")) return nullptr;
          return inner;
        }
        break;
      case TokenKind::kEnd:
        break;
    }
    Fail(at, "expected an expression but found " + Describe(at));
    return nullptr;
  }

  std::unique_ptr<Expr> ParseArguments(std::unique_ptr<Expr> call) {
    if (!Expect("(")) return nullptr;
    if (!Is(")")) {
      do {
        auto argument = ParseExpr();
        if (!argument) return nullptr;
        call->operands.push_back(std::move(argument));
      } while (Accept(","));
    }
    if (!Expect(")")) return nullptr;
    return call;
  }

  Lexer lexer_;
  Token lookahead_[2];
  size_t buffered_ = 0;
  const std::string& path_;
  int nesting_ = 0;
  bool negated_literal_ = false;
  base::Status error_;
};

}  // namespace

base::StatusOr<Program> Parse(std::string_view source, const std::string& path) {
  Parser parser(source, path);
  return parser.ParseProgram();
}

}  // namespace jitscope::jitvm
