// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The code generator behind Compiler (codegen.h), internal to it: one FunctionCompiler emits one
// function, for one tier, into an xbyak buffer. Its work is split in two files:
//   function_compiler.cc    the frame (prologue, epilogue, slow-path stubs), statements, calls
//                           and inlining, line tables and the hot/cold split
//   expression_compiler.cc  values: operands, arithmetic, comparisons, conditional branches
//
// Register use inside a function: the accumulator is rax (ints) or xmm0 (floats); rcx and xmm1
// hold a right operand; rdx is idiv's; r10 and r11 are scratch for addresses and constants;
// rbx, r12-r15 (and rbp, without frame pointers) and xmm8-xmm15 hold locals (frame_plan.h);
// temporaries live in frame slots, so rsp never moves inside the body.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <utility>
#include <vector>

#include <xbyak/xbyak.h>

#include "ast.h"
#include "codegen.h"
#include "compiled_code.h"
#include "constant_folding.h"
#include "frame_plan.h"
#include "line_table.h"

namespace jitscope::jitvm {

inline constexpr auto kNear = Xbyak::CodeGenerator::T_NEAR;

// Conditions after `cmp` (signed ints) or `ucomisd` (floats: above/above-or-equal, and the
// equalities, which must also look at the parity flag that marks a NaN operand).
enum class Cond : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe, kAbove, kAboveEq };

// A slow path, emitted after the function's main code: in the same region (baseline) or in the
// cold region (optimizing tier).
struct Stub {
  enum class Kind : uint8_t { kStackOverflow, kDivisionByZero, kDivideByMinusOne, kTierUp };
  Kind kind = Kind::kStackOverflow;
  Op op = Op::kDiv;
  uint32_t line = 0;
  Xbyak::Label entry;  // where the main code jumps in
  Xbyak::Label back;   // where the stub resumes the main code, if it does
};

// The code being emitted for one function or one inlined instance of a callee.
struct Context {
  int32_t instance;        // index in FramePlan::instances
  LineTableBuilder lines;  // its line table (the callee's lines for an inlined instance)
  int32_t region;          // its InlineRegion, or -1 for the compiled function itself
  Xbyak::Label* exit;      // inlined instance: where its returns go
};

class FunctionCompiler {
 public:
  FunctionCompiler(Xbyak::CodeGenerator& a, const Program& program, const RuntimeLinks& links,
                   const CodegenOptions& options, int32_t function);

  base::StatusOr<CompiledCode> Run();

 private:
  using Address = Xbyak::Address;
  using Label = Xbyak::Label;
  using Reg64 = Xbyak::Reg64;
  using Xmm = Xbyak::Xmm;

  // ---- Positions, lines, frame slots (function_compiler.cc) ----
  uint32_t Offset() const { return static_cast<uint32_t>(a_.getSize()); }
  void SetLine(uint32_t line);
  int32_t Instance() const { return contexts_.back().instance; }
  const Function& CurrentFunction() const;
  const Home& HomeOf(int32_t local) const { return plan_.HomeOf(Instance(), local); }
  Type LocalType(int32_t local) const { return CurrentFunction().locals[local].type; }
  Address Slot(uint32_t slot) const;
  Address Temp(uint32_t temp) const { return Slot(plan_.slot_count + temp); }
  uint32_t PushTemp();

  // ---- Slow paths and the frame (function_compiler.cc) ----
  Stub& AddStub(Stub::Kind kind, uint32_t line, Op op = Op::kDiv);
  // Remembers the rel32 field just emitted: it must be re-aimed if its target ends up in the
  // other region of a split function.
  void NoteStubJump(const Label& target) { stub_jumps_.push_back({Offset() - 4, &target}); }
  void EmitPrologue(const Function& f);
  void EmitEpilogue();
  void EmitLeaveFrame();
  void PatchFrameSize();
  void CallRuntime(RuntimeFunction function);
  void EmitStubs();

  // ---- Statements, calls, inlining (function_compiler.cc) ----
  static bool EndsWithReturn(const std::vector<std::unique_ptr<Stmt>>& body);
  void EmitBody(const std::vector<std::unique_ptr<Stmt>>& body);
  void EmitBlock(const std::vector<std::unique_ptr<Stmt>>& body);
  void EmitStmt(const Stmt& s, bool falls_into_exit);
  void EmitCall(const Expr& e);
  void EmitInline(const Expr& call, int32_t instance);
  void EmitBuiltin(const Expr& e);

  // ---- Values: the result goes to rax (int) or xmm0 (float) (expression_compiler.cc) ----
  // The value of `e` if the optimizing tier folds it now.
  std::optional<uint64_t> Constant(const Expr& e) const {
    return optimize_ ? FoldConstant(e) : std::nullopt;
  }
  bool IsSimple(const Expr& e) const;
  void LoadIntConstant(const Reg64& reg, uint64_t bits);
  void LoadFloatConstant(const Xmm& xmm, uint64_t bits);
  void LoadBits(const Reg64& reg, const Expr& e);
  void LoadFloat(const Xmm& xmm, const Expr& e);
  void StoreAccumulator(const Home& home, Type type);
  void EmitExpr(const Expr& e);
  std::optional<int32_t> EmitOperands(const Expr& lhs, const Expr& rhs);
  void EmitIntBinary(const Expr& e);
  void EmitIntDivide(Op op, std::optional<int32_t> imm, uint32_t line);
  void EmitFloatBinary(const Expr& e);
  Cond FloatCompare(Op op);
  void SetCondition(Cond c, bool after_ucomisd);
  void EmitMaterializedCondition(const Expr& e);
  void EmitBranch(const Expr& e, bool when, const Label& target);
  void EmitFloatBranch(Cond c, bool when, const Label& target);
  void Jump(Cond c, const Label& target);

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
  std::vector<uint32_t> frame_size_fields_;  // the imm32s that hold the frame's size
  uint32_t temp_depth_ = 0;
  uint32_t max_temps_ = 0;
};

}  // namespace jitscope::jitvm
