// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// libFuzzer target for the stack-height analysis (unwind/derived_rules.h) on hostile code bytes:
// any bytes must give rules (or none) in bounded time, never a crash or a read outside the
// regions, analysed as one function and as functions laid end to end. Input: a 2-byte little-endian
// split point, then the code. The code before the split is one region at 0x10000 (the entry), the
// rest a second region 64 KiB further on, so direct jumps between them carry heights as in a split
// function. Every byte's rule is then looked up, and a walk is run through the rules over a fake
// stack made of the code bytes themselves. The effect of a call to the last region
// (unwind/call_effect.h) is found from the same bytes, and is what every direct call of the
// analysis does.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

#include "jitscope/unwind/call_effect.h"
#include "jitscope/unwind/derived_rules.h"
#include "jitscope/unwind/unwinder.h"

namespace {

using jitscope::unwind::CodeRegion;
using jitscope::unwind::DerivedRules;

constexpr uint64_t kHot = 0x10000;
constexpr uint64_t kCold = 0x20000;

class JitOnly : public jitscope::unwind::AddressSpace {
 public:
  explicit JitOnly(const DerivedRules& rules) : rules_(rules) {}
  bool Find(uint64_t pc, jitscope::unwind::ModuleAt& found) override {
    if (rules_.Find(pc) == nullptr && !rules_.IsReturnAddress(pc + 1)) return false;
    found = {nullptr, 0, &rules_};
    return true;
  }

 private:
  const DerivedRules& rules_;
};

class EveryCallTo : public jitscope::unwind::CallTargets {
 public:
  explicit EveryCallTo(const jitscope::unwind::CallEffect* effect) : effect_(effect) {}
  const jitscope::unwind::CallEffect* EffectOf(uint64_t) override { return effect_; }

 private:
  const jitscope::unwind::CallEffect* effect_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto decoder = jitscope::disasm::Decoder::Create(jitscope::disasm::Mode::kX86_64);
  if (!decoder || size < 2) return 0;
  size_t split = data[0] | (size_t{data[1]} << 8);
  const std::span<const uint8_t> code(data + 2, size - 2);
  if (split > code.size()) split = code.size();
  std::vector<CodeRegion> regions = {{kHot, code.first(split)}};
  if (split < code.size()) regions.push_back({kCold, code.subspan(split)});
  if (regions[0].bytes.empty()) regions.erase(regions.begin());
  if (regions.empty()) return 0;
  const auto effect = jitscope::unwind::CallEffect::Of(*decoder, regions, regions.back().address);
  EveryCallTo targets(effect ? &*effect : nullptr);
  const DerivedRules rules = DerivedRules::Analyze(*decoder, regions, &targets);
  // The same bytes as functions laid end to end (a perf map's blob of stubs): more entries, the
  // same bounds.
  const DerivedRules stubs = DerivedRules::Analyze(*decoder, regions, &targets,
                                                   jitscope::unwind::CodeBlock::kFunctionsEndToEnd);
  for (const DerivedRules* analysed : {&rules, &stubs}) {
    uint64_t claimed = 0;
    for (const CodeRegion& region : regions) {
      for (size_t i = 0; i < region.bytes.size(); ++i) {
        if (analysed->Find(region.address + i) != nullptr) {
          ++claimed;
          if (analysed->FindRow(region.address + i) == nullptr) __builtin_trap();
        }
        (void)analysed->IsReturnAddress(region.address + i);
      }
    }
    if (claimed > size) __builtin_trap();
  }

  // A walk from the entry with the code as the stack copy.
  jitscope::unwind::RegisterFile registers = jitscope::unwind::RegisterFile::X86_64();
  for (int reg = 0; reg < 17; ++reg) registers.Set(reg, 0x7ff000000000 + 8 * reg);
  registers.Set(7, 0x7ff000000000);
  registers.Set(16, regions[0].address);
  const jitscope::unwind::StackMemory stack(
      0x7ff000000000, std::string_view(reinterpret_cast<const char*>(data), size));
  JitOnly space(rules);
  jitscope::unwind::UnwindResult result;
  jitscope::unwind::Unwind(registers, stack, space, {}, result);
  if (result.frames.empty() || result.frames.size() > 256) __builtin_trap();
  return 0;
}
