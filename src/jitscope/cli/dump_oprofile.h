// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// `jitscope dump` for OProfile JIT dumps (<pid>.dump, formats/oprofile_dump_reader.h): one stable
// line (or JSON object) per record, in file order, with OProfile's own record names and its
// seconds timestamps.
#pragma once

#include <cstdint>
#include <cstdio>
#include <span>

#include "jitscope/cli/dump_command.h"

namespace jitscope::cli {

// `bytes` starts with the OProfile dump magic. Returns the process exit code.
int RunOprofileDump(const DumpOptions& options, std::span<const uint8_t> bytes, std::FILE* out,
                    std::FILE* err);

}  // namespace jitscope::cli
