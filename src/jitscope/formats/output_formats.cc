// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/formats/output_formats.h"

namespace jitscope::formats {
namespace {

struct FormatName {
  std::string_view name;
  OutputFormat format;
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

}  // namespace

std::string KnownOutputFormats() {
  std::string known;
  for (const auto& f : kFormats) {
    if (!known.empty()) known += ", ";
    known += f.name;
  }
  return known;
}

base::StatusOr<uint32_t> ParseOutputFormats(std::string_view list, const char* what) {
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
      return base::Status::Error("%s: unknown format '%.*s' (known: %s)", what,
                                 static_cast<int>(item.size()), item.data(),
                                 KnownOutputFormats().c_str());
    }
  }
  if (formats == 0) return base::Status::Error("%s names no format", what);
  return formats;
}

}  // namespace jitscope::formats
