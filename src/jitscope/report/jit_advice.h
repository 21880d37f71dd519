// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// What a report says about what it could not do (docs/architecture.md, "Errors"): samples in
// executable anonymous memory that no JIT file names — code a JIT generated without reporting it,
// most often because its engine's JIT reporting was left off — and how to switch reporting on for
// the engine the recorded command looks like. (The events the collector refused:
// walk::DescribeRejectedEvents.)
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "jitscope/session/perf_record.h"

namespace jitscope::report {

// How to make the engine of `program` (the recorded command's first word) report its JIT code,
// judged by its name and by the libraries its processes mapped.
std::string HowToReportJitCode(std::string_view program,
                               const std::vector<session::Mapping>& mappings);

// The line for `anonymous` of `total` samples in anonymous executable memory without JIT names,
// when they are more than 1% of the samples; "" otherwise. It tells why: the jitdumps the
// processes wrote that are gone (`missing`: not where they were, nor kept in the session), or,
// when none is, that the JIT reported nothing, and how to make it.
std::string DescribeUnnamedJitCode(uint64_t anonymous, uint64_t total, std::string_view program,
                                   const std::vector<session::Mapping>& mappings,
                                   const std::vector<std::string>& missing = {});

}  // namespace jitscope::report
