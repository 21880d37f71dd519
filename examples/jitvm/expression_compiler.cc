// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// FunctionCompiler's expressions (function_compiler.h): values into the accumulator, operands,
// arithmetic with jitvm's semantics (semantics.h), comparisons and conditional branches.
#include "function_compiler.h"

#include "semantics.h"

namespace jitscope::jitvm {
namespace {

using namespace Xbyak::util;  // NOLINT: register names read like assembly

Cond Negate(Cond c) {
  switch (c) {
    case Cond::kEq:
      return Cond::kNe;
    case Cond::kNe:
      return Cond::kEq;
    case Cond::kLt:
      return Cond::kGe;
    case Cond::kLe:
      return Cond::kGt;
    case Cond::kGt:
      return Cond::kLe;
    case Cond::kGe:
      return Cond::kLt;
    default:
      return c;  // float conditions are negated where NaN is handled
  }
}

Cond IntCond(Op op) {
  switch (op) {
    case Op::kEq:
      return Cond::kEq;
    case Op::kNe:
      return Cond::kNe;
    case Op::kLt:
      return Cond::kLt;
    case Op::kLe:
      return Cond::kLe;
    case Op::kGt:
      return Cond::kGt;
    default:
      return Cond::kGe;
  }
}

bool FitsInt32(uint64_t bits) {
  const auto value = static_cast<int64_t>(bits);
  return value >= INT32_MIN && value <= INT32_MAX;
}

}  // namespace

void FunctionCompiler::Jump(Cond c, const Label& target) {
  switch (c) {
    case Cond::kEq:
      a_.je(target, kNear);
      break;
    case Cond::kNe:
      a_.jne(target, kNear);
      break;
    case Cond::kLt:
      a_.jl(target, kNear);
      break;
    case Cond::kLe:
      a_.jle(target, kNear);
      break;
    case Cond::kGt:
      a_.jg(target, kNear);
      break;
    case Cond::kGe:
      a_.jge(target, kNear);
      break;
    case Cond::kAbove:
      a_.ja(target, kNear);
      break;
    case Cond::kAboveEq:
      a_.jae(target, kNear);
      break;
  }
}

// Operands the optimizing tier uses in place, without a temporary: they have no side effects
// and cost at most one move.
bool FunctionCompiler::IsSimple(const Expr& e) const {
  return optimize_ && (e.kind == ExprKind::kLocal || Constant(e).has_value());
}

void FunctionCompiler::LoadIntConstant(const Reg64& reg, uint64_t bits) {
  if (bits == 0) {
    a_.xor_(Xbyak::Reg32(reg.getIdx()), Xbyak::Reg32(reg.getIdx()));
  } else {
    a_.mov(reg, bits);
  }
}

void FunctionCompiler::LoadFloatConstant(const Xmm& xmm, uint64_t bits) {
  if (bits == 0) {
    a_.xorps(xmm, xmm);
  } else {
    a_.mov(r11, bits);
    a_.movq(xmm, r11);
  }
}

// A simple operand's value into an integer register (for a float: its bits).
void FunctionCompiler::LoadBits(const Reg64& reg, const Expr& e) {
  if (auto c = Constant(e)) return LoadIntConstant(reg, *c);
  const Home& home = HomeOf(e.index);
  switch (home.kind) {
    case Home::Kind::kGpr:
      a_.mov(reg, Reg64(home.reg));
      break;
    case Home::Kind::kXmm:
      a_.movq(reg, Xmm(home.reg));
      break;
    case Home::Kind::kSlot:
      a_.mov(reg, Slot(home.slot));
      break;
  }
}

// A simple float operand into an xmm register.
void FunctionCompiler::LoadFloat(const Xmm& xmm, const Expr& e) {
  if (auto c = Constant(e)) return LoadFloatConstant(xmm, *c);
  const Home& home = HomeOf(e.index);
  if (home.kind == Home::Kind::kXmm) {
    a_.movapd(xmm, Xmm(home.reg));
  } else {
    a_.movsd(xmm, Slot(home.slot));
  }
}

// The accumulator (rax or xmm0) into a local's home.
void FunctionCompiler::StoreAccumulator(const Home& home, Type type) {
  switch (home.kind) {
    case Home::Kind::kGpr:
      a_.mov(Reg64(home.reg), rax);
      break;
    case Home::Kind::kXmm:
      a_.movapd(Xmm(home.reg), xmm0);
      break;
    case Home::Kind::kSlot:
      if (type == Type::kInt) {
        a_.mov(Slot(home.slot), rax);
      } else {
        a_.movsd(Slot(home.slot), xmm0);
      }
      break;
  }
}

void FunctionCompiler::EmitExpr(const Expr& e) {
  if (auto c = Constant(e)) {
    SetLine(e.line);
    if (e.type == Type::kInt) {
      LoadIntConstant(rax, *c);
    } else {
      LoadFloatConstant(xmm0, *c);
    }
    return;
  }
  switch (e.kind) {
    case ExprKind::kIntLiteral:
      SetLine(e.line);
      a_.mov(rax, static_cast<uint64_t>(e.int_value));
      break;
    case ExprKind::kFloatLiteral:
      SetLine(e.line);
      a_.mov(rax, FloatBits(e.float_value));
      a_.movq(xmm0, rax);
      break;
    case ExprKind::kLocal: {
      SetLine(e.line);
      const Home& home = HomeOf(e.index);
      if (e.type == Type::kFloat) {
        if (home.kind == Home::Kind::kXmm) {
          a_.movapd(xmm0, Xmm(home.reg));
        } else {
          a_.movsd(xmm0, Slot(home.slot));
        }
      } else if (home.kind == Home::Kind::kGpr) {
        a_.mov(rax, Reg64(home.reg));
      } else {
        a_.mov(rax, Slot(home.slot));
      }
      break;
    }
    case ExprKind::kCall:
      EmitCall(e);
      break;
    case ExprKind::kBuiltin:
      EmitBuiltin(e);
      break;
    case ExprKind::kUnary:
      if (e.op == Op::kNot) {
        EmitMaterializedCondition(e);
        break;
      }
      EmitExpr(*e.operands[0]);
      SetLine(e.line);
      if (e.type == Type::kInt) {
        a_.neg(rax);
      } else {
        LoadFloatConstant(xmm1, uint64_t{1} << 63);
        a_.xorpd(xmm0, xmm1);  // flip the sign bit
      }
      break;
    case ExprKind::kBinary:
      if (e.op == Op::kAnd || e.op == Op::kOr) {
        EmitMaterializedCondition(e);
      } else if (e.operands[0]->type == Type::kInt) {
        EmitIntBinary(e);
      } else {
        EmitFloatBinary(e);
      }
      break;
  }
}

// Evaluates lhs into the accumulator and rhs into rcx/xmm1 — or, for a small int constant in
// the optimizing tier, returns it as an immediate. Left before right, as in every engine.
std::optional<int32_t> FunctionCompiler::EmitOperands(const Expr& lhs, const Expr& rhs) {
  const Type type = lhs.type;
  if (IsSimple(rhs)) {
    EmitExpr(lhs);
    if (type == Type::kFloat) {
      LoadFloat(xmm1, rhs);
      return std::nullopt;
    }
    if (auto c = Constant(rhs); c && FitsInt32(*c)) return static_cast<int32_t>(*c);
    LoadBits(rcx, rhs);
    return std::nullopt;
  }
  EmitExpr(lhs);
  const uint32_t temp = PushTemp();
  if (type == Type::kInt) {
    a_.mov(Temp(temp), rax);
    EmitExpr(rhs);
    a_.mov(rcx, rax);
    a_.mov(rax, Temp(temp));
  } else {
    a_.movsd(Temp(temp), xmm0);
    EmitExpr(rhs);
    a_.movapd(xmm1, xmm0);
    a_.movsd(xmm0, Temp(temp));
  }
  --temp_depth_;
  return std::nullopt;
}

void FunctionCompiler::EmitIntBinary(const Expr& e) {
  const auto imm = EmitOperands(*e.operands[0], *e.operands[1]);
  SetLine(e.line);
  switch (e.op) {
    case Op::kAdd:
      imm ? a_.add(rax, *imm) : a_.add(rax, rcx);
      break;
    case Op::kSub:
      imm ? a_.sub(rax, *imm) : a_.sub(rax, rcx);
      break;
    case Op::kMul:
      imm ? a_.imul(rax, rax, *imm) : a_.imul(rax, rcx);
      break;
    case Op::kDiv:
    case Op::kMod:
      EmitIntDivide(e.op, imm, e.line);
      break;
    default:
      imm ? a_.cmp(rax, *imm) : a_.cmp(rax, rcx);
      SetCondition(IntCond(e.op), /*after_ucomisd=*/false);
      break;
  }
}

void FunctionCompiler::EmitIntDivide(Op op, std::optional<int32_t> imm, uint32_t line) {
  // A known divisor other than 0 and -1 needs no checks; any other takes the slow paths.
  const bool checked = !imm || *imm == 0 || *imm == -1;
  if (imm) a_.mov(rcx, static_cast<int64_t>(*imm));
  Stub* minus_one = nullptr;
  if (checked) {
    a_.test(rcx, rcx);
    a_.jz(AddStub(Stub::Kind::kDivisionByZero, line).entry, kNear);
    NoteStubJump(stubs_.back().entry);
    minus_one = &AddStub(Stub::Kind::kDivideByMinusOne, line, op);
    a_.cmp(rcx, -1);
    a_.je(minus_one->entry, kNear);
    NoteStubJump(minus_one->entry);
  }
  a_.cqo();
  a_.idiv(rcx);
  if (op == Op::kMod) a_.mov(rax, rdx);
  if (minus_one != nullptr) a_.L(minus_one->back);
}

void FunctionCompiler::EmitFloatBinary(const Expr& e) {
  EmitOperands(*e.operands[0], *e.operands[1]);
  SetLine(e.line);
  switch (e.op) {
    case Op::kAdd:
      a_.addsd(xmm0, xmm1);
      break;
    case Op::kSub:
      a_.subsd(xmm0, xmm1);
      break;
    case Op::kMul:
      a_.mulsd(xmm0, xmm1);
      break;
    case Op::kDiv:
      a_.divsd(xmm0, xmm1);
      break;
    default:
      SetCondition(FloatCompare(e.op), /*after_ucomisd=*/true);
      break;
  }
}

// Compares xmm0 (lhs) with xmm1 (rhs) and returns the condition that is true when the
// comparison holds. ucomisd sets CF and ZF (and PF) for NaN, so "above" and "above or equal"
// are false for NaN; < and <= swap the operands to become > and >=.
Cond FunctionCompiler::FloatCompare(Op op) {
  switch (op) {
    case Op::kLt:
      a_.ucomisd(xmm1, xmm0);
      return Cond::kAbove;
    case Op::kLe:
      a_.ucomisd(xmm1, xmm0);
      return Cond::kAboveEq;
    case Op::kGt:
      a_.ucomisd(xmm0, xmm1);
      return Cond::kAbove;
    case Op::kGe:
      a_.ucomisd(xmm0, xmm1);
      return Cond::kAboveEq;
    case Op::kEq:
      a_.ucomisd(xmm0, xmm1);
      return Cond::kEq;
    default:
      a_.ucomisd(xmm0, xmm1);
      return Cond::kNe;
  }
}

// rax = 1 if `c` holds after the last compare, else 0. After ucomisd, == also needs "not
// NaN" (PF clear) and != is true for NaN (PF set).
void FunctionCompiler::SetCondition(Cond c, bool after_ucomisd) {
  switch (c) {
    case Cond::kEq:
      a_.sete(al);
      if (after_ucomisd) {
        a_.setnp(cl);
        a_.and_(al, cl);
      }
      break;
    case Cond::kNe:
      a_.setne(al);
      if (after_ucomisd) {
        a_.setp(cl);
        a_.or_(al, cl);
      }
      break;
    case Cond::kLt:
      a_.setl(al);
      break;
    case Cond::kLe:
      a_.setle(al);
      break;
    case Cond::kGt:
      a_.setg(al);
      break;
    case Cond::kGe:
      a_.setge(al);
      break;
    case Cond::kAbove:
      a_.seta(al);
      break;
    case Cond::kAboveEq:
      a_.setae(al);
      break;
  }
  a_.movzx(eax, al);
}

// && || ! as a value: 1 or 0 in rax.
void FunctionCompiler::EmitMaterializedCondition(const Expr& e) {
  Label is_false;
  Label done;
  EmitBranch(e, false, is_false);
  SetLine(e.line);
  a_.mov(eax, 1);
  a_.jmp(done, kNear);
  a_.L(is_false);
  a_.xor_(eax, eax);
  a_.L(done);
}

// Jumps to `target` if `e` (an int condition) is non-zero == `when`; falls through otherwise.
void FunctionCompiler::EmitBranch(const Expr& e, bool when, const Label& target) {
  if (auto c = Constant(e)) {
    if ((*c != 0) == when) a_.jmp(target, kNear);
    return;
  }
  if (e.kind == ExprKind::kUnary && e.op == Op::kNot) {
    return EmitBranch(*e.operands[0], !when, target);
  }
  if (e.kind == ExprKind::kBinary && (e.op == Op::kAnd || e.op == Op::kOr)) {
    if ((e.op == Op::kAnd) != when) {
      // false for &&, true for ||: either operand decides on its own.
      EmitBranch(*e.operands[0], when, target);
      EmitBranch(*e.operands[1], when, target);
    } else {
      // true for &&, false for ||: the left operand can only rule the jump out.
      Label skip;
      EmitBranch(*e.operands[0], !when, skip);
      EmitBranch(*e.operands[1], when, target);
      a_.L(skip);
    }
    return;
  }
  if (e.kind == ExprKind::kBinary && IsComparison(e.op)) {
    const auto imm = EmitOperands(*e.operands[0], *e.operands[1]);
    SetLine(e.line);
    if (e.operands[0]->type == Type::kInt) {
      imm ? a_.cmp(rax, *imm) : a_.cmp(rax, rcx);
      Jump(when ? IntCond(e.op) : Negate(IntCond(e.op)), target);
      return;
    }
    const Cond c = FloatCompare(e.op);
    EmitFloatBranch(c, when, target);
    return;
  }
  EmitExpr(e);
  SetLine(e.line);
  a_.test(rax, rax);
  when ? a_.jnz(target, kNear) : a_.jz(target, kNear);
}

void FunctionCompiler::EmitFloatBranch(Cond c, bool when, const Label& target) {
  // With NaN (PF set) every comparison but != is false.
  const bool holds_if_equal = c == Cond::kEq;
  if (c == Cond::kEq || c == Cond::kNe) {
    if (when == holds_if_equal) {  // jump if equal and ordered
      Label skip;
      a_.jp(skip, kNear);
      a_.je(target, kNear);
      a_.L(skip);
    } else {  // jump if unequal or unordered
      a_.jp(target, kNear);
      a_.jne(target, kNear);
    }
    return;
  }
  if (when) {
    Jump(c, target);  // ja / jae: false for NaN
  } else if (c == Cond::kAbove) {
    a_.jbe(target, kNear);  // true for NaN
  } else {
    a_.jb(target, kNear);
  }
}

}  // namespace jitscope::jitvm
