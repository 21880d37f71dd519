// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// libFuzzer target for the unwinder on hostile samples: any registers and stack bytes must give a
// walk that ends, bounded, with a reason — never a crash or a read outside the stack copy. The
// code is the fuzzer's own executable, so the walk meets real CFI rows (frame setups, PLT
// expressions) with registers and stack words that point anywhere. Input: the 17 x86-64 DWARF
// registers (8 bytes each, the return-address slot being the pc), then the stack copy, which
// starts at rsp. The same bytes are also evaluated as a DWARF expression of (atom, operand)
// pairs, which reaches operations CFI rarely uses (branches, arithmetic, deref_size). A walk cut
// short by the copy is carried on through frame records by a chain made of the stack's words.
#include <dwarf.h>
#include <elfutils/libdw.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "jitscope/unwind/dwarf_expression.h"
#include "jitscope/unwind/frame_records.h"
#include "jitscope/unwind/unwinder.h"

namespace {

using jitscope::unwind::AddressSpace;
using jitscope::unwind::CfiModule;
using jitscope::unwind::ModuleAt;

// Every pc below 256 MiB is taken as an address of the fuzzer's own file, unbiased.
class OwnExecutable : public AddressSpace {
 public:
  OwnExecutable() {
    auto module = CfiModule::Open("/proc/self/exe");
    if (module.ok()) module_ = std::move(*module);
  }
  bool Find(uint64_t pc, ModuleAt& found) override {
    if (module_ == nullptr || pc >= (uint64_t{256} << 20)) return false;
    found = {module_.get(), 0};
    return true;
  }

 private:
  std::unique_ptr<CfiModule> module_;
};

constexpr size_t kRegisterBytes = 17 * 8;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static OwnExecutable space;
  if (size < kRegisterBytes) return 0;
  jitscope::unwind::RegisterFile registers = jitscope::unwind::RegisterFile::X86_64();
  for (int reg = 0; reg < 17; ++reg) {
    uint64_t value = 0;
    std::memcpy(&value, data + 8 * reg, sizeof(value));
    registers.Set(reg, value);
  }
  const std::string_view stack(reinterpret_cast<const char*>(data) + kRegisterBytes,
                               size - kRegisterBytes);
  const jitscope::unwind::StackMemory memory(registers.sp(), stack);
  jitscope::unwind::UnwindResult result;
  jitscope::unwind::Unwind(registers, memory, space, {.max_frames = 64}, result);
  if (result.frames.size() > 64) __builtin_trap();
  // A walk cut short goes on by a frame-pointer chain: here the stack's words taken as one,
  // after the sampled pc, so it points anywhere.
  if (result.reason == jitscope::unwind::StopReason::kStackCopyTooShort) {
    std::vector<uint64_t> chain = {registers.pc()};
    for (size_t i = kRegisterBytes; i + 8 <= size && chain.size() < 128; i += 8) {
      uint64_t word = 0;
      std::memcpy(&word, data + i, sizeof(word));
      chain.push_back(word);
    }
    jitscope::unwind::ContinueThroughFrameRecords(registers, memory, chain, space,
                                                  {.max_frames = 64}, result);
    if (result.frames.size() > 64) __builtin_trap();
  }

  std::vector<Dwarf_Op> ops;
  for (size_t i = kRegisterBytes; i + 3 <= size && ops.size() < 64; i += 3) {
    Dwarf_Op op{};
    op.atom = data[i];
    op.number = static_cast<int8_t>(data[i + 1]);
    op.number2 = data[i + 2];
    op.offset = i - kRegisterBytes;
    ops.push_back(op);
  }
  const jitscope::unwind::ExpressionContext context{registers, memory, registers.sp(), true};
  (void)jitscope::unwind::EvaluateExpression(ops, context);
  (void)jitscope::unwind::EvaluateLocation(ops, context);
  return 0;
}
