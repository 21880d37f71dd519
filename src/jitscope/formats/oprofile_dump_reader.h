// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Reads OProfile's JIT dump (<pid>.dump; layout in oprofile_dump_format.h), as written by
// OProfile's libopagent or by jitscope's, in a 64-bit or a 32-bit process: the writer's layout
// comes from the header (oprofile_dump_header.h). Every file is hostile: each size is checked
// before it is used. A record cut short by the end of the file (a writer killed mid-record, or a
// dump copied while it grows) is a normal end state, counted as torn. An unknown record id is
// damage (opjitconv fails the whole file on one); parsing stops there, keeping what came before.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

#include "jitscope/base/status.h"
#include "jitscope/formats/oprofile_dump_format.h"
#include "jitscope/formats/oprofile_dump_header.h"

namespace jitscope::formats {

using OprofileDumpHeaderInfo = OprofileHeaderFields;

struct OprofileDumpCodeLoad {
  uint64_t vma = 0;
  uint64_t code_addr = 0;  // 0: no code bytes in the record
  uint32_t code_size = 0;
  std::string_view name;
  std::span<const uint8_t> code;  // code_size bytes when code_addr != 0, else empty
};

struct OprofileDumpUnload {
  uint64_t vma = 0;
};

struct OprofileDumpClose {};

struct OprofileDumpLine {
  uint64_t vma = 0;  // 4 bytes in the file in the ILP32 layouts
  uint32_t line = 0;
  std::string_view file;
};

struct OprofileDumpDebugInfo {
  uint64_t code_addr = 0;
  std::vector<OprofileDumpLine> lines;
};

struct OprofileDumpRecord {
  uint64_t offset = 0;     // in the file
  uint64_t timestamp = 0;  // seconds
  std::variant<OprofileDumpCodeLoad, OprofileDumpUnload, OprofileDumpClose, OprofileDumpDebugInfo>
      body;
};

struct ParsedOprofileDump {
  OprofileDumpHeaderInfo header;
  std::vector<OprofileDumpRecord> records;  // file order
  uint64_t torn_records = 0;                // 0 or 1: the file ends inside a record
  base::Status damage;  // the first damage, with its offset; OK for an intact file
};

// Fails only when `bytes` is not a readable OProfile dump (bad magic, other byte order,
// unsupported version, header out of bounds). Views point into `bytes`.
base::StatusOr<ParsedOprofileDump> ParseOprofileDump(std::span<const uint8_t> bytes);

}  // namespace jitscope::formats
