// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/base/files.h"
#include "jitscope/trace/format.h"
#include "jitscope/trace/reader.h"
#include "jitscope/trace/writer.h"
#include "trace_test_util.h"

namespace jitscope::trace {
namespace {

class WriterReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/jitscope-trace-test.XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }

  std::unique_ptr<TraceWriter> NewWriter(TraceWriter::Options options = {}) {
    auto fd = base::CreateExclusive(dir_, "t.jsc");
    EXPECT_TRUE(fd.ok()) << fd.status().message();
    auto writer = TraceWriter::Create(std::move(fd).value(), kIdentity, options);
    EXPECT_TRUE(writer.ok()) << writer.status().message();
    return std::move(writer).value();
  }
  std::string path() const { return dir_ + "/t.jsc"; }

  // Reads the file into memory (so tests can damage a copy).
  std::vector<uint8_t> ReadBytes() const {
    auto file = base::MappedFile::Open(path());
    EXPECT_TRUE(file.ok());
    return {file->data(), file->data() + file->size()};
  }

  static inline const TraceIdentity kIdentity{4242, "/usr/bin/some-jit", 1000, 2000};
  std::string dir_;
};

CodeEvent Load(uint32_t id, uint64_t address, std::string_view name) {
  CodeEvent code;
  code.api_event = kEventMethodLoadFinished;
  code.method_id = id;
  code.address = address;
  code.size = 16;
  code.name = name;
  return code;
}

TEST_F(WriterReaderTest, HeaderAndRecordsInTimeOrder) {
  auto writer = NewWriter();
  ASSERT_EQ(writer->Append(Load(1000, 0x100, "a"), 30, 11), TraceWriter::AppendResult::kOk);
  ASSERT_EQ(writer->Append(UnloadEvent{1000}, 10, 11), TraceWriter::AppendResult::kOk);
  ASSERT_EQ(writer->Append(ShutdownEvent{}, 20, 11), TraceWriter::AppendResult::kOk);

  auto file = TraceFile::Open(path());
  ASSERT_TRUE(file.ok()) << file.status().message();
  const ParsedTrace& t = file->trace();
  EXPECT_TRUE(t.damage.ok());
  EXPECT_EQ(t.header.version, kFormatVersion);
  EXPECT_EQ(t.header.pid, 4242u);
  EXPECT_EQ(t.header.exe_path, "/usr/bin/some-jit");
  EXPECT_EQ(t.header.start_monotonic_ns, 1000u);
  EXPECT_EQ(t.header.start_realtime_ns, 2000u);
  EXPECT_EQ(t.header.pointer_size, sizeof(void*));
  ASSERT_EQ(t.records.size(), 3u);
  EXPECT_EQ(Describe(t.records[0]), "10 tid=11 unload id=1000");
  EXPECT_EQ(Describe(t.records[1]), "20 tid=11 shutdown");
  EXPECT_EQ(Describe(t.records[2]),
            "30 tid=11 code event=13 id=1000 parent=0 addr=256 size=16 class_id=0 arch=0 "
            "name=\"a\" class=null source=null module=null lines=");
  EXPECT_EQ(t.stats.records, 3u);
  EXPECT_EQ(t.stats.chunks, 1u);
  EXPECT_EQ(t.stats.torn_records, 0u);
}

TEST_F(WriterReaderTest, RecordsLargerThanAChunkAndASegment) {
  auto writer = NewWriter({.chunk_size = 4096, .segment_size = 16384});
  const std::string big(100000, 'x');  // larger than chunk and segment
  for (uint32_t i = 1; i <= 50; ++i) {
    ASSERT_EQ(writer->Append(Load(i, i * 16, i == 25 ? std::string_view(big) : "m"), i, 1),
              TraceWriter::AppendResult::kOk);
  }
  auto file = TraceFile::Open(path());
  ASSERT_TRUE(file.ok());
  const ParsedTrace& t = file->trace();
  EXPECT_TRUE(t.damage.ok()) << t.damage.message();
  ASSERT_EQ(t.records.size(), 50u);
  for (uint32_t i = 1; i <= 50; ++i) {
    const auto& code = std::get<CodeEvent>(t.records[i - 1].event);
    EXPECT_EQ(code.method_id, i);
    EXPECT_EQ(code.name->size(), i == 25 ? big.size() : 1u);
  }
}

TEST_F(WriterReaderTest, ManyThreadsLoseAndDuplicateNothing) {
  auto writer = NewWriter({.chunk_size = 4096, .segment_size = 64 * 1024});
  constexpr uint32_t kThreads = 8;
  constexpr uint32_t kPerThread = 20000;
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (uint32_t i = 0; i < kPerThread; ++i) {
        const uint32_t id = t * kPerThread + i + 1;
        ASSERT_EQ(writer->Append(Load(id, id, "method"), id, 100 + t),
                  TraceWriter::AppendResult::kOk);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  auto file = TraceFile::Open(path());
  ASSERT_TRUE(file.ok());
  const ParsedTrace& t = file->trace();
  EXPECT_TRUE(t.damage.ok()) << t.damage.message();
  ASSERT_EQ(t.records.size(), kThreads * kPerThread);
  std::set<uint32_t> ids;
  for (const auto& record : t.records) {
    const auto& code = std::get<CodeEvent>(record.event);
    EXPECT_EQ(record.tid, 100 + (code.method_id - 1) / kPerThread);
    ids.insert(code.method_id);
  }
  EXPECT_EQ(ids.size(), kThreads * kPerThread);
}

// What a SIGKILL in the middle of Append leaves: a body without its header.
TEST_F(WriterReaderTest, TornLastRecordIsSkippedAndCounted) {
  auto writer = NewWriter();
  ASSERT_EQ(writer->Append(Load(1, 1, "a"), 1, 1), TraceWriter::AppendResult::kOk);
  writer.reset();
  std::vector<uint8_t> bytes = ReadBytes();
  // First chunk at 4096: chunk header (16) + one record of 8 + 64 + 8 bytes.
  const size_t next = kGranule + sizeof(ChunkHeader) + 80;
  std::memset(bytes.data() + next + 8, 0x5A, 40);  // body written, header never published
  auto t = ParseTrace(bytes);
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->damage.ok());
  EXPECT_EQ(t->records.size(), 1u);
  EXPECT_EQ(t->stats.torn_records, 1u);
}

TEST_F(WriterReaderTest, DamageIsReportedWithItsOffsetAndTheRestIsRead) {
  auto writer = NewWriter({.chunk_size = 4096, .segment_size = 4 * 4096});
  // Two threads → two chunks.
  ASSERT_EQ(writer->Append(Load(1, 1, "a"), 1, 1), TraceWriter::AppendResult::kOk);
  std::thread([&] {
    ASSERT_EQ(writer->Append(Load(2, 2, "b"), 2, 2), TraceWriter::AppendResult::kOk);
  }).join();
  writer.reset();
  std::vector<uint8_t> bytes = ReadBytes();
  bytes[kGranule] ^= 0xFF;  // break the first chunk's magic
  auto t = ParseTrace(bytes);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->damage.message(), "damaged trace at offset 4096: invalid chunk header");
  ASSERT_EQ(t->records.size(), 1u);
  EXPECT_EQ(std::get<CodeEvent>(t->records[0].event).method_id, 2u);

  // A record whose size runs past its chunk.
  bytes = ReadBytes();
  const uint32_t huge = 1u << 20;
  std::memcpy(bytes.data() + kGranule + sizeof(ChunkHeader), &huge, sizeof(huge));
  t = ParseTrace(bytes);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->damage.message(), "damaged trace at offset 4112: invalid record size");
  EXPECT_EQ(t->records.size(), 1u);
}

TEST_F(WriterReaderTest, TruncatedFileYieldsWhatItHolds) {
  auto writer = NewWriter();
  for (uint32_t i = 1; i <= 10; ++i) {
    ASSERT_EQ(writer->Append(Load(i, i, "m"), i, 1), TraceWriter::AppendResult::kOk);
  }
  writer.reset();
  std::vector<uint8_t> bytes = ReadBytes();
  bytes.resize(kGranule + sizeof(ChunkHeader) + 80 * 4 + 20);  // 4 records and a piece
  auto t = ParseTrace(bytes);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->records.size(), 4u);
  EXPECT_EQ(t->damage.message(), "damaged trace at offset 4432: invalid record size");
}

TEST(ParseTraceTest, RejectsWhatIsNotATrace) {
  const std::string junk = "hello, world";
  EXPECT_EQ(
      ParseTrace({reinterpret_cast<const uint8_t*>(junk.data()), junk.size()}).status().message(),
      "not a jitscope trace (bad magic)");
  FileHeader header{};
  std::memcpy(header.magic, kFileMagic, sizeof(kFileMagic));
  header.version = 99;
  auto* p = reinterpret_cast<const uint8_t*>(&header);
  EXPECT_EQ(ParseTrace({p, sizeof(header)}).status().message(),
            "unsupported trace version 99 (this reader reads version 1)");
  header.version = kFormatVersion;
  header.granule = 4096;
  header.header_size = 4096;
  EXPECT_EQ(ParseTrace({p, sizeof(header)}).status().message(), "trace header is truncated");
  header.granule = 1000;
  EXPECT_EQ(ParseTrace({p, sizeof(header)}).status().message(),
            "invalid granule size 1000 in trace header");
}

}  // namespace
}  // namespace jitscope::trace
