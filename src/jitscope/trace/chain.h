// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Where a trace file stands in a chain (docs/trace-format.md, "Chains"): the file it continues,
// and whether its snapshot of the live code is complete. A chain's files are linked by name in
// one directory: jit-<pid>.jsc, then jit-<pid>.<n>.jsc, each naming the one before it.
#pragma once

#include <cstdint>
#include <string>

#include "jitscope/trace/reader.h"

namespace jitscope::trace {

struct ChainPosition {
  bool continues = false;          // the file starts with a CHAIN_LINK
  uint32_t sequence = 0;           // 0 for a chain's first file
  std::string previous_name;       // the file it continues, in the same directory
  bool snapshot_complete = false;  // SNAPSHOT_END is there: the repeats cover all live code
  uint64_t repeats = 0;            // records flagged kRecordFlagSnapshot
};

ChainPosition ChainPositionOf(const ParsedTrace& trace);
// What one record says of it, for a reader that walks the records itself (ChainPositionOf is
// this over every record, in order).
void NoteChainPosition(const Record& record, ChainPosition& position);

// Removes the records that repeat an earlier file's (kRecordFlagSnapshot), for a reader that has
// that file too. Returns how many.
uint64_t DropRepeats(ParsedTrace& trace);

}  // namespace jitscope::trace
