// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/walk/sample_walker.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "jitscope/unwind/frame_records.h"

namespace jitscope::walk {

SampleWalker::SampleWalker(const session::SampleData& data, const symbolize::SourceSet& sources,
                           std::string vdso_path, bool latest_code)
    : maps_(data.mappings, data.tasks),
      unwinding_((data.format.layout.sample_type & PERF_SAMPLE_REGS_USER) != 0),
      unwound_by_record_(data.format.layout.unwound),
      latest_code_(latest_code),
      address_space_(maps_, std::move(vdso_path), &sources, &files_) {}

void SampleWalker::Walk(const session::Sample& sample, std::vector<StackAddress>& out) {
  out.clear();
  last_on_captured_ = false;
  if (unwound_by_record_ || sample.walk_end) {
    // Unwound by record: the whole file, or this sample (kRecordUnwoundSample).
    for (const session::CallchainEntry& frame : sample.callchain) {
      out.push_back({frame.ip, frame.kernel, !out.empty() && !frame.exact, frame.guessed});
      if (frame.interpreter)
        out.back().interpreter = unwind::InterpreterFrame{frame.method, frame.bcp};
    }
    if (!out.empty() && out.back().guessed) ++guessed_walks_;
    // A walk's end that names no reason is not one of record's: it counts for none.
    if (sample.walk_end && *sample.walk_end < unwind::kStopReasonCount) {
      unwind_stats_.Count(static_cast<unwind::StopReason>(*sample.walk_end));
    }
    last_on_captured_ = sample.on_captured_code;
    if (sample.on_captured_code) ++unwind_stats_.walks_on_captured;
    return;
  }
  if (unwinding_) {
    // The kernel's part of the chain is one run of kernel frames; the user part is unwound.
    const auto user =
        std::find_if(sample.callchain.begin(), sample.callchain.end(),
                     [](const session::CallchainEntry& frame) { return !frame.kernel; });
    if (user != sample.callchain.begin()) out.push_back({0, true, false});
    const unwind::RegisterFile registers = unwind::RegisterFile::FromPerf(sample.regs);
    uint64_t sp = 0;
    registers.Get(registers.sp_register(), sp);
    address_space_.At(sample.pid, sample.time_ns, JitTime(sample.time_ns));
    const unwind::StackMemory stack(sp, sample.stack);
    unwind::Unwind(registers, stack, address_space_, {}, unwound_);
    if (unwound_.reason == unwind::StopReason::kStackCopyTooShort) {
      // Past the copy, the kernel's frame-pointer chain holds the words frame records keep.
      chain_.clear();
      for (auto frame = user; frame != sample.callchain.end(); ++frame) chain_.push_back(frame->ip);
      unwind::ContinueThroughFrameRecords(registers, stack, chain_, address_space_, {}, unwound_);
    }
    unwind_stats_.Count(unwound_.reason);
    unwind_stats_.CountSteps(unwound_);
    last_on_captured_ = unwound_.steps[static_cast<size_t>(unwind::RuleSource::kCaptured)] > 0;
    for (const unwind::UnwoundFrame& frame : unwound_.frames) {
      out.push_back({frame.pc, false, !frame.activation, false, frame.interpreter});
    }
    if (unwound_.reason == unwind::StopReason::kOutermost || unwound_.frames.empty()) return;
    // The frame-pointer chain beyond the last address the walk found, if it holds it.
    const auto last =
        std::find_if(user, sample.callchain.end(), [&](const session::CallchainEntry& frame) {
          return frame.ip == unwound_.frames.back().pc;
        });
    if (last == sample.callchain.end() || std::next(last) == sample.callchain.end()) return;
    for (auto frame = std::next(last); frame != sample.callchain.end(); ++frame) {
      out.push_back({frame->ip, false, true, true});
    }
    ++guessed_walks_;
    return;
  }
  if (sample.callchain.empty()) {
    out.push_back({sample.ip, false, false});
    return;
  }
  // Every frame after the first is where a call returns to (the user frame after a kernel run
  // too: where the system call returns).
  for (const session::CallchainEntry& frame : sample.callchain) {
    out.push_back({frame.ip, frame.kernel, !out.empty()});
  }
}

}  // namespace jitscope::walk
