// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/report/sampled_code.h"

#include <algorithm>

#include <fmt/format.h>

namespace jitscope::report {

SampledCode::SampledCode(const symbolize::SourceSet& sources, walk::SampleWalker& walker,
                         bool latest_code)
    : sources_(sources),
      locator_([this](uint32_t pid) -> const symbolize::SymbolIndex& { return Index(pid); },
               [this](uint32_t pid) -> const symbolize::CodeStore& { return Code(pid); },
               latest_code, &walker.maps(), &native_, &walker.files()),
      collector_(locator_) {
  native_.SetDebugPath(walker.files().DebugPath());
}

const symbolize::SymbolIndex& SampledCode::Index(uint32_t pid) {
  auto [it, inserted] = indexes_.try_emplace(pid);
  if (inserted) it->second = std::make_unique<symbolize::SymbolIndex>(sources_.BuildIndex(pid));
  return *it->second;
}

const symbolize::CodeStore& SampledCode::Code(uint32_t pid) {
  auto [it, inserted] = code_.try_emplace(pid);
  if (inserted) it->second = std::make_unique<symbolize::CodeStore>(sources_.BuildCodeStore(pid));
  return *it->second;
}

void SampledCode::Add(uint32_t pid, uint64_t time_ns, std::span<const walk::StackAddress> stack) {
  collector_.Add(pid, time_ns, stack);
}

std::vector<SampledVersion> SampledCode::TakeVersions() { return std::move(collector_).Take(); }

std::optional<Annotation> SampledCode::Annotate(const SampledVersion& version,
                                                disasm::Syntax syntax) {
  const std::optional<disasm::Decoder> decoder = disasm::Decoder::Create(
      sources_.PointerSize(version.pid) == 4 ? disasm::Mode::kI386 : disasm::Mode::kX86_64);
  if (!decoder) return std::nullopt;
  return report::Annotate(version, locator_, *decoder, syntax);
}

void CodeAnnotator::Begin(const symbolize::SourceSet& sources, walk::SampleWalker& walker,
                          bool latest_code) {
  code_ = std::make_unique<SampledCode>(sources, walker, latest_code);
}

void CodeAnnotator::Add(const session::Sample& sample, std::span<const walk::StackAddress> stack) {
  ++samples_;
  code_->Add(sample.pid, sample.time_ns, stack);
}

void CodeAnnotator::End() {
  std::vector<SampledVersion> versions = code_->TakeVersions();
  // A version's weight: its own samples, or the samples below its busiest call, whichever is more
  // (a caller whose time is all in its callees is worth reading too).
  auto weight = [](const SampledVersion& v) {
    uint64_t below = 0;
    for (const auto& [address, count] : v.calls_at) below = std::max(below, count);
    return std::max(v.samples, below);
  };
  const uint64_t least =
      std::max<uint64_t>(1, static_cast<uint64_t>(min_share_ * static_cast<double>(samples_)));
  std::vector<const SampledVersion*> chosen;
  for (const SampledVersion& v : versions) {
    if (weight(v) >= least) chosen.push_back(&v);
  }
  std::stable_sort(
      chosen.begin(), chosen.end(),
      [&](const SampledVersion* a, const SampledVersion* b) { return weight(*a) > weight(*b); });
  size_t instructions = 0;
  size_t left_out = 0;
  for (const SampledVersion* v : chosen) {
    if (instructions >= max_instructions_) {
      ++left_out;
      continue;
    }
    std::optional<Annotation> annotation = code_->Annotate(*v, disasm::Syntax::kAtt);
    if (!annotation) continue;
    instructions += annotation->instructions.size();
    annotations_.push_back(std::move(*annotation));
  }
  note_ = fmt::format(
      "{} of the {} code versions the samples ran: those with {:.1f}% of the samples or more in "
      "them or below one of their calls{}; 'jitscope annotate' shows any of them",
      annotations_.size(), versions.size(), 100 * min_share_,
      left_out > 0 ? fmt::format(", but for {} left out for the file's size", left_out) : "");
  code_.reset();
}

}  // namespace jitscope::report
