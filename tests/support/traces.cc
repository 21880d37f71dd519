// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "support/traces.h"

#include <algorithm>
#include <filesystem>

namespace jitscope::test_support {

std::vector<std::string> TracesIn(const std::string& dir) {
  std::vector<std::string> traces;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    if (entry.path().extension() == ".jsc") traces.push_back(entry.path().string());
  }
  std::sort(traces.begin(), traces.end());
  return traces;
}

base::StatusOr<std::string> FindTrace(const std::string& dir) {
  const std::vector<std::string> traces = TracesIn(dir);
  if (traces.size() == 1 &&
      std::filesystem::path(traces[0]).filename().string().starts_with("jit-"))
    return traces[0];
  std::error_code error;
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    names.push_back(entry.path().filename().string());
  }
  if (error) {
    return base::Status::Error("expected one trace jit-*.jsc in %s, which cannot be listed: %s",
                               dir.c_str(), error.message().c_str());
  }
  std::sort(names.begin(), names.end());
  std::string listing;
  for (const std::string& name : names) listing += (listing.empty() ? "" : ", ") + name;
  return base::Status::Error("expected one trace jit-*.jsc in %s, which holds [%s]", dir.c_str(),
                             listing.c_str());
}

}  // namespace jitscope::test_support
