// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// A small, strict jitdump reader for tests: it decodes what jitdump_writer.h encodes (and what
// oneDNN and perf's agent write) record by record, so tests can compare dumps field by field.
// Not the product's reader (that is src/jitscope/formats' jitdump reader, fuzzed and hostile-input
// safe): it assumes the host byte order and reports the first inconsistency instead of recovering.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "jitscope/base/status.h"
#include "jitscope/formats/jitdump_format.h"

namespace jitscope::testing {

struct TestDebugEntry {
  uint64_t address = 0;
  uint32_t line = 0;
  uint32_t discrim = 0;
  std::string file;
};

struct TestJitdumpRecord {
  formats::JitdumpRecordId id{};
  uint64_t timestamp = 0;
  // kCodeLoad
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint64_t vma = 0;
  uint64_t code_address = 0;
  uint64_t code_index = 0;
  std::string name;
  std::vector<uint8_t> code;
  // kCodeDebugInfo (code_address above is the record's code_addr)
  std::vector<TestDebugEntry> entries;
};

struct TestJitdump {
  formats::JitdumpHeader header{};
  std::vector<TestJitdumpRecord> records;
  uint64_t torn_tail_bytes = 0;  // bytes after the last whole record (what a crash may leave)

  // The CODE_LOAD records, in file order.
  std::vector<const TestJitdumpRecord*> Loads() const;
};

base::StatusOr<TestJitdump> ParseTestJitdump(std::span<const uint8_t> bytes);
base::StatusOr<TestJitdump> ReadTestJitdump(const std::string& path);

}  // namespace jitscope::testing
