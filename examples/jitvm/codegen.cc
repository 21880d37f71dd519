// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "codegen.h"

#include <deque>
#include <optional>

#include <xbyak/xbyak.h>

#include "semantics.h"

namespace jitscope::jitvm {
namespace {

using namespace Xbyak::util;  // NOLINT: register names read like assembly
using Xbyak::Address;
using Xbyak::Label;
using Xbyak::Reg64;
using Xbyak::Xmm;

constexpr auto kNear = Xbyak::CodeGenerator::T_NEAR;
const Reg64 kArgRegs[kMaxParams] = {rdi, rsi, rdx, rcx, r8, r9};

// Conditions after `cmp` (signed ints) or `ucomisd` (floats: above/above-or-equal, and the
// equalities, which must also look at the parity flag that marks a NaN operand).
enum class Cond : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe, kAbove, kAboveEq };

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

// A slow path, emitted after the function's main code: in the same region (baseline) or in the
// cold region (optimizing tier).
struct Stub {
  enum class Kind : uint8_t { kStackOverflow, kDivisionByZero, kDivideByMinusOne, kTierUp };
  Kind kind = Kind::kStackOverflow;
  Op op = Op::kDiv;
  uint32_t line = 0;
  Label entry;  // where the main code jumps in
  Label back;   // where the stub resumes the main code, if it does
};

// The code being emitted for one function or one inlined instance of a callee.
struct Context {
  int32_t instance;        // index in FramePlan::instances
  LineTableBuilder lines;  // its line table (the callee's lines for an inlined instance)
  int32_t region;          // its InlineRegion, or -1 for the compiled function itself
  Label* exit;             // inlined instance: where its returns go
};

class FunctionCompiler {
 public:
  FunctionCompiler(Xbyak::CodeGenerator& a, const Program& program, const RuntimeLinks& links,
                   const CodegenOptions& options, int32_t function)
      : a_(a),
        program_(program),
        links_(links),
        options_(options),
        optimize_(options.tier == Tier::kOptimized),
        count_calls_(options.count_calls && !optimize_),
        function_(function),
        plan_(PlanFrame(program, function, optimize_, options.inlining)),
        cold_lines_(0, 0) {}

  base::StatusOr<CompiledCode> Run() {
    const Function& f = program_.functions[function_];
    contexts_.push_back({0, LineTableBuilder(0, f.line), -1, nullptr});
    EmitPrologue(f);
    EmitBody(f.body);
    if (!EndsWithReturn(f.body)) {
      SetLine(f.end_line);
      a_.xor_(eax, eax);  // falling off the end returns 0 (or 0.0: the same bits)
    }
    SetLine(f.end_line);
    a_.L(epilogue_);
    EmitEpilogue();

    CompiledCode out;
    out.tier = options_.tier;
    out.function = function_;
    // The cold region starts after the main code; the baseline keeps its stubs in one region.
    const uint32_t split = Offset();
    if (optimize_ && !stubs_.empty()) {
      cold_lines_ = LineTableBuilder(split, stubs_.front().line);
      in_cold_ = true;
    }
    EmitStubs();
    const uint32_t end = Offset();
    PatchFrameSize();
    if (const int error = Xbyak::GetError(); error != 0) {
      return base::Status::Error("cannot compile '%s': %s", f.name.c_str(),
                                 Xbyak::ConvertErrorToString(error));
    }
    if (a_.hasUndefinedLabel()) {
      return base::Status::Error("cannot compile '%s': internal error: undefined label",
                                 f.name.c_str());
    }
    out.code = a_.getCode();
    out.hot_size = in_cold_ ? split : end;
    out.cold_size = in_cold_ ? end - split : 0;
    out.hot_lines = contexts_.front().lines.Finish(out.hot_size);
    if (in_cold_) {
      out.cold_lines = cold_lines_.Finish(end);
      for (const auto& [field, label] : stub_jumps_) {
        out.relocations.push_back(
            {field, static_cast<uint32_t>(label->getAddress() - a_.getCode())});
      }
    }
    out.inlines = std::move(inlines_);
    return out;
  }

 private:
  // ---- Positions, lines, frame slots ----

  uint32_t Offset() const { return static_cast<uint32_t>(a_.getSize()); }

  void SetLine(uint32_t line) {
    (in_cold_ ? cold_lines_ : contexts_.back().lines).Mark(Offset(), line);
  }

  int32_t Instance() const { return contexts_.back().instance; }
  const Function& CurrentFunction() const {
    return program_.functions[plan_.instances[Instance()].function];
  }
  const Home& HomeOf(int32_t local) const { return plan_.HomeOf(Instance(), local); }
  Type LocalType(int32_t local) const { return CurrentFunction().locals[local].type; }

  Address Slot(uint32_t slot) const {
    return a_.qword[rbp - static_cast<int>(8 * plan_.saved_gprs.size() + 8 * (slot + 1))];
  }
  Address Temp(uint32_t temp) const { return Slot(plan_.slot_count + temp); }
  uint32_t PushTemp() {
    const uint32_t temp = temp_depth_++;
    if (temp_depth_ > max_temps_) max_temps_ = temp_depth_;
    return temp;
  }

  // ---- Jumps ----

  void Jump(Cond c, const Label& target) {
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

  // Remembers the rel32 field just emitted: it must be re-aimed if its target ends up in the
  // other region of a split function.
  void NoteStubJump(const Label& target) { stub_jumps_.push_back({Offset() - 4, &target}); }

  Stub& AddStub(Stub::Kind kind, uint32_t line, Op op = Op::kDiv) {
    Stub& stub = stubs_.emplace_back();
    stub.kind = kind;
    stub.line = line;
    stub.op = op;
    return stub;
  }

  // ---- Values ----

  // The value of `e` if the optimizing tier can compute it now (semantics.h rules).
  std::optional<uint64_t> Constant(const Expr& e) const {
    if (!optimize_) return std::nullopt;
    switch (e.kind) {
      case ExprKind::kIntLiteral:
        return static_cast<uint64_t>(e.int_value);
      case ExprKind::kFloatLiteral:
        return FloatBits(e.float_value);
      case ExprKind::kUnary: {
        auto operand = Constant(*e.operands[0]);
        if (!operand) return std::nullopt;
        return EvaluateUnary(e.op, e.type, *operand);
      }
      case ExprKind::kBinary: {
        auto lhs = Constant(*e.operands[0]);
        if (!lhs) return std::nullopt;
        if (e.op == Op::kAnd || e.op == Op::kOr) {
          // A deciding left operand makes the result constant: the right one never runs.
          if ((e.op == Op::kAnd) == (*lhs == 0)) return e.op == Op::kOr ? 1 : 0;
          auto rhs = Constant(*e.operands[1]);
          if (!rhs) return std::nullopt;
          return *rhs != 0 ? 1 : 0;
        }
        auto rhs = Constant(*e.operands[1]);
        if (!rhs) return std::nullopt;
        return EvaluateBinary(e.op, e.operands[0]->type, *lhs, *rhs);  // nullopt: x / 0
      }
      case ExprKind::kBuiltin: {
        if (e.builtin == Builtin::kPrint) return std::nullopt;
        auto operand = Constant(*e.operands[0]);
        if (!operand) return std::nullopt;
        return EvaluateConversion(e.builtin, e.operands[0]->type, *operand);
      }
      default:
        return std::nullopt;
    }
  }

  // Operands the optimizing tier uses in place, without a temporary: they have no side effects
  // and cost at most one move.
  bool IsSimple(const Expr& e) const {
    return optimize_ && (e.kind == ExprKind::kLocal || Constant(e).has_value());
  }

  void LoadIntConstant(const Reg64& reg, uint64_t bits) {
    if (bits == 0) {
      a_.xor_(Xbyak::Reg32(reg.getIdx()), Xbyak::Reg32(reg.getIdx()));
    } else {
      a_.mov(reg, bits);
    }
  }
  void LoadFloatConstant(const Xmm& xmm, uint64_t bits) {
    if (bits == 0) {
      a_.xorps(xmm, xmm);
    } else {
      a_.mov(r11, bits);
      a_.movq(xmm, r11);
    }
  }

  // A simple operand's value into an integer register (for a float: its bits).
  void LoadBits(const Reg64& reg, const Expr& e) {
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
  void LoadFloat(const Xmm& xmm, const Expr& e) {
    if (auto c = Constant(e)) return LoadFloatConstant(xmm, *c);
    const Home& home = HomeOf(e.index);
    if (home.kind == Home::Kind::kXmm) {
      a_.movapd(xmm, Xmm(home.reg));
    } else {
      a_.movsd(xmm, Slot(home.slot));
    }
  }

  // The accumulator (rax or xmm0) into a local's home.
  void StoreAccumulator(const Home& home, Type type) {
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

  // ---- Prologue and epilogue ----

  void EmitPrologue(const Function& f) {
    a_.push(rbp);
    a_.mov(rbp, rsp);
    for (uint8_t reg : plan_.saved_gprs) a_.push(Reg64(reg));
    // The frame size is known once the body is emitted (temporaries); PatchFrameSize() fills in
    // this imm32.
    a_.sub(rsp, 0x7ffffff0);
    frame_size_field_ = Offset() - 4;
    for (size_t i = 0; i < plan_.saved_xmms.size(); ++i) {
      a_.movsd(Slot(plan_.xmm_save_slots[i]), Xmm(plan_.saved_xmms[i]));
    }
    a_.mov(r11, reinterpret_cast<uint64_t>(links_.stack_limit));
    a_.cmp(rsp, a_.qword[r11]);
    a_.jb(AddStub(Stub::Kind::kStackOverflow, f.line).entry, kNear);
    NoteStubJump(stubs_.back().entry);
    for (uint32_t p = 0; p < f.param_count; ++p) {
      const Home& home = HomeOf(static_cast<int32_t>(p));
      switch (home.kind) {
        case Home::Kind::kGpr:
          a_.mov(Reg64(home.reg), kArgRegs[p]);
          break;
        case Home::Kind::kXmm:
          a_.movq(Xmm(home.reg), kArgRegs[p]);
          break;
        case Home::Kind::kSlot:
          a_.mov(Slot(home.slot), kArgRegs[p]);
          break;
      }
    }
    if (count_calls_) {
      // Count this call; at zero, ask the runtime for optimized code (the tier-up stub).
      Stub& stub = AddStub(Stub::Kind::kTierUp, f.line);
      a_.mov(r11, reinterpret_cast<uint64_t>(&links_.call_counters[function_]));
      a_.sub(a_.dword[r11], 1);
      a_.jz(stub.entry, kNear);
      NoteStubJump(stub.entry);
      a_.L(stub.back);
    }
  }

  void EmitEpilogue() {
    for (size_t i = 0; i < plan_.saved_xmms.size(); ++i) {
      a_.movsd(Xmm(plan_.saved_xmms[i]), Slot(plan_.xmm_save_slots[i]));
    }
    if (plan_.saved_gprs.empty()) {
      a_.mov(rsp, rbp);
    } else {
      a_.lea(rsp, a_.ptr[rbp - static_cast<int>(8 * plan_.saved_gprs.size())]);
      for (auto reg = plan_.saved_gprs.rbegin(); reg != plan_.saved_gprs.rend(); ++reg) {
        a_.pop(Reg64(*reg));
      }
    }
    a_.pop(rbp);
    a_.ret();
  }

  void PatchFrameSize() {
    uint32_t frame = 8 * (plan_.slot_count + max_temps_);
    // rsp is 16-aligned after `push rbp`; keep it so below the saved registers and the frame.
    if ((8 * plan_.saved_gprs.size() + frame) % 16 != 0) frame += 8;
    a_.rewrite(frame_size_field_, frame, 4);
  }

  // Calls a RuntimeFunction through the gate, with its arguments already in rdi, rsi, rdx.
  void CallRuntime(RuntimeFunction function) {
    a_.mov(r10, reinterpret_cast<uint64_t>(function));
    a_.mov(r11, reinterpret_cast<uint64_t>(links_.gate));
    a_.call(r11);
  }

  void EmitStubs() {
    const Function& f = program_.functions[function_];
    for (Stub& stub : stubs_) {
      SetLine(stub.line);
      a_.L(stub.entry);
      switch (stub.kind) {
        case Stub::Kind::kStackOverflow:
        case Stub::Kind::kDivisionByZero: {
          const RuntimeError error = stub.kind == Stub::Kind::kStackOverflow
                                         ? RuntimeError::kStackOverflow
                                         : RuntimeError::kDivisionByZero;
          a_.mov(rdi, reinterpret_cast<uint64_t>(links_.vm));
          a_.mov(esi, static_cast<uint32_t>(error));
          a_.mov(edx, stub.line);
          CallRuntime(links_.raise);
          a_.int3();  // raise never returns
          break;
        }
        case Stub::Kind::kDivideByMinusOne:
          // idiv faults on INT64_MIN / -1; jitvm defines x / -1 as -x and x % -1 as 0.
          if (stub.op == Op::kDiv) {
            a_.neg(rax);
          } else {
            a_.xor_(eax, eax);
          }
          a_.jmp(stub.back, kNear);
          NoteStubJump(stub.back);
          break;
        case Stub::Kind::kTierUp: {
          a_.mov(rdi, reinterpret_cast<uint64_t>(links_.vm));
          a_.mov(esi, static_cast<uint32_t>(function_));
          CallRuntime(links_.tier_up);
          a_.test(rax, rax);
          a_.jz(stub.back, kNear);  // no optimized code (yet): go on in this one
          NoteStubJump(stub.back);
          // Leave this frame as if it never existed and enter the optimized code with the
          // original arguments: the caller's return address is on top of the stack again.
          for (uint32_t p = 0; p < f.param_count; ++p) {
            a_.mov(kArgRegs[p], Slot(HomeOf(static_cast<int32_t>(p)).slot));
          }
          a_.mov(rsp, rbp);
          a_.pop(rbp);
          a_.jmp(rax);
          break;
        }
      }
    }
  }

  // ---- Statements ----

  static bool EndsWithReturn(const std::vector<std::unique_ptr<Stmt>>& body) {
    return !body.empty() && body.back()->kind == StmtKind::kReturn;
  }

  // A function body: a return that is the last statement needs no jump, its exit follows.
  void EmitBody(const std::vector<std::unique_ptr<Stmt>>& body) {
    for (size_t i = 0; i < body.size(); ++i) {
      EmitStmt(*body[i], /*falls_into_exit=*/i + 1 == body.size());
    }
  }

  void EmitBlock(const std::vector<std::unique_ptr<Stmt>>& body) {
    for (const auto& stmt : body) EmitStmt(*stmt, false);
  }

  void EmitStmt(const Stmt& s, bool falls_into_exit) {
    SetLine(s.line);
    switch (s.kind) {
      case StmtKind::kVar:
      case StmtKind::kAssign:
        EmitExpr(*s.expr);
        SetLine(s.line);
        StoreAccumulator(HomeOf(s.local), LocalType(s.local));
        break;
      case StmtKind::kIf: {
        Label otherwise;
        Label done;
        EmitBranch(*s.expr, false, otherwise);
        EmitBlock(s.body);
        if (!s.else_body.empty()) a_.jmp(done, kNear);
        a_.L(otherwise);
        EmitBlock(s.else_body);
        a_.L(done);
        break;
      }
      case StmtKind::kWhile: {
        // Rotated: the condition sits at the bottom, so each iteration takes one branch.
        Label body;
        Label condition;
        a_.jmp(condition, kNear);
        a_.L(body);
        EmitBlock(s.body);
        a_.L(condition);
        SetLine(s.line);
        EmitBranch(*s.expr, true, body);
        break;
      }
      case StmtKind::kReturn: {
        EmitExpr(*s.expr);
        SetLine(s.line);
        const Context& context = contexts_.back();
        if (context.region >= 0) {  // inlined: the result stays in the accumulator
          if (!falls_into_exit) a_.jmp(*context.exit, kNear);
          break;
        }
        if (s.expr->type == Type::kFloat) a_.movq(rax, xmm0);
        if (!falls_into_exit) a_.jmp(epilogue_, kNear);
        break;
      }
      case StmtKind::kExpr:
        EmitExpr(*s.expr);
        break;
    }
  }

  // ---- Expressions: the result goes to rax (int) or xmm0 (float) ----

  void EmitExpr(const Expr& e) {
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
  std::optional<int32_t> EmitOperands(const Expr& lhs, const Expr& rhs) {
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

  void EmitIntBinary(const Expr& e) {
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

  void EmitIntDivide(Op op, std::optional<int32_t> imm, uint32_t line) {
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

  void EmitFloatBinary(const Expr& e) {
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
  Cond FloatCompare(Op op) {
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
  void SetCondition(Cond c, bool after_ucomisd) {
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
  void EmitMaterializedCondition(const Expr& e) {
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
  void EmitBranch(const Expr& e, bool when, const Label& target) {
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

  void EmitFloatBranch(Cond c, bool when, const Label& target) {
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

  // ---- Calls ----

  void EmitCall(const Expr& e) {
    const auto& inlined = plan_.instances[Instance()].inlined_calls;
    if (auto it = inlined.find(&e); it != inlined.end()) return EmitInline(e, it->second);
    // Arguments left to right; those that need code go to temporaries first, because
    // evaluating a later one (a call) clobbers the argument registers.
    uint32_t temps[kMaxParams] = {};
    bool in_temp[kMaxParams] = {};
    uint32_t pushed = 0;
    for (size_t i = 0; i < e.operands.size(); ++i) {
      const Expr& arg = *e.operands[i];
      if (IsSimple(arg)) continue;
      EmitExpr(arg);
      temps[i] = PushTemp();
      in_temp[i] = true;
      ++pushed;
      if (arg.type == Type::kInt) {
        a_.mov(Temp(temps[i]), rax);
      } else {
        a_.movsd(Temp(temps[i]), xmm0);
      }
    }
    SetLine(e.line);
    for (size_t i = 0; i < e.operands.size(); ++i) {
      if (in_temp[i]) {
        a_.mov(kArgRegs[i], Temp(temps[i]));
      } else {
        LoadBits(kArgRegs[i], *e.operands[i]);
      }
    }
    temp_depth_ -= pushed;
    a_.mov(r11, reinterpret_cast<uint64_t>(&links_.entries[e.index]));
    a_.call(a_.qword[r11]);
    if (e.type == Type::kFloat) a_.movq(xmm0, rax);
  }

  // The callee's body in place of the call. Its code is one contiguous range of the hot region
  // (an InlineRegion with the callee's own lines); the enclosing function's line table keeps
  // the call's line for that range, so a profiler shows both frames.
  void EmitInline(const Expr& call, int32_t instance) {
    const Function& callee = program_.functions[plan_.instances[instance].function];
    for (size_t i = 0; i < call.operands.size(); ++i) {
      EmitExpr(*call.operands[i]);
      StoreAccumulator(plan_.HomeOf(instance, static_cast<int32_t>(i)), call.operands[i]->type);
    }
    SetLine(call.line);
    Label exit;
    const uint32_t start = Offset();
    const int32_t region = static_cast<int32_t>(inlines_.size());
    inlines_.push_back(
        {plan_.instances[instance].function, contexts_.back().region, start, start, {}});
    contexts_.push_back({instance, LineTableBuilder(start, callee.line), region, &exit});
    EmitBody(callee.body);
    if (!EndsWithReturn(callee.body)) {
      SetLine(callee.end_line);
      a_.xor_(eax, eax);  // falling off the end returns 0 / 0.0
      if (callee.return_type == Type::kFloat) a_.movq(xmm0, rax);
    }
    a_.L(exit);
    const uint32_t end = Offset();
    inlines_[region].end = end;
    inlines_[region].lines = contexts_.back().lines.Finish(end);
    contexts_.pop_back();
  }

  void EmitBuiltin(const Expr& e) {
    const Expr& arg = *e.operands[0];
    EmitExpr(arg);
    SetLine(e.line);
    switch (e.builtin) {
      case Builtin::kSqrt:
        a_.sqrtsd(xmm0, xmm0);
        break;
      case Builtin::kToInt:
        if (arg.type == Type::kFloat) a_.cvttsd2si(rax, xmm0);
        break;
      case Builtin::kToFloat:
        if (arg.type == Type::kInt) a_.cvtsi2sd(xmm0, rax);
        break;
      case Builtin::kPrint:
        if (arg.type == Type::kInt) {
          a_.mov(rsi, rax);
        } else {
          a_.movq(rsi, xmm0);
        }
        a_.mov(rdi, reinterpret_cast<uint64_t>(links_.vm));
        a_.mov(edx, static_cast<uint32_t>(arg.type));
        CallRuntime(links_.print);
        break;
    }
  }

  Xbyak::CodeGenerator& a_;
  const Program& program_;
  const RuntimeLinks& links_;
  const CodegenOptions& options_;
  const bool optimize_;
  const bool count_calls_;  // only baseline code counts: its parameters live in slots
  const int32_t function_;
  const FramePlan plan_;

  std::vector<Context> contexts_;
  std::vector<InlineRegion> inlines_;
  std::deque<Stub> stubs_;  // a deque: labels must not move
  std::vector<std::pair<uint32_t, const Label*>> stub_jumps_;
  LineTableBuilder cold_lines_;
  bool in_cold_ = false;
  Label epilogue_;
  uint32_t frame_size_field_ = 0;
  uint32_t temp_depth_ = 0;
  uint32_t max_temps_ = 0;
};

}  // namespace

const char* TierName(Tier tier) { return tier == Tier::kBaseline ? "baseline" : "optimized"; }

Compiler::Compiler(const Program& program, const RuntimeLinks& links)
    : program_(program), links_(links), buffer_(kMaxCodeBytes) {
  generator_ = std::make_unique<Xbyak::CodeGenerator>(buffer_.size(), buffer_.data());
  generator_->setDefaultJmpNEAR(true);
}

Compiler::~Compiler() = default;

base::StatusOr<CompiledCode> Compiler::Compile(int32_t function, const CodegenOptions& options) {
  generator_->reset();  // also clears xbyak's (thread-local) error
  FunctionCompiler compiler(*generator_, program_, links_, options, function);
  return compiler.Run();
}

}  // namespace jitscope::jitvm
