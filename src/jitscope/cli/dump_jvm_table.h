// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// `jitscope dump` for the JVM table of jitscope's JVMTI agent (jvm-<pid>.jsm,
// formats/jvm_table.h): one stable line (or JSON object) per record, in file order, with the
// record's time in nanoseconds.
#pragma once

#include <cstdint>
#include <cstdio>
#include <span>

#include "jitscope/cli/dump_command.h"

namespace jitscope::cli {

// `bytes` starts with the JVM table's magic. Returns the process exit code.
int RunJvmTableDump(const DumpOptions& options, std::span<const uint8_t> bytes, std::FILE* out,
                    std::FILE* err);

}  // namespace jitscope::cli
