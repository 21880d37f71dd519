// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/record/event_config.h"

#include <time.h>

namespace jitscope::record {

perf_event_attr MakeSamplingAttr(const SamplerOptions& options) {
  perf_event_attr attr{};
  attr.size = sizeof(attr);
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CPU_CLOCK;
  attr.freq = 1;
  attr.sample_freq = options.frequency_hz;
  attr.sample_type = formats::kSampleType;
  attr.disabled = 1;
  attr.enable_on_exec = 1;
  attr.inherit = 1;
  attr.mmap = 1;
  attr.mmap2 = 1;
  attr.comm = 1;
  attr.comm_exec = 1;
  attr.task = 1;
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

}  // namespace jitscope::record
