// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/collector/config.h"

#include <string_view>

#include "jitscope/formats/output_formats.h"

namespace jitscope::collector {

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
  return config;
}

}  // namespace jitscope::collector
