// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Test support: the traces a run left in a directory.
#pragma once

#include <string>
#include <vector>

#include "jitscope/base/status.h"

namespace jitscope::test_support {

// The traces (*.jsc) directly in `dir`, sorted by name (so jit-<pid>.1.jsc comes before
// jit-<pid>.jsc). None if `dir` does not exist.
std::vector<std::string> TracesIn(const std::string& dir);

// The one trace a run of one process left in `dir`: exactly one *.jsc, named jit-*.jsc as the
// collector names its traces. Anything else (none, several, another name, no such directory)
// is an error that lists what `dir` holds.
base::StatusOr<std::string> FindTrace(const std::string& dir);

}  // namespace jitscope::test_support
