// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The collector's configuration, read from the environment of the profiled process:
//   JITSCOPE_OUTPUT_DIR  where output files go (default: the current directory)
//   JITSCOPE_FORMATS     comma-separated outputs (default: "trace"): trace, jitdump, perfmap
//                        (formats/output_formats.h)
//   JITSCOPE_PERF_MAP_DIR  where the perf map goes (default: /tmp, the only place perf reads)
//   JITSCOPE_LOG         file that collector messages are appended to (default: stderr)
//   JITSCOPE_CODE_BYTES  1 (default): the trace keeps each region's machine code; 0: it does not
//   JITSCOPE_MAX_SIZE    size at which the trace continues in the next file of a chain, in bytes
//                        or with a K, M or G suffix (powers of 1024); default 1G, at least 1M;
//                        0: one file, unbounded (docs/trace-format.md, "Chains")
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "jitscope/base/status.h"
#include "jitscope/formats/output_formats.h"
#include "jitscope/formats/perf_map_writer.h"

namespace jitscope::collector {

// The format bits and their names live in formats/output_formats.h, the list the CLI checks too.
using formats::kFormatJitdump;
using formats::kFormatPerfMap;
using formats::kFormatTrace;

struct Config {
  std::string output_dir = ".";
  uint32_t formats = formats::kDefaultOutputFormats;
  std::string log_path;  // empty: stderr
  std::string perf_map_dir{formats::kPerfMapDirectory};
  bool code_bytes = true;
  uint64_t max_trace_size = kDefaultMaxTraceSize;  // 0: unbounded
  static constexpr uint64_t kDefaultMaxTraceSize = uint64_t{1} << 30;
  static constexpr uint64_t kMinMaxTraceSize = uint64_t{1} << 20;
};

// "64M", "1G", "4096K", "1048576": a size in bytes, K/M/G (any case) multiplying by 1024,
// 1024^2, 1024^3. `what` names the setting in the error.
base::StatusOr<uint64_t> ParseSize(std::string_view text, const char* what);

// `getenv` is injected so tests need not touch the process environment.
using GetEnvFunction = const char* (*)(const char*);
base::StatusOr<Config> ConfigFromEnvironment(GetEnvFunction getenv);

}  // namespace jitscope::collector
