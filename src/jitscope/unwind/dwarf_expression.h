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

// Evaluates `ops` as a DWARF expression: the value on top of the stack.
EvalResult EvaluateExpression(std::span<const Dwarf_Op> ops, const ExpressionContext& context);

// Evaluates `ops` as a location description (what dwarf_frame_register returns for a register
// saved somewhere): a register location (DW_OP_regN) yields that register's value, an expression
// ending in DW_OP_stack_value yields its value, any other expression the word in memory at the
// address it computes.
EvalResult EvaluateLocation(std::span<const Dwarf_Op> ops, const ExpressionContext& context);

}  // namespace jitscope::unwind
