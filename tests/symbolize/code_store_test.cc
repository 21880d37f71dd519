// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/symbolize/code_store.h"

#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

#include "jitprofiling.h"
#include "jitscope/collector/collector.h"
#include "jitscope/symbolize/source_set.h"
#include "support/read_back.h"
#include "support/temp_dir.h"

namespace jitscope::symbolize {
namespace {

// The bytes as "aa bb ?? ..." ("??": not known).
std::string Show(const CodeBytes& code) {
  std::string out;
  for (size_t i = 0; i < code.bytes.size(); ++i) {
    char byte[4];
    std::snprintf(byte, sizeof(byte), "%02x", code.bytes[i]);
    out += (out.empty() ? "" : " ") + (code.known[i] ? std::string(byte) : std::string("??"));
  }
  return out;
}

TEST(CodeStore, EachTimeSeesTheLatestSnapshotThenOrBefore) {
  const std::vector<uint8_t> first = {0x55, 0x48, 0x89, 0xe5, 0xc3};
  const std::vector<uint8_t> rejit = {0xb8, 0x2a, 0x00, 0x00, 0x00, 0xc3};
  const std::vector<uint8_t> patch = {0x90, 0x90};
  CodeStore store;
  store.Add(200, 0x1000, rejit);  // out of order: kept in time order
  store.Add(100, 0x1000, first);
  store.Add(300, 0x1002, patch);  // an update of part of the region
  store.Add(400, 0x1000, {});     // code that was not readable: no snapshot
  EXPECT_EQ(store.snapshot_count(), 3u);
  EXPECT_EQ(Show(store.Read(0x1000, 6, 99)), "?? ?? ?? ?? ?? ??");
  EXPECT_EQ(Show(store.Read(0x1000, 6, 100)), "55 48 89 e5 c3 ??");
  EXPECT_EQ(Show(store.Read(0x1000, 6, 199)), "55 48 89 e5 c3 ??");
  EXPECT_EQ(Show(store.Read(0x1000, 6, 200)), "b8 2a 00 00 00 c3");
  EXPECT_EQ(Show(store.Read(0x1000, 6, 300)), "b8 2a 90 90 00 c3");
  EXPECT_EQ(Show(store.Read(0xfff, 3, 300)), "?? b8 2a");
  EXPECT_FALSE(store.Read(0xfff, 3, 300).complete());
  EXPECT_TRUE(store.Read(0x1001, 3, 300).complete());
}

TEST(CodeStore, EqualTimesLetTheLaterSnapshotWin) {
  const std::vector<uint8_t> a = {1, 2}, b = {3};
  CodeStore store;
  store.Add(5, 0x10, a);
  store.Add(5, 0x10, b);
  EXPECT_EQ(Show(store.Read(0x10, 2, 5)), "03 02");
}

TEST(CodeStore, AddressesAtTheTopOfTheSpaceDoNotWrap) {
  const std::vector<uint8_t> top = {0xaa, 0xbb, 0xcc, 0xdd};
  CodeStore store;
  store.Add(1, UINT64_MAX - 1, top);  // runs past the end of the address space
  EXPECT_EQ(Show(store.Read(UINT64_MAX - 2, 2, 1)), "?? aa");
  EXPECT_EQ(Show(store.Read(0, 2, 1)), "?? ??");
}

alignas(64) uint8_t code[256];

// Through the real collector: its trace keeps each load's bytes, and a re-JIT at the same address
// is a second snapshot the store tells apart by time.
TEST(CodeStore, ReadsTheCodeBytesTheCollectorRecorded) {
  test_support::TempDir dir;
  collector::Config config;
  config.output_dir = dir.path();
  config.formats = collector::kFormatTrace | collector::kFormatJitdump;
  auto created = collector::Collector::Create(config, collector::Log::Open(dir.path() + "/log"),
                                              collector::SystemEnvironment());
  ASSERT_TRUE(created.ok()) << created.status().message();
  std::unique_ptr<collector::Collector> collector = std::move(created).value();
  auto load = [&](unsigned id, const char* name) {
    iJIT_Method_Load m{};
    m.method_id = id;
    m.method_name = const_cast<char*>(name);
    m.method_load_address = code;
    m.method_size = 4;
    return collector->Notify(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &m);
  };
  std::memcpy(code, "\x55\x48\x89\xe5", 4);
  ASSERT_EQ(load(1, "first"), 1);
  std::memcpy(code, "\x31\xc0\xc3\x90", 4);
  ASSERT_EQ(load(2, "again"), 1);
  collector.reset();

  const std::string trace_path = dir.path() + "/jit-" + std::to_string(::getpid()) + ".jsc";
  auto file = test_support::OpenUndamagedTrace(trace_path);
  ASSERT_TRUE(file.has_value());
  std::vector<uint64_t> loads;
  for (const trace::Record& record : file->trace().records) {
    if (std::holds_alternative<trace::CodeEvent>(record.event)) loads.push_back(record.timestamp);
  }
  ASSERT_EQ(loads.size(), 2u);

  auto sources = SourceSet::Open({dir.path()});
  ASSERT_TRUE(sources.ok()) << sources.status().message();
  // The jitdump beside the trace holds the same bytes; the trace supersedes it, as for names.
  const CodeStore store = sources->BuildCodeStore(static_cast<uint32_t>(::getpid()));
  EXPECT_EQ(store.snapshot_count(), 2u);
  const auto address = reinterpret_cast<uintptr_t>(code);
  EXPECT_EQ(Show(store.Read(address, 4, loads[0])), "55 48 89 e5");
  EXPECT_EQ(Show(store.Read(address, 4, loads[1])), "31 c0 c3 90");
  // The jitdump alone carries the code too.
  auto jitdump = SourceSet::Open({dir.path() + "/jit-" + std::to_string(::getpid()) + ".dump"});
  ASSERT_TRUE(jitdump.ok()) << jitdump.status().message();
  const CodeStore from_jitdump = jitdump->BuildCodeStore(std::nullopt);
  EXPECT_EQ(from_jitdump.snapshot_count(), 2u);
  EXPECT_EQ(Show(from_jitdump.Read(address, 4, kLatest)), "31 c0 c3 90");
}

}  // namespace
}  // namespace jitscope::symbolize
