// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Test support: reading back what the collector and the OProfile agent wrote, with the product's
// own readers (src/jitscope/trace's TraceFile, src/jitscope/formats' jitdump reader), and failing
// the test on any damage. Tests that include this link jitscope_trace, jitscope_formats and
// jitscope_test_support.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include <sys/stat.h>

#include <gtest/gtest.h>

#include "jitscope/base/files.h"
#include "jitscope/formats/jitdump_reader.h"
#include "jitscope/trace/reader.h"
#include "jitscope/trace/record_codec.h"
#include "support/traces.h"

namespace jitscope::test_support {

// The trace at `path`, which must open and be undamaged; nullopt (a failure is recorded) if it
// does not open.
inline std::optional<trace::TraceFile> OpenUndamagedTrace(const std::string& path) {
  auto file = trace::TraceFile::Open(path);
  if (!file.ok()) {
    ADD_FAILURE() << path << ": " << file.status().message();
    return std::nullopt;
  }
  EXPECT_TRUE(file->trace().damage.ok()) << path << ": " << file->trace().damage.message();
  return std::move(file).value();
}

// What a trace holds against what it takes: the bytes of its records (as the writer encoded
// them), its size, and the disk it occupies (st_blocks).
struct TraceSpace {
  uint64_t records = 0;
  uint64_t size = 0;
  uint64_t disk = 0;
};
inline TraceSpace SpaceOfTrace(const std::string& path) {
  TraceSpace space;
  if (const auto file = OpenUndamagedTrace(path)) {
    for (const auto& record : file->trace().records) {
      space.records += trace::EncodedRecordSize(record.event);
    }
  }
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  space.size = static_cast<uint64_t>(st.st_size);
  space.disk = static_cast<uint64_t>(st.st_blocks) * 512;
  return space;
}

// The method ids of a trace that holds only Intel code events (loads, inline loads, updates)
// and the code bytes of their regions; any other record fails the test.
inline std::set<uint32_t> MethodIds(const trace::ParsedTrace& trace) {
  std::set<uint32_t> ids;
  for (size_t i = 0; i < trace.records.size(); ++i) {
    if (const auto* code = std::get_if<trace::CodeEvent>(&trace.records[i].event)) {
      ids.insert(code->method_id);
    } else if (!std::holds_alternative<trace::CodeBytesEvent>(trace.records[i].event)) {
      ADD_FAILURE() << "record " << i << " is not a code event";
    }
  }
  return ids;
}

// The code records of a trace (loads, inline loads, updates), without their code bytes.
inline size_t CodeRecords(const trace::ParsedTrace& trace) {
  size_t count = 0;
  for (const auto& record : trace.records) {
    count += std::holds_alternative<trace::CodeEvent>(record.event) ? 1 : 0;
  }
  return count;
}

// The method ids of the undamaged trace at `path` (MethodIds); empty if it does not open.
inline std::set<uint32_t> TraceMethodIds(const std::string& path) {
  const auto file = OpenUndamagedTrace(path);
  return file ? MethodIds(file->trace()) : std::set<uint32_t>{};
}

// The code loads of the jitdump at `path`, which must read without error; 0 if it does not.
inline uint64_t JitdumpCodeLoads(const std::string& path) {
  auto file = base::MappedFile::Open(path);
  if (!file.ok()) {
    ADD_FAILURE() << path << ": " << file.status().message();
    return 0;
  }
  auto dump = formats::ParseJitdump({file->data(), file->size()}, path);
  if (!dump.ok()) {
    ADD_FAILURE() << path << ": " << dump.status().message();
    return 0;
  }
  EXPECT_TRUE(dump->error.ok()) << path << ": " << dump->error.message();
  return dump->stats.code_loads;
}

// The code loads of every jitdump (jit-*.dump) below `dir`, together: a program exec()ed by one
// that reported leaves its jitdump in a fallback directory (perf needs the name jit-<pid>.dump,
// which the first program's took).
inline uint64_t JitdumpCodeLoadsBelow(const std::string& dir) {
  uint64_t loads = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    const std::string name = entry.path().filename();
    if (name.starts_with("jit-") && name.ends_with(".dump"))
      loads += JitdumpCodeLoads(entry.path());
  }
  return loads;
}

}  // namespace jitscope::test_support
