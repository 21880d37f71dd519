// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Evaluates the DWARF expressions of call-frame information (DWARF 5 §2.5, §6.4.2) over one
// register file and the sample's stack copy: the CFA rule (DW_CFA_def_cfa* and
// DW_CFA_def_cfa_expression, which glibc's PLT entries use) and the register rules libdw hands
// out as location descriptions (offset(N), val_offset(N), register(R), expression,
// val_expression). Bounded: a fixed stack depth and a step limit, so hostile CFI cannot loop.
#pragma once

#include <elfutils/libdw.h>

#include <cstdint>
#include <span>

#include "jitscope/unwind/registers.h"
#include "jitscope/unwind/stack_memory.h"

namespace jitscope::unwind {

enum class EvalStatus : uint8_t {
  kOk,
  kNoRule,      // an operation we do not evaluate, or a register the expression needs is unknown
  kBeyondCopy,  // it reads past the end of the stack copy
  kUnreadable,  // it reads memory the sample does not hold
};

struct EvalResult {
  EvalStatus status = EvalStatus::kOk;
  uint64_t value = 0;
};

struct ExpressionContext {
  const RegisterFile& registers;
  const StackMemory& memory;
  uint64_t cfa = 0;  // DW_OP_call_frame_cfa's value (the CFA rule itself never uses it)
  bool has_cfa = false;
};

// An expression or location description in one of the forms nearly every CFI rule takes,
// recognised once when a row is made (Recognize*), so that a step computes it without running the
// expression machine: at a million samples of ten frames each, that machine was a tenth of a
// report's time.
struct CommonForm {
  enum class Kind : uint8_t {
    kNone,          // none of these: run the machine
    kRegisterPlus,  // a register's value plus `offset` (DW_OP_bregN: the CFA of most rows)
    kCfaPlus,       // the CFA plus `offset` (a location ending in DW_OP_stack_value)
    kAtCfaPlus,     // the word at the CFA plus `offset` (offset(N): a saved register)
    kRegister,      // a register's value (DW_OP_regN)
  };
  Kind kind = Kind::kNone;
  bool masked = false;  // the sum is cut to the address size, as DW_OP_bregN and plus_uconst do
  uint8_t reg = 0;
  uint64_t offset = 0;
};
CommonForm RecognizeExpression(std::span<const Dwarf_Op> ops);
CommonForm RecognizeLocation(std::span<const Dwarf_Op> ops);

// Evaluates `ops` as a DWARF expression: the value on top of the stack.
EvalResult EvaluateExpression(std::span<const Dwarf_Op> ops, const ExpressionContext& context);
// The same, given the form RecognizeExpression found in `ops`.
EvalResult EvaluateExpression(std::span<const Dwarf_Op> ops, const CommonForm& form,
                              const ExpressionContext& context);

// Evaluates `ops` as a location description (what dwarf_frame_register returns for a register
// saved somewhere): a register location (DW_OP_regN) yields that register's value, an expression
// ending in DW_OP_stack_value yields its value, any other expression the word in memory at the
// address it computes.
EvalResult EvaluateLocation(std::span<const Dwarf_Op> ops, const ExpressionContext& context);
// The same, given the form RecognizeLocation found in `ops`.
EvalResult EvaluateLocation(std::span<const Dwarf_Op> ops, const CommonForm& form,
                            const ExpressionContext& context);

}  // namespace jitscope::unwind
