// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/trace/chain.h"

#include <algorithm>
#include <variant>

namespace jitscope::trace {

void NoteChainPosition(const Record& record, ChainPosition& position) {
  if (record.snapshot) ++position.repeats;
  if (const auto* link = std::get_if<ChainLinkEvent>(&record.event); link && !position.continues) {
    position.continues = true;
    position.sequence = link->sequence;
    position.previous_name = std::string(link->previous_name);
  }
  if (std::holds_alternative<SnapshotEndEvent>(record.event)) position.snapshot_complete = true;
}

ChainPosition ChainPositionOf(const ParsedTrace& trace) {
  ChainPosition position;
  for (const Record& record : trace.records) NoteChainPosition(record, position);
  return position;
}

uint64_t DropRepeats(ParsedTrace& trace) {
  const auto repeats = std::remove_if(trace.records.begin(), trace.records.end(),
                                      [](const Record& record) { return record.snapshot; });
  const auto dropped = static_cast<uint64_t>(trace.records.end() - repeats);
  trace.records.erase(repeats, trace.records.end());
  return dropped;
}

}  // namespace jitscope::trace
