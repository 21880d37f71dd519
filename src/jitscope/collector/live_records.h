// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Which records of a trace still describe live code: what the next file of a chain must repeat
// so that it names every piece of code that can still run without the files before it.
//
// Records are grouped by the code they describe, their owner: an Intel-API method (its loads,
// split regions, METHOD_UPDATEs, inline trees and range updates inside its regions) or one
// OProfile load (its code and debug lines). An owner is dropped when it is unloaded, or when
// later loads have covered every byte of its regions. Dropping a whole owner, never part of one,
// keeps the overwrite rules and "first symbolic information wins" (Intel's reference) exact when
// the records left are replayed: what remains is the same records in the same order. A code-bytes
// record goes with the record before it on the same thread, as the sink wrote them. Records that
// belong to no code (OProfile agents opened and closed, range updates outside any region) are
// kept, and so are the ITT API's names (strings, counters) and thread names, which the records
// after them refer to; refusals, shutdowns, chain records and the ITT API's tasks, frames,
// markers and counter values (history, not state) are not.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "jitscope/trace/event.h"

namespace jitscope::collector {

// The indices into `records` (time order, as the reader gives them) of the live ones, ascending.
std::vector<size_t> LiveRecords(std::span<const trace::Record> records);

}  // namespace jitscope::collector
