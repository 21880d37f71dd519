// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Reads the JVM table jitscope's JVMTI agent writes beside its trace (jvm-<pid>.jsm; the layout
// is jvm_table_format.h, shared with the agent): which Java method each HotSpot Method* held over
// which time, and the inline scopes of compiled code. Every count and size is checked against the
// record that holds it before anything is read or allocated; a record that does not parse ends
// the parse with `error`, the records before it kept (a JVM killed while writing leaves a torn
// last record).
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string_view>
#include <vector>

#include "jitscope/base/status.h"
#include "jitscope/formats/jvm_table_format.h"

namespace jitscope::formats {

static_assert(sizeof(JitscopeJvmTableHeader) == 24);
static_assert(sizeof(JitscopeJvmRecordHeader) == 16);
static_assert(sizeof(JitscopeJvmMethod) == 48);
static_assert(sizeof(JitscopeJvmLine) == 8);
static_assert(sizeof(JitscopeJvmEnd) == 16);
static_assert(sizeof(JitscopeJvmCompiled) == 24);
static_assert(sizeof(JitscopeJvmPc) == 16);
static_assert(sizeof(JitscopeJvmFrame) == 16);

inline constexpr uint64_t kJvmForever = std::numeric_limits<uint64_t>::max();

struct JvmLine {
  uint32_t start_bci = 0;
  uint32_t line = 0;
  bool operator==(const JvmLine&) const = default;
};

// A Method* and the method it held over [since_ns, until_ns).
struct JvmMethod {
  uint64_t method = 0;
  uint64_t since_ns = 0;            // 0: since the JVM started
  uint64_t until_ns = kJvmForever;  // an END's last time it was seen to hold it
  uint64_t code_base = 0;           // its bytecodes' address; 0: not known
  uint32_t code_size = 0;
  bool native = false;
  std::string_view class_name, name, signature, file;  // point into the parsed bytes
  std::vector<JvmLine> lines;                          // by start_bci, as JVMTI gave them
};

struct JvmPc {
  uint64_t pc = 0;
  uint32_t first_frame = 0;
  uint32_t frames = 0;
};

struct JvmFrame {
  uint64_t method = 0;
  int32_t bci = 0;
};

// Compiled code's inline scopes (a COMPILED record), its pcs' frames checked to lie in `frames`.
struct JvmCompiled {
  uint64_t time_ns = 0;
  uint64_t address = 0;
  uint32_t size = 0;
  std::vector<JvmPc> pcs;
  std::vector<JvmFrame> frames;
};

// An END record as it was read.
struct JvmEnd {
  uint64_t time_ns = 0;
  uint64_t method = 0;
  uint64_t valid_until_ns = 0;
  bool matched = false;  // it closed an entry
};

// A record in file order: its type (JITSCOPE_JVM_RECORD_*, or a later one's, skipped), where it
// is, and its index in `methods`, `ends` or `compiled`.
struct JvmRecord {
  uint32_t type = 0;
  uint64_t offset = 0;
  uint64_t time_ns = 0;
  size_t index = 0;
};

struct ParsedJvmTable {
  uint32_t pid = 0;
  uint64_t start_ns = 0;
  std::vector<JvmMethod> methods;  // in file order
  std::vector<JvmEnd> ends;
  std::vector<JvmCompiled> compiled;
  std::vector<JvmRecord> records;
  // ENDs of a Method* no entry read before them held at the time: dropped.
  uint64_t unmatched_ends = 0;
  base::Status error;  // where a record did not parse (a torn last record included)
};

bool LooksLikeJvmTable(std::span<const uint8_t> bytes);

// Fails when `bytes` has no header of this format (or of another version); a damaged record
// ends the parse with `error`.
base::StatusOr<ParsedJvmTable> ParseJvmTable(std::span<const uint8_t> bytes,
                                             std::string_view file_name);

}  // namespace jitscope::formats
