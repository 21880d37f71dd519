// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The forms of CFI rules a step computes without the expression machine (RecognizeExpression)
// must compute what the machine does.
#include "jitscope/unwind/dwarf_expression.h"

#include <dwarf.h>

#include <vector>

#include <gtest/gtest.h>

namespace jitscope::unwind {
namespace {

Dwarf_Op Op(uint8_t atom, Dwarf_Word number = 0, Dwarf_Word number2 = 0) {
  Dwarf_Op op{};
  op.atom = atom;
  op.number = number;
  op.number2 = number2;
  return op;
}

// The value of `ops` as a CFA rule, through the recognised form and through the machine.
void ExpectSameBothWays(const std::vector<Dwarf_Op>& ops, const RegisterFile& registers,
                        uint64_t expected) {
  const StackMemory memory;
  const ExpressionContext context{registers, memory};
  const CommonForm form = RecognizeExpression(ops);
  EXPECT_EQ(form.kind, CommonForm::Kind::kRegisterPlus);
  const EvalResult fast = EvaluateExpression(ops, form, context);
  const EvalResult machine = EvaluateExpression(ops, context);
  EXPECT_EQ(fast.status, EvalStatus::kOk);
  EXPECT_EQ(machine.status, EvalStatus::kOk);
  EXPECT_EQ(fast.value, expected);
  EXPECT_EQ(machine.value, expected);
}

TEST(DwarfExpressionTest, ARegisterPlusAnOffsetIsRecognisedInBothEncodings) {
  RegisterFile registers = RegisterFile::X86_64();
  registers.Set(7, 0x7ffc0000);  // rsp
  registers.Set(6, 0x7ffd0000);  // rbp
  ExpectSameBothWays({Op(DW_OP_breg7, 8)}, registers, 0x7ffc0008);
  // libdw hands out every CFA rule of a CFI table (DW_CFA_def_cfa) this way.
  ExpectSameBothWays({Op(DW_OP_bregx, 6, 16)}, registers, 0x7ffd0010);
  ExpectSameBothWays({Op(DW_OP_bregx, 7, static_cast<Dwarf_Word>(-8))}, registers, 0x7ffbfff8);
}

TEST(DwarfExpressionTest, AnI386SumIsCutToTheAddressSizeInBothEncodings) {
  RegisterFile registers = RegisterFile::I386();
  registers.Set(4, 0xfffffff0);  // esp
  ExpectSameBothWays({Op(DW_OP_breg4, 0x20)}, registers, 0x10);
  ExpectSameBothWays({Op(DW_OP_bregx, 4, 0x20)}, registers, 0x10);
}

TEST(DwarfExpressionTest, OtherExpressionsAreLeftToTheMachine) {
  EXPECT_EQ(RecognizeExpression(std::vector<Dwarf_Op>{Op(DW_OP_bregx, 40, 8)}).kind,
            CommonForm::Kind::kNone);
  EXPECT_EQ(RecognizeExpression(std::vector<Dwarf_Op>{Op(DW_OP_breg7, 8), Op(DW_OP_deref)}).kind,
            CommonForm::Kind::kNone);
  EXPECT_EQ(RecognizeExpression(std::vector<Dwarf_Op>{}).kind, CommonForm::Kind::kNone);
}

}  // namespace
}  // namespace jitscope::unwind
