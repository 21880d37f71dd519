// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/collector/config.h"

#include <string_view>

#include "jitscope/formats/output_formats.h"

namespace jitscope::collector {

base::StatusOr<uint64_t> ParseSize(std::string_view text, const char* what) {
  const std::string shown(text);
  auto invalid = [&] {
    return base::Status::Error("%s must be a size such as 256M, 1G or 0, not '%s'", what,
                               shown.c_str());
  };
  uint64_t value = 0;
  size_t i = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    if (value > (UINT64_MAX - 9) / 10) return invalid();
    value = value * 10 + static_cast<uint64_t>(text[i] - '0');
  }
  if (i == 0) return invalid();
  int shift = 0;
  if (i + 1 == text.size()) {
    switch (text[i]) {
      case 'k':
      case 'K':
        shift = 10;
        break;
      case 'm':
      case 'M':
        shift = 20;
        break;
      case 'g':
      case 'G':
        shift = 30;
        break;
      default:
        return invalid();
    }
  } else if (i != text.size()) {
    return invalid();
  }
  if (value > (UINT64_MAX >> shift)) return invalid();
  return value << shift;
}

base::StatusOr<Config> ConfigFromEnvironment(GetEnvFunction getenv) {
  Config config;
  if (const char* dir = getenv("JITSCOPE_OUTPUT_DIR"); dir != nullptr && *dir != '\0') {
    config.output_dir = dir;
  }
  if (const char* list = getenv("JITSCOPE_FORMATS"); list != nullptr && *list != '\0') {
    ASSIGN_OR_RETURN(config.formats, formats::ParseOutputFormats(list, "JITSCOPE_FORMATS"));
  }
  if (const char* dir = getenv("JITSCOPE_PERF_MAP_DIR"); dir != nullptr && *dir != '\0') {
    config.perf_map_dir = dir;
  }
  if (const char* log = getenv("JITSCOPE_LOG"); log != nullptr && *log != '\0') {
    config.log_path = log;
  }
  if (const char* value = getenv("JITSCOPE_CODE_BYTES"); value != nullptr && *value != '\0') {
    const std::string_view flag = value;
    if (flag != "0" && flag != "1") {
      return base::Status::Error("JITSCOPE_CODE_BYTES must be 0 or 1, not '%s'", value);
    }
    config.code_bytes = flag == "1";
  }
  if (const char* value = getenv("JITSCOPE_MAX_SIZE"); value != nullptr && *value != '\0') {
    ASSIGN_OR_RETURN(config.max_trace_size, ParseSize(value, "JITSCOPE_MAX_SIZE"));
    if (config.max_trace_size != 0 && config.max_trace_size < Config::kMinMaxTraceSize) {
      return base::Status::Error("JITSCOPE_MAX_SIZE must be 0 (unbounded) or at least 1M, not '%s'",
                                 value);
    }
  }
  return config;
}

}  // namespace jitscope::collector
