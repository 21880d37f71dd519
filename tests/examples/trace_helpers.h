// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// What the example-JIT tests need, besides the test toolkit (tests/support), to look at a
// collector's trace the way a user does: `jitscope dump --json` read back as JSON objects, and
// the line tables it prints. Failures are returned as messages so a test fails loudly with the
// reason.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace jitscope::jitvm {

// `jitscope dump --json TRACE`, one object per line (header, records, summary). `error` is set
// if the command fails or prints something that is not JSON.
std::vector<nlohmann::json> DumpJson(const std::string& jitscope, const std::string& trace,
                                     std::string& error);

// The line of the byte at `offset` in an end-offset line table (dump JSON form: [{offset,
// line}]): the first entry whose offset exceeds it. 0 if the table does not cover it.
uint32_t LineAt(const nlohmann::json& lines, uint64_t offset);

}  // namespace jitscope::jitvm
