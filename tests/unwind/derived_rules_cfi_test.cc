// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The analysis against an oracle: the compiler's own call-frame information (rule_agreement.h).
// Every function of this test program (optimised C++ from jitscope's and gtest's sources, and in
// sanitized builds the sanitizer runtime) is analysed from its bytes as if it were JIT code, and
// wherever the analysis claims a rule whose CFA has the same base register as the CFI row there,
// the two must agree on the offset, and on the slot of every callee-saved register both say is
// saved.
#include <link.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/unwind/cfi_module.h"
#include "jitscope/unwind/derived_rules.h"
#include "unwind/rule_agreement.h"

namespace jitscope::unwind {
namespace {

uint64_t MainProgramBias() {
  uint64_t bias = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        *static_cast<uint64_t*>(data) = info->dlpi_addr;
        return 1;  // the first entry is the program itself
      },
      &bias);
  return bias;
}

TEST(DerivedRulesCfiTest, AgreesWithTheCompilersCfiWhereBothHaveARule) {
  const std::string path = "/proc/self/exe";
  auto module = CfiModule::Open(path);
  ASSERT_TRUE(module.ok()) << module.status().message();
  const std::vector<testing::ElfFunction> functions = testing::ElfFunctions(path);
  ASSERT_GT(functions.size(), 1000u);
  const uint64_t bias = MainProgramBias();
  auto decoder = disasm::Decoder::Create(disasm::Mode::kX86_64);
  ASSERT_TRUE(decoder.has_value());
  testing::RuleAgreement all;
  for (const testing::ElfFunction& f : functions) {
    const auto* code = reinterpret_cast<const uint8_t*>(bias + f.address);
    all.Add(testing::CompareWithCfi(*decoder, std::span<const uint8_t>(code, f.size), f.address,
                                    **module, f.address));
  }
  const uint64_t same_base = all.compared - all.other_base;
  EXPECT_GT(same_base, 25000u) << all.Describe();
  EXPECT_GT(all.saved_compared, 25000u) << all.Describe();
  // The oracle is not exact everywhere either: LLVM leaves the `add rsp, 8` of an epilogue in the
  // middle of a function without a CFA update (clang's sanitizer runtime has a few), and
  // hand-written clone code switches stacks in a syscall. GCC's CFI of this program agrees at every
  // instruction compared; any real disagreement would be many.
  EXPECT_LE(all.saved_differs * 10000, all.saved_compared) << all.Describe();
  EXPECT_LE(all.cfa_differs * 10000, same_base) << all.Describe();
}

}  // namespace
}  // namespace jitscope::unwind
