// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "trace_helpers.h"

#include <sstream>

#include "support/process.h"

namespace jitscope::jitvm {

std::vector<nlohmann::json> DumpJson(const std::string& jitscope, const std::string& trace,
                                     std::string& error) {
  const test_support::ProcessResult dump =
      test_support::RunProgram({jitscope, "dump", "--json", trace});
  if (!dump.ok()) {
    error = dump.Describe();
    return {};
  }
  std::vector<nlohmann::json> records;
  std::istringstream lines(dump.out);
  std::string line;
  while (std::getline(lines, line)) {
    auto parsed = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded()) {
      error = "not JSON: " + line;
      return {};
    }
    records.push_back(std::move(parsed));
  }
  return records;
}

uint32_t LineAt(const nlohmann::json& lines, uint64_t offset) {
  for (const auto& entry : lines) {
    if (entry["offset"].get<uint64_t>() > offset) return entry["line"].get<uint32_t>();
  }
  return 0;
}

}  // namespace jitscope::jitvm
