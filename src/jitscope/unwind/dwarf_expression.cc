// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/unwind/dwarf_expression.h"

#include <dwarf.h>

#include <array>

namespace jitscope::unwind {
namespace {

constexpr size_t kMaxStack = 64;
constexpr int kMaxSteps = 1000;

EvalStatus FromRead(ReadResult read) {
  switch (read) {
    case ReadResult::kOk:
      return EvalStatus::kOk;
    case ReadResult::kBeyondCopy:
      return EvalStatus::kBeyondCopy;
    case ReadResult::kUnreadable:
      break;
  }
  return EvalStatus::kUnreadable;
}

class Machine {
 public:
  explicit Machine(const ExpressionContext& context) : context_(context) {}

  bool Push(uint64_t value) {
    if (size_ == kMaxStack) return false;
    stack_[size_++] = value;
    return true;
  }
  bool Pop(uint64_t& value) {
    if (size_ == 0) return false;
    value = stack_[--size_];
    return true;
  }
  bool Top(uint64_t& value) const {
    if (size_ == 0) return false;
    value = stack_[size_ - 1];
    return true;
  }

  uint64_t Mask(uint64_t value) const {
    return context_.registers.address_size() == 4 ? value & 0xffffffffu : value;
  }

  // Runs `ops`; on success the result is on top of the stack.
  EvalStatus Run(std::span<const Dwarf_Op> ops) {
    int steps = 0;
    for (size_t i = 0; i < ops.size();) {
      if (++steps > kMaxSteps) return EvalStatus::kNoRule;
      const Dwarf_Op& op = ops[i];
      bool jumped = false;
      const EvalStatus status = Step(ops, i, op, jumped);
      if (status != EvalStatus::kOk) return status;
      if (!jumped) ++i;
    }
    return size_ == 0 ? EvalStatus::kNoRule : EvalStatus::kOk;
  }

 private:
  EvalStatus Binary(uint8_t atom) {
    uint64_t b = 0, a = 0;
    if (!Pop(b) || !Pop(a)) return EvalStatus::kNoRule;
    uint64_t r = 0;
    const auto sa = static_cast<int64_t>(a), sb = static_cast<int64_t>(b);
    switch (atom) {
      case DW_OP_plus:
        r = a + b;
        break;
      case DW_OP_minus:
        r = a - b;
        break;
      case DW_OP_mul:
        r = a * b;
        break;
      case DW_OP_and:
        r = a & b;
        break;
      case DW_OP_or:
        r = a | b;
        break;
      case DW_OP_xor:
        r = a ^ b;
        break;
      case DW_OP_shl:
        r = b >= 64 ? 0 : a << b;
        break;
      case DW_OP_shr:
        r = b >= 64 ? 0 : a >> b;
        break;
      case DW_OP_shra:
        r = static_cast<uint64_t>(b >= 64 ? (sa < 0 ? -1 : 0) : sa >> b);
        break;
      case DW_OP_div:
        if (sb == 0 || (sb == -1 && sa == INT64_MIN)) return EvalStatus::kNoRule;
        r = static_cast<uint64_t>(sa / sb);
        break;
      case DW_OP_mod:
        if (b == 0) return EvalStatus::kNoRule;
        r = a % b;
        break;
      case DW_OP_eq:
        r = sa == sb;
        break;
      case DW_OP_ne:
        r = sa != sb;
        break;
      case DW_OP_lt:
        r = sa < sb;
        break;
      case DW_OP_le:
        r = sa <= sb;
        break;
      case DW_OP_gt:
        r = sa > sb;
        break;
      case DW_OP_ge:
        r = sa >= sb;
        break;
      default:
        return EvalStatus::kNoRule;
    }
    Push(r);
    return EvalStatus::kOk;
  }

  EvalStatus Register(int reg, int64_t offset) {
    uint64_t value = 0;
    if (!context_.registers.Get(reg, value)) return EvalStatus::kNoRule;
    return Push(Mask(value + static_cast<uint64_t>(offset))) ? EvalStatus::kOk
                                                             : EvalStatus::kNoRule;
  }

  EvalStatus Step(std::span<const Dwarf_Op> ops, size_t& i, const Dwarf_Op& op, bool& jumped) {
    const uint8_t atom = op.atom;
    if (atom >= DW_OP_lit0 && atom <= DW_OP_lit31) {
      return Push(atom - DW_OP_lit0) ? EvalStatus::kOk : EvalStatus::kNoRule;
    }
    if (atom >= DW_OP_breg0 && atom <= DW_OP_breg31) {
      return Register(atom - DW_OP_breg0, static_cast<int64_t>(op.number));
    }
    uint64_t a = 0, b = 0, c = 0;
    switch (atom) {
      case DW_OP_bregx:
        if (op.number > 31) return EvalStatus::kNoRule;
        return Register(static_cast<int>(op.number), static_cast<int64_t>(op.number2));
      case DW_OP_addr:
      case DW_OP_const1u:
      case DW_OP_const1s:
      case DW_OP_const2u:
      case DW_OP_const2s:
      case DW_OP_const4u:
      case DW_OP_const4s:
      case DW_OP_const8u:
      case DW_OP_const8s:
      case DW_OP_constu:
      case DW_OP_consts:
        // libdw stores signed operands sign-extended in `number`.
        return Push(op.number) ? EvalStatus::kOk : EvalStatus::kNoRule;
      case DW_OP_call_frame_cfa:
        if (!context_.has_cfa) return EvalStatus::kNoRule;
        return Push(context_.cfa) ? EvalStatus::kOk : EvalStatus::kNoRule;
      case DW_OP_dup:
        if (!Top(a)) return EvalStatus::kNoRule;
        return Push(a) ? EvalStatus::kOk : EvalStatus::kNoRule;
      case DW_OP_drop:
        return Pop(a) ? EvalStatus::kOk : EvalStatus::kNoRule;
      case DW_OP_over:
        if (size_ < 2) return EvalStatus::kNoRule;
        return Push(stack_[size_ - 2]) ? EvalStatus::kOk : EvalStatus::kNoRule;
      case DW_OP_pick:
        if (op.number >= size_) return EvalStatus::kNoRule;
        return Push(stack_[size_ - 1 - op.number]) ? EvalStatus::kOk : EvalStatus::kNoRule;
      case DW_OP_swap:
        if (!Pop(a) || !Pop(b)) return EvalStatus::kNoRule;
        Push(a);
        Push(b);
        return EvalStatus::kOk;
      case DW_OP_rot:
        if (!Pop(a) || !Pop(b) || !Pop(c)) return EvalStatus::kNoRule;
        Push(a);
        Push(c);
        Push(b);
        return EvalStatus::kOk;
      case DW_OP_deref:
      case DW_OP_deref_size: {
        const int size =
            atom == DW_OP_deref ? context_.registers.address_size() : static_cast<int>(op.number);
        if (!Pop(a)) return EvalStatus::kNoRule;
        uint64_t word = 0;
        // deref_size may ask for 1 or 2 bytes: read the word and keep its low part.
        const int read_size = size <= 4 ? 4 : 8;
        if (size < 1 || size > 8) return EvalStatus::kNoRule;
        const EvalStatus read = FromRead(context_.memory.Read(a, read_size, word));
        if (read != EvalStatus::kOk) return read;
        if (size < 8) word &= (uint64_t{1} << (8 * size)) - 1;
        Push(word);
        return EvalStatus::kOk;
      }
      case DW_OP_abs:
        if (!Pop(a)) return EvalStatus::kNoRule;
        Push(static_cast<int64_t>(a) < 0 ? -a : a);
        return EvalStatus::kOk;
      case DW_OP_neg:
        if (!Pop(a)) return EvalStatus::kNoRule;
        Push(-a);
        return EvalStatus::kOk;
      case DW_OP_not:
        if (!Pop(a)) return EvalStatus::kNoRule;
        Push(~a);
        return EvalStatus::kOk;
      case DW_OP_plus_uconst:
        if (!Pop(a)) return EvalStatus::kNoRule;
        Push(Mask(a + op.number));
        return EvalStatus::kOk;
      case DW_OP_skip:
      case DW_OP_bra: {
        if (atom == DW_OP_bra) {
          if (!Pop(a)) return EvalStatus::kNoRule;
          if (a == 0) return EvalStatus::kOk;
        }
        // libdw gives each op's byte offset in `offset` and the branch target as a byte offset
        // from the next op in `number`: find the op that starts there.
        const uint64_t target = ops[i].offset + 3 + op.number;
        for (size_t j = 0; j < ops.size(); ++j) {
          if (ops[j].offset == target) {
            i = j;
            jumped = true;
            return EvalStatus::kOk;
          }
        }
        if (i + 1 == ops.size() || target > ops.back().offset) {
          i = ops.size();  // a jump to the end
          jumped = true;
          return EvalStatus::kOk;
        }
        return EvalStatus::kNoRule;
      }
      case DW_OP_nop:
        return EvalStatus::kOk;
      default:
        return Binary(atom);
    }
  }

  const ExpressionContext& context_;
  // Left uninitialised: only the slots below size_ are read, and clearing 512 bytes was most of
  // the cost of the one-operation expressions CFI is made of.
  std::array<uint64_t, kMaxStack> stack_;
  size_t size_ = 0;
};

// The CFA plus an offset, in the three spellings CFI uses: DW_OP_call_frame_cfa alone, with
// DW_OP_plus_uconst, or with DW_OP_consts and DW_OP_plus (jitscope's derived rules).
bool RecognizeCfaPlus(std::span<const Dwarf_Op> ops, CommonForm& form) {
  if (ops.empty() || ops[0].atom != DW_OP_call_frame_cfa) return false;
  if (ops.size() == 1) {
    form.offset = 0;
    return true;
  }
  if (ops.size() == 2 && ops[1].atom == DW_OP_plus_uconst) {
    form.offset = ops[1].number;
    form.masked = true;
    return true;
  }
  if (ops.size() == 3 && (ops[1].atom == DW_OP_consts || ops[1].atom == DW_OP_constu) &&
      ops[2].atom == DW_OP_plus) {
    form.offset = ops[1].number;
    return true;
  }
  return false;
}

uint64_t Sum(const CommonForm& form, uint64_t value, const ExpressionContext& context) {
  const uint64_t sum = value + form.offset;
  return form.masked && context.registers.address_size() == 4 ? sum & 0xffffffffu : sum;
}

}  // namespace

CommonForm RecognizeExpression(std::span<const Dwarf_Op> ops) {
  CommonForm form;
  if (ops.size() != 1) return form;
  if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
    form = {CommonForm::Kind::kRegisterPlus, true, static_cast<uint8_t>(ops[0].atom - DW_OP_breg0),
            ops[0].number};
  } else if (ops[0].atom == DW_OP_bregx && ops[0].number <= 31) {
    // libdw hands out every CFA rule of a CFI table (DW_CFA_def_cfa and its kin) as bregx.
    form = {CommonForm::Kind::kRegisterPlus, true, static_cast<uint8_t>(ops[0].number),
            ops[0].number2};
  }
  return form;
}

CommonForm RecognizeLocation(std::span<const Dwarf_Op> ops) {
  CommonForm form;
  if (ops.size() == 1 && ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31) {
    form.kind = CommonForm::Kind::kRegister;
    form.reg = static_cast<uint8_t>(ops[0].atom - DW_OP_reg0);
  } else if (!ops.empty() && ops.back().atom == DW_OP_stack_value &&
             RecognizeCfaPlus(ops.first(ops.size() - 1), form)) {
    form.kind = CommonForm::Kind::kCfaPlus;
  } else if (RecognizeCfaPlus(ops, form)) {
    form.kind = CommonForm::Kind::kAtCfaPlus;
  }
  return form;
}

EvalResult EvaluateExpression(std::span<const Dwarf_Op> ops, const CommonForm& form,
                              const ExpressionContext& context) {
  if (form.kind != CommonForm::Kind::kRegisterPlus) return EvaluateExpression(ops, context);
  uint64_t value = 0;
  if (!context.registers.Get(form.reg, value)) return {EvalStatus::kNoRule, 0};
  return {EvalStatus::kOk, Sum(form, value, context)};
}

EvalResult EvaluateLocation(std::span<const Dwarf_Op> ops, const CommonForm& form,
                            const ExpressionContext& context) {
  uint64_t value = 0;
  switch (form.kind) {
    case CommonForm::Kind::kNone:
    case CommonForm::Kind::kRegisterPlus:
      break;
    case CommonForm::Kind::kRegister:
      if (!context.registers.Get(form.reg, value)) return {EvalStatus::kNoRule, 0};
      return {EvalStatus::kOk, value};
    case CommonForm::Kind::kCfaPlus:
      if (!context.has_cfa) return {EvalStatus::kNoRule, 0};
      return {EvalStatus::kOk, Sum(form, context.cfa, context)};
    case CommonForm::Kind::kAtCfaPlus: {
      if (!context.has_cfa) return {EvalStatus::kNoRule, 0};
      const ReadResult read = context.memory.Read(Sum(form, context.cfa, context),
                                                  context.registers.address_size(), value);
      return {FromRead(read), value};
    }
  }
  return EvaluateLocation(ops, context);
}

EvalResult EvaluateExpression(std::span<const Dwarf_Op> ops, const ExpressionContext& context) {
  if (ops.empty()) return {EvalStatus::kNoRule, 0};
  Machine machine(context);
  const EvalStatus status = machine.Run(ops);
  EvalResult result{status, 0};
  if (status == EvalStatus::kOk) machine.Top(result.value);
  return result;
}

EvalResult EvaluateLocation(std::span<const Dwarf_Op> ops, const ExpressionContext& context) {
  if (ops.empty()) return {EvalStatus::kNoRule, 0};
  if (ops.size() == 1 && ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31) {
    uint64_t value = 0;
    if (!context.registers.Get(ops[0].atom - DW_OP_reg0, value)) return {EvalStatus::kNoRule, 0};
    return {EvalStatus::kOk, value};
  }
  if (ops.size() == 1 && ops[0].atom == DW_OP_regx) {
    uint64_t value = 0;
    if (ops[0].number > 31 || !context.registers.Get(static_cast<int>(ops[0].number), value)) {
      return {EvalStatus::kNoRule, 0};
    }
    return {EvalStatus::kOk, value};
  }
  if (ops.back().atom == DW_OP_stack_value) {
    return EvaluateExpression(ops.first(ops.size() - 1), context);
  }
  EvalResult address = EvaluateExpression(ops, context);
  if (address.status != EvalStatus::kOk) return address;
  uint64_t word = 0;
  const EvalStatus read =
      FromRead(context.memory.Read(address.value, context.registers.address_size(), word));
  return {read, word};
}

}  // namespace jitscope::unwind
