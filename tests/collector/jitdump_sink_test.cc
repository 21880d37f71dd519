// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The jitdump sink, record by record: what each event kind becomes (jitdump_sink.h), read back
// with the strict test reader. perf itself reads these files in tests/perf_interop.
#include "jitscope/collector/jitdump_sink.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <numeric>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "jitdump_test_reader.h"
#include "jitscope/formats/jitdump_writer.h"
#include "sink_test_support.h"
#include "support/temp_dir.h"

namespace jitscope::collector {
namespace {

using formats::JitdumpRecordId;
using testing::CodeRecord;
using testing::CodeSpec;
using testing::TestDebugEntry;
using testing::TestJitdump;
using testing::TestJitdumpRecord;
using trace::LineEntry;

// Code the sink copies from: a distinct byte pattern per buffer.
std::vector<uint8_t> Code(size_t size, uint8_t seed) {
  std::vector<uint8_t> code(size);
  std::iota(code.begin(), code.end(), seed);
  return code;
}

class JitdumpSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto sink = JitdumpSink::Create(dir_.path(), kPid, 1000, Log());
    ASSERT_TRUE(sink.ok()) << sink.status().message();
    sink_ = std::move(sink).value();
  }

  TestJitdump Read() {
    auto dump = testing::ReadTestJitdump(sink_->path());
    EXPECT_TRUE(dump.ok()) << dump.status().message();
    return dump.ok() ? std::move(dump).value() : TestJitdump{};
  }

  void Write(const trace::Record& record) {
    ASSERT_EQ(EventSink::Result::kOk, sink_->Write(record));
  }

  static constexpr uint32_t kPid = 4242;
  test_support::TempDir dir_;
  std::unique_ptr<JitdumpSink> sink_;
};

std::vector<std::pair<uint64_t, uint32_t>> AddressLines(const TestJitdumpRecord& debug,
                                                        uint64_t base) {
  std::vector<std::pair<uint64_t, uint32_t>> lines;
  for (const TestDebugEntry& entry : debug.entries)
    lines.emplace_back(entry.address - base, entry.line);
  return lines;
}

TEST_F(JitdumpSinkTest, FileIsNamedForPerfOwnerOnlyAndMappedExecutable) {
  EXPECT_EQ(dir_.path() + "/jit-4242.dump", sink_->path());
  struct stat st {};
  ASSERT_EQ(0, ::stat(sink_->path().c_str(), &st));
  EXPECT_EQ(0600u, st.st_mode & 0777);
  const TestJitdump dump = Read();
  EXPECT_EQ(formats::kJitdumpMagic, dump.header.magic);
  EXPECT_EQ(1u, dump.header.version);
  EXPECT_EQ(40u, dump.header.total_size);
  EXPECT_EQ(kPid, dump.header.pid);
  EXPECT_EQ(1000u, dump.header.timestamp);
  EXPECT_EQ(0u, dump.header.flags);
  EXPECT_TRUE(dump.records.empty());
  // The marker perf record logs: one private, executable page of the dump (§1.4).
  std::ifstream maps("/proc/self/maps");
  std::string line;
  bool marker = false;
  while (std::getline(maps, line)) {
    if (line.ends_with(sink_->path()) && line.find(" r-xp ") != std::string::npos) marker = true;
  }
  EXPECT_TRUE(marker) << "no r-xp mapping of " << sink_->path();
}

TEST_F(JitdumpSinkTest, LoadWritesDebugInfoThenCodeWithAbsoluteLinesAndTheCodeBytes) {
  const auto code = Code(32, 0x10);
  // Intel's guide's table: ranges 0-1, 1-12, 12-15, 15-18, 18-21.
  const LineEntry table[] = {{1, 2}, {12, 4}, {15, 2}, {18, 1}, {21, 30}};
  Write(CodeRecord(2000,
                   {.method_id = 7,
                    .address = code.data(),
                    .size = 32,
                    .name = "f",
                    .source_file = "/src/f.js",
                    .lines = table},
                   77));
  const TestJitdump dump = Read();
  ASSERT_EQ(2u, dump.records.size());
  const TestJitdumpRecord& debug = dump.records[0];
  const TestJitdumpRecord& load = dump.records[1];
  const auto base = reinterpret_cast<uintptr_t>(code.data());
  ASSERT_EQ(JitdumpRecordId::kCodeDebugInfo, debug.id);
  EXPECT_EQ(base, debug.code_address);
  EXPECT_EQ((std::vector<std::pair<uint64_t, uint32_t>>{
                {0, 2}, {1, 4}, {12, 2}, {15, 1}, {18, 30}, {21, 0}}),
            AddressLines(debug, base));
  for (const auto& entry : debug.entries) EXPECT_EQ("/src/f.js", entry.file);
  ASSERT_EQ(JitdumpRecordId::kCodeLoad, load.id);
  EXPECT_EQ("f", load.name);
  EXPECT_EQ(base, load.code_address);
  EXPECT_EQ(base, load.vma);
  EXPECT_EQ(code, load.code);
  EXPECT_EQ(kPid, load.pid);
  EXPECT_EQ(77u, load.tid);
  EXPECT_EQ(1u, load.code_index);
  EXPECT_EQ(2000u, load.timestamp);
  EXPECT_EQ(1u, sink_->counters().loads);
}

TEST_F(JitdumpSinkTest, SplitRegionsAreSeparateLoadsUnderTheFirstName) {
  const auto a = Code(16, 0), b = Code(8, 0x40);
  const LineEntry b_lines[] = {{8, 50}};
  Write(CodeRecord(2000, {.method_id = 7,
                          .address = a.data(),
                          .size = 16,
                          .name = "method",
                          .source_file = "/src/m.js"}));
  Write(CodeRecord(
      2001, {.method_id = 7, .address = b.data(), .size = 8, .name = "alias", .lines = b_lines}));
  const TestJitdump dump = Read();
  const auto loads = dump.Loads();
  ASSERT_EQ(2u, loads.size());
  EXPECT_EQ("method", loads[0]->name);
  EXPECT_EQ("method", loads[1]->name);
  EXPECT_EQ(b, loads[1]->code);
  EXPECT_LT(loads[0]->code_index, loads[1]->code_index);
  // The second region's lines, in the file of the first notification.
  const TestJitdumpRecord& debug = dump.records[dump.records.size() - 2];
  ASSERT_EQ(JitdumpRecordId::kCodeDebugInfo, debug.id);
  ASSERT_EQ(2u, debug.entries.size());
  EXPECT_EQ("/src/m.js", debug.entries[0].file);
  EXPECT_EQ(50u, debug.entries[0].line);
}

TEST_F(JitdumpSinkTest, InlineRegionReloadsItsParentWithItsOwnFileAndLines) {
  const auto code = Code(32, 0);
  const LineEntry parent_lines[] = {{8, 1}, {24, 2}, {32, 3}};
  const LineEntry inline_lines[] = {{4, 100}, {8, 101}};  // offsets from the inline's start
  Write(CodeRecord(2000, {.method_id = 7,
                          .address = code.data(),
                          .size = 32,
                          .name = "parent",
                          .source_file = "/src/p.js",
                          .lines = parent_lines}));
  Write(CodeRecord(2001, {.api_event = trace::kEventMethodInlineLoadFinished,
                          .method_id = 8,
                          .parent_method_id = 7,
                          .address = code.data() + 12,
                          .size = 8,
                          .name = "callee",
                          .source_file = "/src/c.js",
                          .lines = inline_lines}));
  const TestJitdump dump = Read();
  const auto loads = dump.Loads();
  ASSERT_EQ(2u, loads.size());
  EXPECT_EQ("parent", loads[1]->name);
  EXPECT_GT(loads[1]->timestamp, loads[0]->timestamp);
  EXPECT_NE(loads[0]->code_index, loads[1]->code_index);
  const TestJitdumpRecord& debug = dump.records[dump.records.size() - 2];
  ASSERT_EQ(JitdumpRecordId::kCodeDebugInfo, debug.id);
  const auto base = reinterpret_cast<uintptr_t>(code.data());
  EXPECT_EQ((std::vector<std::pair<uint64_t, uint32_t>>{
                {0, 1}, {8, 2}, {12, 100}, {16, 101}, {20, 2}, {24, 3}, {32, 0}}),
            AddressLines(debug, base));
  EXPECT_EQ("/src/p.js", debug.entries[1].file);
  EXPECT_EQ("/src/c.js", debug.entries[2].file);
  EXPECT_EQ("/src/c.js", debug.entries[3].file);
  EXPECT_EQ("/src/p.js", debug.entries[4].file);
}

TEST_F(JitdumpSinkTest, NestedInlinesLayerByExtentWhateverTheirOrder) {
  const auto code = Code(32, 0);
  const LineEntry parent_lines[] = {{32, 1}};
  const LineEntry outer_lines[] = {{16, 10}};
  const LineEntry inner_lines[] = {{4, 20}};
  // The inner inline is reported first, and before its top-level parent exists at all.
  Write(CodeRecord(2000, {.api_event = trace::kEventMethodInlineLoadFinished,
                          .method_id = 9,
                          .parent_method_id = 8,
                          .address = code.data() + 8,
                          .size = 4,
                          .name = "inner",
                          .source_file = "/src/inner.js",
                          .lines = inner_lines}));
  EXPECT_TRUE(Read().records.empty());
  Write(CodeRecord(2001, {.method_id = 7,
                          .address = code.data(),
                          .size = 32,
                          .name = "top",
                          .source_file = "/src/top.js",
                          .lines = parent_lines}));
  Write(CodeRecord(2002, {.api_event = trace::kEventMethodInlineLoadFinished,
                          .method_id = 8,
                          .parent_method_id = 7,
                          .address = code.data() + 4,
                          .size = 16,
                          .name = "outer",
                          .source_file = "/src/outer.js",
                          .lines = outer_lines}));
  const TestJitdump dump = Read();
  ASSERT_EQ(2u, dump.Loads().size());
  const auto base = reinterpret_cast<uintptr_t>(code.data());
  // First load: the pending inner inline was adopted by its enclosing region.
  EXPECT_EQ((std::vector<std::pair<uint64_t, uint32_t>>{{0, 1}, {8, 20}, {12, 1}, {32, 0}}),
            AddressLines(dump.records[0], base));
  EXPECT_EQ((std::vector<std::pair<uint64_t, uint32_t>>{
                {0, 1}, {4, 10}, {8, 20}, {12, 10}, {20, 1}, {32, 0}}),
            AddressLines(dump.records[2], base));
}

TEST_F(JitdumpSinkTest, ReloadAtTheSameAddressIsANewerLoadWithTheNewCode) {
  auto code = Code(16, 0);
  Write(CodeRecord(2000, {.method_id = 7, .address = code.data(), .size = 16, .name = "old"}));
  code = Code(16, 0x80);  // same size: same buffer, rewritten in place
  Write(CodeRecord(2000, {.method_id = 8, .address = code.data(), .size = 16, .name = "new"}));
  const auto dump = Read();
  const auto loads = dump.Loads();
  ASSERT_EQ(2u, loads.size());
  EXPECT_EQ("new", loads[1]->name);
  EXPECT_EQ(code, loads[1]->code);
  // Both arrived within one clock tick: the newer still sorts after the older.
  EXPECT_GT(loads[1]->timestamp, loads[0]->timestamp);
}

TEST_F(JitdumpSinkTest, UpdatesAreNewLoadsUnderTheMethodsName) {
  const auto code = Code(32, 0);
  const LineEntry lines[] = {{16, 1}, {32, 2}};
  Write(CodeRecord(2000, {.method_id = 7,
                          .address = code.data(),
                          .size = 32,
                          .name = "m",
                          .source_file = "/src/m.js",
                          .lines = lines}));
  // METHOD_UPDATE needs only id, address and size.
  Write(CodeRecord(2001, {.api_event = trace::kEventMethodUpdate,
                          .method_id = 7,
                          .address = code.data() + 8,
                          .size = 8}));
  trace::RangeUpdateEvent patch{reinterpret_cast<uintptr_t>(code.data()) + 12, 8, 1, {}};
  Write(trace::Record{2002, 1, patch});
  trace::RangeUpdateEvent data{reinterpret_cast<uintptr_t>(code.data()), 8, 2, "raw"};
  Write(trace::Record{2003, 1, data});
  const auto dump = Read();
  const auto loads = dump.Loads();
  ASSERT_EQ(3u, loads.size());
  EXPECT_EQ("m", loads[1]->name);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(code.data()) + 8, loads[1]->code_address);
  EXPECT_EQ(std::vector<uint8_t>(code.begin() + 8, code.begin() + 16), loads[1]->code);
  // The UPDATE replaced the region, so the patch inside it is named by the update's method.
  EXPECT_EQ("m", loads[2]->name);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(code.data()) + 12, loads[2]->code_address);
  EXPECT_EQ(4u, loads[2]->code.size());  // clipped to the enclosing region
}

TEST_F(JitdumpSinkTest, AMethodWhoseCodeIsAllOverwrittenIsGone) {
  // "Such a method becomes invalid and its memory region is treated as unloaded": when its id
  // comes back, its first notification is a new one.
  const auto a = Code(16, 0), b = Code(16, 0x40);
  Write(CodeRecord(2000, {.method_id = 5, .address = a.data(), .size = 16, .name = "old"}));
  Write(CodeRecord(2001, {.method_id = 6, .address = a.data(), .size = 16, .name = "over"}));
  Write(CodeRecord(2002, {.method_id = 5, .address = b.data(), .size = 16, .name = "new"}));
  const auto dump = Read();
  const auto loads = dump.Loads();
  ASSERT_EQ(3u, loads.size());
  EXPECT_EQ("new", loads[2]->name);
}

TEST_F(JitdumpSinkTest, ModuleNamesAreShownAsModuleBangName) {
  const auto code = Code(8, 0);
  Write(CodeRecord(2000, {.api_event = trace::kEventMethodLoadFinishedV3,
                          .method_id = 7,
                          .address = code.data(),
                          .size = 8,
                          .name = "kernel",
                          .module = "engine"}));
  EXPECT_EQ("engine!kernel", Read().Loads().at(0)->name);
}

TEST_F(JitdumpSinkTest, ShutdownAndExitWriteOneClose) {
  const auto code = Code(8, 0);
  Write(trace::Record{2000, 1, trace::ShutdownEvent{}});
  sink_->AtExit(3000);  // the last record is already a CLOSE
  Write(CodeRecord(4000, {.method_id = 7, .address = code.data(), .size = 8, .name = "late"}));
  sink_->AtExit(5000);
  const auto dump = Read();
  ASSERT_EQ(3u, dump.records.size());
  EXPECT_EQ(JitdumpRecordId::kCodeClose, dump.records[0].id);
  EXPECT_EQ(JitdumpRecordId::kCodeLoad, dump.records[1].id);
  EXPECT_EQ(JitdumpRecordId::kCodeClose, dump.records[2].id);
  EXPECT_EQ(5000u, dump.records[2].timestamp);
}

TEST_F(JitdumpSinkTest, UnreadableCodeIsLeftOutAndCounted) {
  // An address in no mapping (the lowest page is never mapped for a process).
  const LineEntry lines[] = {{4, 1}};
  Write(CodeRecord(2000, {.method_id = 7,
                          .address = reinterpret_cast<void*>(0x10),
                          .size = 8,
                          .name = "bogus",
                          .source_file = "/src/x.js",
                          .lines = lines}));
  const auto code = Code(8, 0);
  Write(CodeRecord(2001, {.method_id = 8, .address = code.data(), .size = 8, .name = "real"}));
  const auto dump = Read();
  ASSERT_EQ(1u, dump.records.size());  // not even the bogus region's DEBUG_INFO
  EXPECT_EQ("real", dump.records[0].name);
  EXPECT_EQ(1u, sink_->counters().unreadable_code);
}

TEST_F(JitdumpSinkTest, CodeThatStopsBeingReadablePartWayLeavesNoTornRecord) {
  // Two pages, the second inaccessible: the kernel copies the first page, then faults.
  const long page = ::sysconf(_SC_PAGESIZE);
  void* memory =
      ::mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(MAP_FAILED, memory);
  auto* bytes = static_cast<uint8_t*>(memory);
  std::fill(bytes, bytes + page, 0xc3);
  ASSERT_EQ(0, ::mprotect(bytes + page, page, PROT_NONE));
  Write(CodeRecord(2000, {.method_id = 7, .address = bytes, .size = 64, .name = "whole"}));
  Write(CodeRecord(2001, {.method_id = 8,
                          .address = bytes + page - 64,
                          .size = static_cast<uint32_t>(128),
                          .name = "straddles"}));
  Write(CodeRecord(2002, {.method_id = 9, .address = bytes + 64, .size = 64, .name = "after"}));
  ::munmap(memory, 2 * page);
  const auto dump = Read();
  EXPECT_EQ(0u, dump.torn_tail_bytes);
  const auto loads = dump.Loads();
  ASSERT_EQ(2u, loads.size());
  EXPECT_EQ("whole", loads[0]->name);
  EXPECT_EQ("after", loads[1]->name);
  EXPECT_EQ(loads[0]->code_index + 1, loads[1]->code_index);
  EXPECT_EQ(1u, sink_->counters().unreadable_code);
}

TEST_F(JitdumpSinkTest, AnUnloadedMethodTakesItsRegionsAlong) {
  const auto code = Code(16, 0);
  Write(CodeRecord(2000, {.method_id = 7, .address = code.data(), .size = 16, .name = "m"}));
  Write(trace::Record{2001, 1, trace::UnloadEvent{7}});
  const LineEntry lines[] = {{4, 1}};
  Write(CodeRecord(2002, {.api_event = trace::kEventMethodInlineLoadFinished,
                          .method_id = 8,
                          .parent_method_id = 7,
                          .address = code.data(),
                          .size = 4,
                          .name = "i",
                          .source_file = "/src/i.js",
                          .lines = lines}));
  EXPECT_EQ(1u, Read().Loads().size());  // the inline found no region to reload
}

TEST(JitdumpSinkCreate, AnExistingDumpIsNeverTouched) {
  test_support::TempDir dir;
  const std::string taken = dir.path() + "/jit-77.dump";
  { std::ofstream(taken) << "someone else's"; }
  auto sink = JitdumpSink::Create(dir.path(), 77, 1, Log());
  ASSERT_TRUE(sink.ok()) << sink.status().message();
  EXPECT_NE(taken, (*sink)->path());
  EXPECT_TRUE((*sink)->path().starts_with(dir.path() + "/jitscope-77-"));
  EXPECT_TRUE((*sink)->path().ends_with("/jit-77.dump"));
  std::ifstream in(taken);
  std::string content;
  std::getline(in, content);
  EXPECT_EQ("someone else's", content);
}

TEST(JitdumpSinkCrash, EveryAcknowledgedLoadSurvivesSigkill) {
  test_support::TempDir dir;
  constexpr int kLoads = 200;
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto sink = JitdumpSink::Create(dir.path(), static_cast<uint32_t>(::getpid()), 1, Log());
    if (!sink.ok()) ::_exit(2);
    const auto code = Code(4096, 1);
    for (int i = 0; i < kLoads; ++i) {
      const std::string name = "m" + std::to_string(i);
      if ((*sink)->Write(CodeRecord(10 + i, {.method_id = static_cast<uint32_t>(i + 1),
                                             .address = code.data(),
                                             .size = 4096,
                                             .name = name})) != EventSink::Result::kOk) {
        ::_exit(3);
      }
    }
    ::kill(::getpid(), SIGKILL);
    ::_exit(4);
  }
  int status = 0;
  ASSERT_EQ(child, ::waitpid(child, &status, 0));
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "status " << status;
  auto dump = testing::ReadTestJitdump(dir.path() + "/" + formats::JitdumpFileName(child));
  ASSERT_TRUE(dump.ok()) << dump.status().message();
  EXPECT_EQ(0u, dump->torn_tail_bytes);
  ASSERT_EQ(static_cast<size_t>(kLoads), dump->Loads().size());
  EXPECT_EQ("m199", dump->Loads().back()->name);
  EXPECT_EQ(Code(4096, 1), dump->Loads().back()->code);
}

TEST(JitdumpSinkThreads, ConcurrentLoadsStayWholeWithUniqueIndexes) {
  test_support::TempDir dir;
  auto sink = JitdumpSink::Create(dir.path(), 1, 1, Log());
  ASSERT_TRUE(sink.ok()) << sink.status().message();
  constexpr int kThreads = 4, kLoadsPerThread = 250;
  std::vector<std::vector<uint8_t>> codes;
  for (int t = 0; t < kThreads; ++t) codes.push_back(Code(100 + t * 7, static_cast<uint8_t>(t)));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kLoadsPerThread; ++i) {
        const LineEntry lines[] = {{10, static_cast<unsigned>(i + 1)}};
        (*sink)->Write(CodeRecord(5,
                                  {.method_id = static_cast<uint32_t>(t * 1000 + i + 1),
                                   .address = codes[t].data(),
                                   .size = static_cast<uint32_t>(codes[t].size()),
                                   .name = "t" + std::to_string(t),
                                   .source_file = "/s.js",
                                   .lines = lines},
                                  static_cast<uint32_t>(t)));
      }
    });
  }
  for (auto& thread : threads) thread.join();
  auto dump = testing::ReadTestJitdump((*sink)->path());
  ASSERT_TRUE(dump.ok()) << dump.status().message();
  const auto loads = dump->Loads();
  ASSERT_EQ(static_cast<size_t>(kThreads * kLoadsPerThread), loads.size());
  std::set<uint64_t> indexes;
  uint64_t previous = 0;
  for (size_t i = 0; i < dump->records.size(); ++i) {
    const auto& record = dump->records[i];
    // Every DEBUG_INFO sits right before the load it describes, and timestamps grow in file
    // order (a load shares its DEBUG_INFO's).
    EXPECT_EQ(i % 2 == 0 ? JitdumpRecordId::kCodeDebugInfo : JitdumpRecordId::kCodeLoad, record.id);
    if (record.id != JitdumpRecordId::kCodeLoad) {
      EXPECT_GT(record.timestamp, previous);
      previous = record.timestamp;
      continue;
    }
    EXPECT_EQ(previous, record.timestamp);
    EXPECT_EQ(record.code_address, dump->records[i - 1].code_address);
    indexes.insert(record.code_index);
    const int t = record.name.back() - '0';
    EXPECT_EQ(codes[t], record.code);
    EXPECT_EQ(static_cast<uint32_t>(t), record.tid);
  }
  EXPECT_EQ(loads.size(), indexes.size());
}

}  // namespace
}  // namespace jitscope::collector
