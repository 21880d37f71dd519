// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "function_compiler.h"

#include "semantics.h"

namespace jitscope::jitvm {
namespace {

using namespace Xbyak::util;  // NOLINT: register names read like assembly

const Xbyak::Reg64 kArgRegs[kMaxParams] = {rdi, rsi, rdx, rcx, r8, r9};

}  // namespace

FunctionCompiler::FunctionCompiler(Xbyak::CodeGenerator& a, const Program& program,
                                   const RuntimeLinks& links, const CodegenOptions& options,
                                   int32_t function)
    : a_(a),
      program_(program),
      links_(links),
      options_(options),
      optimize_(options.tier == Tier::kOptimized),
      count_calls_(options.count_calls && !optimize_),
      function_(function),
      plan_(PlanFrame(program, function, optimize_, options.inlining, !options.frame_pointers)),
      cold_lines_(0, 0) {}

base::StatusOr<CompiledCode> FunctionCompiler::Run() {
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
      out.relocations.push_back({field, static_cast<uint32_t>(label->getAddress() - a_.getCode())});
    }
  }
  out.inlines = std::move(inlines_);
  return out;
}

void FunctionCompiler::SetLine(uint32_t line) {
  (in_cold_ ? cold_lines_ : contexts_.back().lines).Mark(Offset(), line);
}

const Function& FunctionCompiler::CurrentFunction() const {
  return program_.functions[plan_.instances[Instance()].function];
}

FunctionCompiler::Address FunctionCompiler::Slot(uint32_t slot) const {
  if (!options_.frame_pointers) return a_.qword[rsp + static_cast<int>(8 * slot)];
  return a_.qword[rbp - static_cast<int>(8 * plan_.saved_gprs.size() + 8 * (slot + 1))];
}

uint32_t FunctionCompiler::PushTemp() {
  const uint32_t temp = temp_depth_++;
  if (temp_depth_ > max_temps_) max_temps_ = temp_depth_;
  return temp;
}

Stub& FunctionCompiler::AddStub(Stub::Kind kind, uint32_t line, Op op) {
  Stub& stub = stubs_.emplace_back();
  stub.kind = kind;
  stub.line = line;
  stub.op = op;
  return stub;
}

void FunctionCompiler::EmitPrologue(const Function& f) {
  if (options_.frame_pointers) {
    a_.push(rbp);
    a_.mov(rbp, rsp);
  }
  for (uint8_t reg : plan_.saved_gprs) a_.push(Reg64(reg));
  // The frame size is known once the body is emitted (temporaries); PatchFrameSize() fills in
  // this imm32.
  a_.sub(rsp, 0x7ffffff0);
  frame_size_fields_.push_back(Offset() - 4);
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

void FunctionCompiler::EmitEpilogue() {
  for (size_t i = 0; i < plan_.saved_xmms.size(); ++i) {
    a_.movsd(Xmm(plan_.saved_xmms[i]), Slot(plan_.xmm_save_slots[i]));
  }
  EmitLeaveFrame();
  a_.ret();
}

// Pops the frame the prologue built: the caller's return address is on top of the stack again.
void FunctionCompiler::EmitLeaveFrame() {
  if (!options_.frame_pointers) {
    a_.add(rsp, 0x7ffffff0);  // the frame size, filled in by PatchFrameSize()
    frame_size_fields_.push_back(Offset() - 4);
  } else if (plan_.saved_gprs.empty()) {
    a_.mov(rsp, rbp);
  } else {
    a_.lea(rsp, a_.ptr[rbp - static_cast<int>(8 * plan_.saved_gprs.size())]);
  }
  for (auto reg = plan_.saved_gprs.rbegin(); reg != plan_.saved_gprs.rend(); ++reg) {
    a_.pop(Reg64(*reg));
  }
  if (options_.frame_pointers) a_.pop(rbp);
}

void FunctionCompiler::PatchFrameSize() {
  uint32_t frame = 8 * (plan_.slot_count + max_temps_);
  // At entry rsp is 8 mod 16 (the return address); keep it 16-aligned below the saved
  // registers (and rbp, with frame pointers) and the frame.
  const size_t pushed = 8 + 8 * plan_.saved_gprs.size() + (options_.frame_pointers ? 8 : 0);
  if ((pushed + frame) % 16 != 0) frame += 8;
  for (uint32_t field : frame_size_fields_) a_.rewrite(field, frame, 4);
}

// Calls a RuntimeFunction through the gate, with its arguments already in rdi, rsi, rdx.
void FunctionCompiler::CallRuntime(RuntimeFunction function) {
  a_.mov(r10, reinterpret_cast<uint64_t>(function));
  a_.mov(r11, reinterpret_cast<uint64_t>(links_.gate));
  a_.call(r11);
}

void FunctionCompiler::EmitStubs() {
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
        EmitLeaveFrame();
        a_.jmp(rax);
        break;
      }
    }
  }
}

bool FunctionCompiler::EndsWithReturn(const std::vector<std::unique_ptr<Stmt>>& body) {
  return !body.empty() && body.back()->kind == StmtKind::kReturn;
}

// A function body: a return that is the last statement needs no jump, its exit follows.
void FunctionCompiler::EmitBody(const std::vector<std::unique_ptr<Stmt>>& body) {
  for (size_t i = 0; i < body.size(); ++i) {
    EmitStmt(*body[i], /*falls_into_exit=*/i + 1 == body.size());
  }
}

void FunctionCompiler::EmitBlock(const std::vector<std::unique_ptr<Stmt>>& body) {
  for (const auto& stmt : body) EmitStmt(*stmt, false);
}

void FunctionCompiler::EmitStmt(const Stmt& s, bool falls_into_exit) {
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

void FunctionCompiler::EmitCall(const Expr& e) {
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
void FunctionCompiler::EmitInline(const Expr& call, int32_t instance) {
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

void FunctionCompiler::EmitBuiltin(const Expr& e) {
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

}  // namespace jitscope::jitvm
