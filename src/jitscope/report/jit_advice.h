// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// What a report says about what it could not do (STYLE.md §8): events the collector refused, and
// samples in executable anonymous memory that no JIT file names — code a JIT generated without
// reporting it, most often because its engine's JIT reporting was left off. For the latter it
// tells how to switch reporting on for the engine the recorded command looks like.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "jitscope/session/perf_record.h"
#include "jitscope/trace/event.h"

namespace jitscope::report {

// "the collector refused 3 events the JIT reported (null_name: 2, zero_size: 1); 'jitscope
// dump' lists them", or "" when there were none.
std::string DescribeRejectedEvents(const std::map<trace::RejectReason, uint64_t>& rejected);

// How to make the engine of `program` (the recorded command's first word) report its JIT code,
// judged by its name and by the libraries its processes mapped.
std::string HowToReportJitCode(std::string_view program,
                               const std::vector<session::Mapping>& mappings);

// The line for `anonymous` of `total` samples in anonymous executable memory without JIT names,
// when they are more than 1% of the samples; "" otherwise.
std::string DescribeUnnamedJitCode(uint64_t anonymous, uint64_t total, std::string_view program,
                                   const std::vector<session::Mapping>& mappings);

}  // namespace jitscope::report
