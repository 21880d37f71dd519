// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitdump_test_reader.h"

#include <cstring>

#include "jitscope/base/files.h"

namespace jitscope::testing {
namespace {

using formats::JitdumpRecordId;

template <typename T>
T Load(std::span<const uint8_t> bytes, size_t at) {
  T value;
  std::memcpy(&value, bytes.data() + at, sizeof(T));
  return value;
}

// The NUL-terminated string at `at` within [at, end); advances `at` past the NUL.
base::StatusOr<std::string> CString(std::span<const uint8_t> bytes, size_t& at, size_t end) {
  const size_t start = at;
  while (at < end && bytes[at] != 0) ++at;
  if (at == end) return base::Status::Error("unterminated string at offset %zu", start);
  std::string text(reinterpret_cast<const char*>(bytes.data() + start), at - start);
  ++at;
  return text;
}

}  // namespace

std::vector<const TestJitdumpRecord*> TestJitdump::Loads() const {
  std::vector<const TestJitdumpRecord*> loads;
  for (const auto& record : records) {
    if (record.id == JitdumpRecordId::kCodeLoad) loads.push_back(&record);
  }
  return loads;
}

base::StatusOr<TestJitdump> ParseTestJitdump(std::span<const uint8_t> bytes) {
  TestJitdump dump;
  if (bytes.size() < sizeof(formats::JitdumpHeader)) return base::Status::Error("no header");
  dump.header = Load<formats::JitdumpHeader>(bytes, 0);
  if (dump.header.magic != formats::kJitdumpMagic) return base::Status::Error("bad magic");
  size_t at = dump.header.total_size;
  while (at < bytes.size()) {
    if (bytes.size() - at < sizeof(formats::JitdumpRecordPrefix)) break;
    const auto prefix = Load<formats::JitdumpRecordPrefix>(bytes, at);
    if (prefix.total_size < sizeof(prefix)) {
      return base::Status::Error("record at %zu has size %u", at, prefix.total_size);
    }
    if (prefix.total_size > bytes.size() - at) break;
    const size_t end = at + prefix.total_size;
    TestJitdumpRecord record;
    record.id = static_cast<JitdumpRecordId>(prefix.id);
    record.timestamp = prefix.timestamp;
    switch (record.id) {
      case JitdumpRecordId::kCodeLoad: {
        if (prefix.total_size < sizeof(formats::JitdumpCodeLoad)) {
          return base::Status::Error("short CODE_LOAD at %zu", at);
        }
        const auto load = Load<formats::JitdumpCodeLoad>(bytes, at);
        record.pid = load.pid;
        record.tid = load.tid;
        record.vma = load.vma;
        record.code_address = load.code_addr;
        record.code_index = load.code_index;
        size_t cursor = at + sizeof(load);
        ASSIGN_OR_RETURN(record.name, CString(bytes, cursor, end));
        if (end - cursor != load.code_size) {
          return base::Status::Error("CODE_LOAD at %zu: %zu code bytes, code_size %llu", at,
                                     end - cursor, static_cast<unsigned long long>(load.code_size));
        }
        record.code.assign(bytes.begin() + static_cast<ptrdiff_t>(cursor),
                           bytes.begin() + static_cast<ptrdiff_t>(end));
        break;
      }
      case JitdumpRecordId::kCodeDebugInfo: {
        if (prefix.total_size < sizeof(formats::JitdumpDebugInfo)) {
          return base::Status::Error("short DEBUG_INFO at %zu", at);
        }
        const auto info = Load<formats::JitdumpDebugInfo>(bytes, at);
        record.code_address = info.code_addr;
        size_t cursor = at + sizeof(info);
        for (uint64_t i = 0; i < info.nr_entry; ++i) {
          if (end - cursor < sizeof(formats::JitdumpDebugEntry)) {
            return base::Status::Error("DEBUG_INFO at %zu: entry %llu out of bounds", at,
                                       static_cast<unsigned long long>(i));
          }
          const auto entry = Load<formats::JitdumpDebugEntry>(bytes, cursor);
          cursor += sizeof(entry);
          TestDebugEntry decoded{entry.addr, entry.lineno, entry.discrim, {}};
          ASSIGN_OR_RETURN(decoded.file, CString(bytes, cursor, end));
          record.entries.push_back(std::move(decoded));
        }
        break;
      }
      default:
        break;
    }
    dump.records.push_back(std::move(record));
    at = end;
  }
  dump.torn_tail_bytes = bytes.size() - at;
  return dump;
}

base::StatusOr<TestJitdump> ReadTestJitdump(const std::string& path) {
  ASSIGN_OR_RETURN(auto file, base::MappedFile::Open(path));
  auto parsed = ParseTestJitdump({file.data(), file.size()});
  if (!parsed.ok()) {
    return base::Status::Error("%s: %s", path.c_str(), parsed.status().message().c_str());
  }
  return parsed;
}

}  // namespace jitscope::testing
