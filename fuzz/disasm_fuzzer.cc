// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// libFuzzer target for the disassembler wrapper on hostile code bytes, the way annotation and
// derived unwind rules meet them: recorded JIT code may be data, patched, or cut short. Every
// offset is decoded (as a linear sweep resynchronising after each bad byte would) and every
// instruction formatted in both syntaxes; a decoded length must stay inside the bytes given.
// Input: one byte choosing the mode (bit 0: i386), then the code.
#include <cstddef>
#include <cstdint>
#include <span>

#include "jitscope/disasm/decoder.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using jitscope::disasm::Decoder;
  using jitscope::disasm::Mode;
  using jitscope::disasm::Syntax;
  if (size == 0) return 0;
  static const Decoder x86_64 = *Decoder::Create(Mode::kX86_64);
  static const Decoder i386 = *Decoder::Create(Mode::kI386);
  const Decoder& decoder = (data[0] & 1) != 0 ? i386 : x86_64;
  const std::span<const uint8_t> code(data + 1, size - 1);
  // Near the top of the address space, so branch targets wrap.
  const uint64_t base = ~uint64_t{0} - 0x40;
  for (size_t offset = 0; offset < code.size(); ++offset) {
    const auto instruction = decoder.Decode(code.subspan(offset), base + offset);
    if (!instruction) continue;
    if (instruction->length == 0 || instruction->length > code.size() - offset) __builtin_trap();
    if (decoder.Format(*instruction, Syntax::kAtt).empty()) __builtin_trap();
    if (decoder.Format(*instruction, Syntax::kIntel).empty()) __builtin_trap();
    (void)instruction->BranchTarget();
  }
  return 0;
}
