// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/record/event_config.h"

#include <time.h>

#include <charconv>

namespace jitscope::record {

base::StatusOr<CallGraphOptions> ParseCallGraph(std::string_view text) {
  if (text == "fp") return CallGraphOptions{};
  CallGraphOptions options{.mode = CallGraph::kDwarf};
  if (text == "dwarf") return options;
  constexpr std::string_view kDwarfSize = "dwarf,";
  if (!text.starts_with(kDwarfSize)) {
    return base::Status::Error("--call-graph %.*s: expected fp, dwarf or dwarf,SIZE",
                               static_cast<int>(text.size()), text.data());
  }
  const std::string_view number = text.substr(kDwarfSize.size());
  uint64_t size = 0;
  const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), size);
  if (error != std::errc() || end != number.data() + number.size() || number.empty()) {
    return base::Status::Error("--call-graph %.*s: SIZE must be a number of bytes",
                               static_cast<int>(text.size()), text.data());
  }
  size = (size + 7) / 8 * 8;
  if (size == 0 || size > kMaxStackSize) {
    return base::Status::Error("--call-graph %.*s: SIZE must be 8 to %u bytes",
                               static_cast<int>(text.size()), text.data(), kMaxStackSize);
  }
  options.stack_size = static_cast<uint32_t>(size);
  return options;
}

session::SamplesFormat SamplesFormatOf(const SamplerOptions& options) {
  if (options.call_graph.mode == CallGraph::kFramePointer) return {};
  return {.layout = {session::kDwarfSampleType, session::kX86_64RegsMask},
          .stack_size = options.call_graph.stack_size};
}

perf_event_attr MakeSamplingAttr(const SamplerOptions& options) {
  perf_event_attr attr{};
  attr.size = sizeof(attr);
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CPU_CLOCK;
  attr.freq = 1;
  attr.sample_freq = options.frequency_hz;
  const session::SamplesFormat format = SamplesFormatOf(options);
  attr.sample_type = format.layout.sample_type;
  attr.sample_regs_user = format.layout.regs_mask;
  attr.sample_stack_user = static_cast<uint32_t>(format.stack_size);
  attr.disabled = 1;
  attr.enable_on_exec = 1;
  attr.inherit = 1;
  attr.mmap = 1;
  attr.mmap2 = 1;
  attr.build_id = options.build_ids ? 1 : 0;
  attr.comm = 1;
  attr.comm_exec = 1;
  attr.task = 1;
  attr.context_switch = options.switch_events || options.off_cpu ? 1 : 0;
  attr.sample_id_all = 1;
  attr.use_clockid = 1;
  attr.clockid = CLOCK_MONOTONIC;
  attr.exclude_hv = 1;
  if (!options.include_kernel) {
    attr.exclude_kernel = 1;
    attr.exclude_callchain_kernel = 1;
  }
  // Wake the reader once a few KiB are pending rather than per sample: the session also polls
  // with a timeout, so a quiet command still gets drained.
  attr.watermark = 1;
  attr.wakeup_watermark = 64 * 1024;
  return attr;
}

perf_event_attr MakeOffCpuAttr(const SamplerOptions& options) {
  perf_event_attr attr = MakeSamplingAttr(options);
  attr.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
  attr.freq = 0;
  attr.sample_period = 1;
  attr.mmap = 0;
  attr.mmap2 = 0;
  attr.build_id = 0;
  attr.comm = 0;
  attr.comm_exec = 0;
  attr.task = 0;
  attr.context_switch = 0;
  attr.exclude_kernel = 0;
  attr.exclude_callchain_kernel = 0;
  return attr;
}

}  // namespace jitscope::record
