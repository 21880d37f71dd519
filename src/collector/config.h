// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The collector's configuration, read from the environment of the profiled process:
//   JITSCOPE_OUTPUT_DIR  where output files go (default: the current directory)
//   JITSCOPE_FORMATS     comma-separated outputs (default: "trace")
//   JITSCOPE_LOG         file that collector messages are appended to (default: stderr)
#pragma once

#include <cstdint>
#include <string>

#include "jitscope/base/status.h"

namespace jitscope::collector {

enum Format : uint32_t {
  kFormatTrace = 1u << 0,  // the native trace, jit-<pid>.jsc
};

struct Config {
  std::string output_dir = ".";
  uint32_t formats = kFormatTrace;
  std::string log_path;  // empty: stderr
};

// `getenv` is injected so tests need not touch the process environment.
using GetEnvFunction = const char* (*)(const char*);
base::StatusOr<Config> ConfigFromEnvironment(GetEnvFunction getenv);

}  // namespace jitscope::collector
