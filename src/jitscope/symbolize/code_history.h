// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Which regions make up one version of a JIT function, and when that version lived: what the
// unwinder derives rules for (unwind/derived_rules.h), reading the bytes from the CodeStore
// (code_store.h). A split function reports several regions under one method id, and its cold
// region is entered by jumps from the hot one, so the analysis needs them together; the symbol
// index and the code store know regions one by one.
//
// A version starts at a method's first load; further loads of the same method id while it lives
// add regions. It ends when the method is unloaded, when other code is loaded over any of its
// regions, or when a code update (METHOD_UPDATE, METHOD_UPDATE_V2) touches them: after that its
// code no longer says what runs there. Inline loads describe code inside a region already held and
// add nothing. Built from the native trace and from perf jitdumps (V8, LLVM, oneDNN), where each
// CODE_LOAD is a version of one region and a CODE_MOVE ends the version it moves (the code store
// has no bytes at the new address). OProfile's code (op_write_native_code, in the trace or in an
// OProfile dump) has no method id: each load is a version of one region, ended by its unload or
// by code loaded over it. A jitdump's code load may come with the engine's own unwind tables
// (V8's --perf-prof-unwinding-info), which its version keeps.
//
// Code record read from a running process (formats/captured_code.h) makes versions of the
// functions the process's perf maps name (AddCaptured): a perf map has no times and no bytes, a
// read has both but names no function. Each read that holds a function whole is a version of it,
// taken when it was read, after the samples that made record read it: so a version answers for
// the samples from the read of the function before it (exclusive) up to its own read, and the
// last one for every sample after; consecutive reads with the same bytes are one version. A read
// of exactly one function's range (record read the function a perf map named while it ran) is of
// that function only, where functions the map lists overlap (code replaced at the address).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <span>
#include <vector>

#include "jitscope/formats/captured_code.h"
#include "jitscope/formats/eh_frame_ranges.h"
#include "jitscope/formats/jitdump_reader.h"
#include "jitscope/formats/oprofile_dump_reader.h"
#include "jitscope/trace/event.h"
#include "jitscope/trace/record_stream.h"

namespace jitscope::symbolize {

struct CodeVersion {
  struct Region {
    uint64_t address = 0;
    uint64_t size = 0;
    uint64_t loaded_ns = 0;  // when this region was reported: its bytes are the code store's then
  };
  uint64_t method_id = 0;  // the Intel method id, or a jitdump's code_index; 0 for OProfile's
  uint64_t loaded_ns = 0;  // the first region's load
  uint64_t invalidated_ns = UINT64_MAX;  // when it stopped being valid; UINT64_MAX: never
  std::vector<Region> regions;           // in load order: regions[0] starts at the method's entry
  // The unwind tables the engine supplied for this code (a jitdump's UNWINDING_INFO .eh_frame,
  // a view into the file), and the address their pointers take them to lie at; empty if none.
  std::span<const uint8_t> eh_frame;
  uint64_t eh_frame_address = 0;
  // Its bytes were read from the running process by record (AddCaptured), not reported by the
  // engine.
  bool captured = false;
};

class CodeHistory {
 public:
  // Adds the records of one trace (in time order, as the reader returns them).
  void Add(std::span<const trace::Record> records);
  void Add(const trace::RecordWalk& records);
  // Adds the records of one jitdump.
  void Add(const formats::ParsedJitdump& dump);
  // Adds the records of one OProfile dump.
  void Add(const formats::ParsedOprofileDump& dump);
  // The process exec'd at `time_ns`: every version loaded before ends then, if it has not ended
  // yet. Called after the Add()s.
  void AddExec(uint64_t time_ns);
  // Adds the versions of the functions `functions` (a process's perf maps' entries, in file
  // order) that the reads `reads` (of the same process, any order) hold whole.
  void AddCaptured(std::span<const formats::CodeRange> functions,
                   std::span<const formats::CodeRead> reads);

  // The version whose code held `address` at `time_ns` (kLatest, symbol_index.h: the latest
  // version loaded there, whatever its end), or nullptr.
  const CodeVersion* Find(uint64_t address, uint64_t time_ns) const;

  size_t version_count() const { return versions_.size(); }

 private:
  void EndOverlapping(uint64_t address, uint64_t size, uint64_t time_ns);
  // A new version of one region, loaded at `time_ns`.
  size_t AddVersion(uint64_t method_id, uint64_t address, uint64_t size, uint64_t time_ns);

  std::deque<CodeVersion> versions_;  // a deque: versions handed out stay where they are
  // Every region ever loaded, by start address: (address, index into versions_).
  std::multimap<uint64_t, size_t> by_address_;
  uint64_t max_region_size_ = 0;
};

}  // namespace jitscope::symbolize
