// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The register file an unwind walks with: the general-purpose registers of one frame, numbered
// as DWARF numbers them for the sample's ABI (System V psABI x86-64 §3.6.2: rax 0, rdx 1, rcx 2,
// rbx 3, rsi 4, rdi 5, rbp 6, rsp 7, r8–r15 8–15, return address 16; i386 psABI: eax 0, ecx 1,
// edx 2, ebx 3, esp 4, ebp 5, esi 6, edi 7, eip 8). Each register is known or not: a caller's
// call-clobbered registers are not recoverable, and a rule that needs one fails.
#pragma once

#include <array>
#include <cstdint>

#include "jitscope/session/perf_record.h"

namespace jitscope::unwind {

inline constexpr int kMaxDwarfRegisters = 17;

class RegisterFile {
 public:
  // The registers of a sample (PERF_SAMPLE_REGS_USER) in DWARF numbering, 64- or 32-bit by the
  // sample's `abi`. A sample without user registers (abi NONE: a kernel thread) gives an empty
  // file (is_valid() false).
  static RegisterFile FromPerf(const session::UserRegs& regs);
  static RegisterFile X86_64() { return RegisterFile(8, 7, 16, 17); }
  static RegisterFile I386() { return RegisterFile(4, 4, 8, 9); }

  bool is_valid() const { return count_ != 0; }
  int address_size() const { return address_size_; }
  int count() const { return count_; }
  int sp_register() const { return sp_; }
  int pc_register() const { return pc_; }

  bool Has(int reg) const { return reg >= 0 && reg < count_ && ((known_ >> reg) & 1) != 0; }
  bool Get(int reg, uint64_t& value) const {
    if (!Has(reg)) return false;
    value = values_[static_cast<size_t>(reg)];
    return true;
  }
  void Set(int reg, uint64_t value) {
    if (reg < 0 || reg >= count_) return;
    if (address_size_ == 4) value &= 0xffffffffu;
    values_[static_cast<size_t>(reg)] = value;
    known_ |= uint32_t{1} << reg;
  }
  void Forget(int reg) {
    if (reg >= 0 && reg < count_) known_ &= ~(uint32_t{1} << reg);
  }
  // The same ABI, nothing known: the caller's file an unwind step fills in.
  RegisterFile EmptyLike() const { return RegisterFile(address_size_, sp_, pc_, count_); }

  uint64_t pc() const { return values_[static_cast<size_t>(pc_)]; }
  uint64_t sp() const { return values_[static_cast<size_t>(sp_)]; }

  RegisterFile() = default;

 private:
  RegisterFile(int address_size, int sp, int pc, int count)
      : address_size_(address_size), sp_(sp), pc_(pc), count_(count) {}

  int address_size_ = 8;
  int sp_ = 7;
  int pc_ = 16;
  int count_ = 0;
  uint32_t known_ = 0;
  std::array<uint64_t, kMaxDwarfRegisters> values_{};
};

}  // namespace jitscope::unwind
