// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/unwind/registers.h"

#include <asm/perf_regs.h>
#include <linux/perf_event.h>

namespace jitscope::unwind {
namespace {

// perf_event_x86_regs index of each DWARF register.
constexpr std::array<int, 17> kX86_64FromPerf = {
    PERF_REG_X86_AX,  PERF_REG_X86_DX,  PERF_REG_X86_CX,  PERF_REG_X86_BX,  PERF_REG_X86_SI,
    PERF_REG_X86_DI,  PERF_REG_X86_BP,  PERF_REG_X86_SP,  PERF_REG_X86_R8,  PERF_REG_X86_R9,
    PERF_REG_X86_R10, PERF_REG_X86_R11, PERF_REG_X86_R12, PERF_REG_X86_R13, PERF_REG_X86_R14,
    PERF_REG_X86_R15, PERF_REG_X86_IP};
constexpr std::array<int, 9> kI386FromPerf = {PERF_REG_X86_AX, PERF_REG_X86_CX, PERF_REG_X86_DX,
                                              PERF_REG_X86_BX, PERF_REG_X86_SP, PERF_REG_X86_BP,
                                              PERF_REG_X86_SI, PERF_REG_X86_DI, PERF_REG_X86_IP};

template <size_t N>
void Fill(RegisterFile& file, const session::UserRegs& regs, const std::array<int, N>& from,
          uint64_t truncate) {
  for (size_t reg = 0; reg < N; ++reg) {
    const int perf = from[reg];
    if (((regs.mask >> perf) & 1) == 0) continue;
    file.Set(static_cast<int>(reg), regs.values[static_cast<size_t>(perf)] & truncate);
  }
}

}  // namespace

RegisterFile RegisterFile::FromPerf(const session::UserRegs& regs) {
  if (regs.abi == PERF_SAMPLE_REGS_ABI_64) {
    RegisterFile file = X86_64();
    Fill(file, regs, kX86_64FromPerf, ~uint64_t{0});
    return file;
  }
  if (regs.abi == PERF_SAMPLE_REGS_ABI_32) {
    RegisterFile file = I386();
    Fill(file, regs, kI386FromPerf, 0xffffffffu);
    return file;
  }
  return RegisterFile();
}

}  // namespace jitscope::unwind
