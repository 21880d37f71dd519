// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// libFuzzer target for `jitscope annotate` (report/annotate.h) on hostile code bytes: recorded
// JIT code may be data, patched, cut short, or shorter than the size its engine claimed.
// Input: a flags byte (bit 0: the region claims 64 bytes more than were recorded; bit 1: Intel
// syntax; bit 2: per-line view), then the code. The code is one region at the top of the address
// space (branch targets wrap), with a line every 4 bytes; a leaf sample lands on each offset a
// code byte names and a call site after each byte of value 0xe8. Whatever the bytes, annotation
// must cover the region shown once, in order, keep every sample, and render in both formats.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "jitscope/report/annotate.h"
#include "jitscope/symbolize/index_builder.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace jitscope;
  static const auto decoder = disasm::Decoder::Create(disasm::Mode::kX86_64);
  if (!decoder || size < 2) return 0;
  const uint8_t flags = data[0];
  const std::span<const uint8_t> code(data + 1, size - 1);
  const uint64_t start = ~uint64_t{0} - 0x1000;

  std::vector<trace::LineEntry> lines;
  for (uint32_t offset = 4; offset < code.size(); offset += 4) lines.push_back({offset, offset});
  symbolize::CodeReport load;
  load.time = 1;
  load.method_id = 1;
  load.address = start;
  load.size = code.size() + ((flags & 1) != 0 ? 64 : 0);
  load.name = "fuzzed";
  load.source_file = "fuzzed.jv";
  load.end_offset_lines = lines;
  symbolize::IndexBuilder builder;
  builder.AddLoad(load);
  const symbolize::SymbolIndex index = std::move(builder).Build();
  symbolize::CodeStore store;
  store.Add(1, start, code);  // the store borrows the bytes: the input outlives it
  report::CodeLocator locator([&](uint32_t) -> const symbolize::SymbolIndex& { return index; },
                              [&](uint32_t) -> const symbolize::CodeStore& { return store; }, false,
                              nullptr, nullptr);

  report::VersionCollector collector(locator);
  uint64_t placed = 0;
  for (size_t i = 0; i < code.size(); ++i) {
    const uint64_t offset = code[i] % load.size;
    std::vector<walk::StackAddress> stack = {{start + offset, false, false}};
    if (code[i] == 0xe8) stack.push_back({start + i + 1, false, true});
    collector.Add(7, 2, stack);
    ++placed;
  }
  const std::vector<report::SampledVersion> versions = std::move(collector).Take();
  if (versions.size() != (placed > 0 ? 1u : 0u)) __builtin_trap();
  if (versions.empty()) return 0;
  const disasm::Syntax syntax = (flags & 2) != 0 ? disasm::Syntax::kIntel : disasm::Syntax::kAtt;
  const report::Annotation annotation = report::Annotate(versions[0], locator, *decoder, syntax);

  uint64_t next = 0, samples = 0;
  for (const report::AnnotatedInstruction& in : annotation.instructions) {
    if (in.offset != next || in.length == 0) __builtin_trap();
    next += in.length;
    samples += in.samples;
  }
  if (next != annotation.shown_bytes || samples != placed) __builtin_trap();

  report::AnnotateOutputOptions options;
  options.total_samples = placed;
  options.by_line = (flags & 4) != 0;
  if (report::RenderAnnotationText({annotation}, options).empty()) __builtin_trap();
  if (report::RenderAnnotationJson({annotation}, options).empty()) __builtin_trap();
  return 0;
}
