// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/collector/config.h"

#include <string_view>

namespace jitscope::collector {
namespace {

struct FormatName {
  std::string_view name;
  Format format;
};
constexpr FormatName kFormats[] = {
    {"trace", kFormatTrace},
    {"jitdump", kFormatJitdump},
    {"perfmap", kFormatPerfMap},
};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string KnownFormats() {
  std::string known;
  for (const auto& f : kFormats) {
    if (!known.empty()) known += ", ";
    known += f.name;
  }
  return known;
}

base::StatusOr<uint32_t> ParseFormats(std::string_view list) {
  uint32_t formats = 0;
  while (!list.empty()) {
    const size_t comma = list.find(',');
    const std::string_view item = Trim(list.substr(0, comma));
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    if (item.empty()) continue;
    bool known = false;
    for (const auto& f : kFormats) {
      if (f.name == item) {
        formats |= f.format;
        known = true;
      }
    }
    if (!known) {
      return base::Status::Error("JITSCOPE_FORMATS: unknown format '%.*s' (known: %s)",
                                 static_cast<int>(item.size()), item.data(),
                                 KnownFormats().c_str());
    }
  }
  if (formats == 0) return base::Status::Error("JITSCOPE_FORMATS names no format");
  return formats;
}

}  // namespace

base::StatusOr<Config> ConfigFromEnvironment(GetEnvFunction getenv) {
  Config config;
  if (const char* dir = getenv("JITSCOPE_OUTPUT_DIR"); dir != nullptr && *dir != '\0') {
    config.output_dir = dir;
  }
  if (const char* formats = getenv("JITSCOPE_FORMATS"); formats != nullptr && *formats != '\0') {
    ASSIGN_OR_RETURN(config.formats, ParseFormats(formats));
  }
  if (const char* dir = getenv("JITSCOPE_PERF_MAP_DIR"); dir != nullptr && *dir != '\0') {
    config.perf_map_dir = dir;
  }
  if (const char* log = getenv("JITSCOPE_LOG"); log != nullptr && *log != '\0') {
    config.log_path = log;
  }
  return config;
}

}  // namespace jitscope::collector
