// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Feeds what the readers parsed into an IndexBuilder: the one place each format's meaning is
// mapped onto the symbolizer's model (index_builder.h; docs/symbol-index.md).
//  - Native trace: every code event with its Intel method id (in the id space of its program
//    image: 0 for the process's first); the
//    OProfile agent API's loads by address with the line table reported after them, and its
//    unloads by address, as from an OProfile dump.
//  - perf jitdump: CODE_LOAD as a load whose method id is its code_index (a space of its own per
//    file), CODE_MOVE as a move, DEBUG_INFO as an address line table. jitdump has no unload: code
//    ends when other code overwrites it (the rule oneDNN, which frees silently, relies on).
//  - perf map: a load at time 0 per line, no method id.
//  - OProfile dump: CODE_LOAD at its vma with the DEBUG_INFO the reader attached to it, UNLOAD by
//    address. Its timestamps
//    are seconds of wall-clock time; they are scaled to nanoseconds, still wall-clock.
//  - JVM table (formats/jvm_table.h): compiled code's inline scopes. The agent reports the code
//    itself through OProfile's API, by address and without a method id, which no inline region can
//    name as its parent; so each COMPILED record loads the code again, just after (the agent writes
//    it after the code's load), under an id of its own, named as the agent names it, with the
//    outermost method's lines, and every inlined scope as an inline region of it: the methods at
//    a debug pc, innermost first, cover the code from the previous debug pc up to and including
//    it (HotSpot's own approximate lookup). A scope whose Method* the table does not name at the
//    record's time is left out with those inside it.
#pragma once

#include <cstdint>

#include "jitscope/formats/jitdump_reader.h"
#include "jitscope/formats/jvm_table.h"
#include "jitscope/formats/oprofile_dump_reader.h"
#include "jitscope/formats/perf_map_reader.h"
#include "jitscope/symbolize/code_store.h"
#include "jitscope/symbolize/index_builder.h"
#include "jitscope/symbolize/java_methods.h"
#include "jitscope/trace/reader.h"
#include "jitscope/trace/record_stream.h"

namespace jitscope::symbolize {

// The architecture iJIT_CA_NATIVE means for a trace written by a `pointer_size`-byte process.
CodeArch NativeArch(uint32_t pointer_size);

// A trace's records in time order (trace/record_stream.h): a trace too large to hold its records
// is read again for each walk; a ParsedTrace's are its vector's (WalkOf).
using trace::RecordVisitor;
using trace::RecordWalk;
RecordWalk WalkOf(const trace::ParsedTrace& trace);

// `id_space`: the Intel method ids' space, one per program image of the process (0 for its
// first; a re-exec'd program numbers its methods from the start again). `count`: how many
// records the walk visits (room is reserved for them).
void ImportTrace(const RecordWalk& records, uint64_t count, IndexBuilder& builder,
                 uint32_t id_space = 0);
inline void ImportTrace(const trace::ParsedTrace& trace, IndexBuilder& builder,
                        uint32_t id_space = 0) {
  ImportTrace(WalkOf(trace), trace.records.size(), builder, id_space);
}
void ImportJitdump(const formats::ParsedJitdump& dump, IndexBuilder& builder);
void ImportPerfMap(const formats::ParsedPerfMap& map, IndexBuilder& builder);
void ImportOprofileDump(const formats::ParsedOprofileDump& dump, IndexBuilder& builder);
// `methods`: the methods of every JVM table of the process, the scopes' names.
void ImportJvmTable(const formats::ParsedJvmTable& table, const JavaMethods& methods,
                    IndexBuilder& builder);

// The code bytes each format carries, at the times the index places that code: the trace's
// code-bytes records and OProfile loads, jitdump CODE_LOADs, OProfile dump loads. A perf map has
// none. jitdump CODE_MOVEs are not followed: the moved code's bytes are not known.
void ImportCode(const RecordWalk& records, CodeStore& store);
inline void ImportCode(const trace::ParsedTrace& trace, CodeStore& store) {
  ImportCode(WalkOf(trace), store);
}
void ImportCode(const formats::ParsedJitdump& dump, CodeStore& store);
void ImportCode(const formats::ParsedOprofileDump& dump, CodeStore& store);

}  // namespace jitscope::symbolize
