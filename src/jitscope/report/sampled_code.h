// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The code versions a recording's samples ran, gathered as its samples are walked, and their
// annotation: what `jitscope annotate` and the HTML report's Code view both need. It holds each
// sampled process's symbol index and code store (built when first needed), the native
// symbolizer and the locator over them, and the VersionCollector the walked stacks go to.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "jitscope/disasm/decoder.h"
#include "jitscope/report/annotate.h"
#include "jitscope/report/code_locator.h"
#include "jitscope/report/native_symbolizer.h"
#include "jitscope/report/profile_builder.h"
#include "jitscope/symbolize/code_store.h"
#include "jitscope/symbolize/source_set.h"
#include "jitscope/walk/sample_walker.h"

namespace jitscope::report {

class SampledCode {
 public:
  // `sources` and `walker` (its maps and files) must outlive it.
  SampledCode(const symbolize::SourceSet& sources, walk::SampleWalker& walker, bool latest_code);

  // One sample's stack, leaf first.
  void Add(uint32_t pid, uint64_t time_ns, std::span<const walk::StackAddress> stack);
  // The versions, heaviest first (VersionCollector::Take); call once, after the last Add.
  std::vector<SampledVersion> TakeVersions();
  // The version's disassembly with its samples; nullopt when the disassembler cannot be set up.
  std::optional<Annotation> Annotate(const SampledVersion& version, disasm::Syntax syntax);

 private:
  const symbolize::SymbolIndex& Index(uint32_t pid);
  const symbolize::CodeStore& Code(uint32_t pid);

  const symbolize::SourceSet& sources_;
  std::map<uint32_t, std::unique_ptr<symbolize::SymbolIndex>> indexes_;
  std::map<uint32_t, std::unique_ptr<symbolize::CodeStore>> code_;
  NativeSymbolizer native_;
  CodeLocator locator_;
  VersionCollector collector_;
};

// A StackObserver (profile_builder.h) that annotates, once the samples are walked, the versions
// that hold a share of them: the HTML report's Code view.
class CodeAnnotator : public StackObserver {
 public:
  // Versions with at least `min_share` of the samples in them or below one of their calls are
  // annotated, hottest first, until `max_instructions` instructions are.
  CodeAnnotator(double min_share, size_t max_instructions)
      : min_share_(min_share), max_instructions_(max_instructions) {}
  void Begin(const symbolize::SourceSet& sources, walk::SampleWalker& walker,
             bool latest_code) override;
  void Add(const session::Sample& sample, std::span<const walk::StackAddress> stack) override;
  void End() override;

  // The annotations, hottest first, and a sentence on which versions they are.
  std::vector<Annotation> TakeAnnotations() { return std::move(annotations_); }
  const std::string& note() const { return note_; }

 private:
  const double min_share_;
  const size_t max_instructions_;
  std::unique_ptr<SampledCode> code_;
  uint64_t samples_ = 0;
  std::vector<Annotation> annotations_;
  std::string note_;
};

}  // namespace jitscope::report
