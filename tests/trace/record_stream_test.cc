// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// RecordStream against ParseTrace: the same records in the same order, the same counts and the
// same damage, for traces of several threads whose times interleave, tie and go back, and for
// every damage of a small trace.
#include "jitscope/trace/record_stream.h"

#include <unistd.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/base/files.h"
#include "jitscope/trace/format.h"
#include "jitscope/trace/reader.h"
#include "jitscope/trace/writer.h"
#include "support/temp_dir.h"
#include "trace_test_util.h"

namespace jitscope::trace {
namespace {

// Describe(), or for the thousands of damaged files, a shorter key: when, which thread, which
// type of record (and an unload's method id).
using Describer = std::string (*)(const Record&);
std::string Key(const Record& r) {
  const auto* unload = std::get_if<UnloadEvent>(&r.event);
  return std::to_string(r.timestamp) + "/" + std::to_string(r.tid) + "/" +
         std::to_string(r.event.index()) + (r.snapshot ? "s" : "") + "/" +
         std::to_string(unload ? unload->method_id : 0);
}

struct Read {
  std::vector<std::string> records;
  TraceStats stats;
  std::string damage;
};

bool operator==(const TraceStats& a, const TraceStats& b) {
  return a.chunks == b.chunks && a.records == b.records && a.torn_records == b.torn_records &&
         a.unknown_records == b.unknown_records && a.damaged_regions == b.damaged_regions;
}

Read Parsed(std::span<const uint8_t> bytes, Describer describe = Describe) {
  auto t = ParseTrace(bytes);
  if (!t.ok()) return {{}, {}, t.status().message()};
  Read read{{}, t->stats, t->damage.message()};
  for (const Record& record : t->records) read.records.push_back(describe(record));
  return read;
}

Read Streamed(std::span<const uint8_t> bytes, Describer describe = Describe) {
  auto stream = RecordStream::Open(bytes);
  if (!stream.ok()) return {{}, {}, stream.status().message()};
  Read read{{}, stream->stats(), stream->damage().message()};
  while (const auto record = stream->Next()) read.records.push_back(describe(*record));
  return read;
}

void ExpectReadAlike(std::span<const uint8_t> bytes, const std::string& what,
                     Describer describe = Describe) {
  const Read parsed = Parsed(bytes, describe);
  const Read streamed = Streamed(bytes, describe);
  EXPECT_EQ(streamed.records, parsed.records) << what;
  EXPECT_TRUE(streamed.stats == parsed.stats) << what;
  EXPECT_EQ(streamed.damage, parsed.damage) << what;
}

std::vector<uint8_t> ReadBytes(const std::string& path) {
  auto file = base::MappedFile::Open(path);
  EXPECT_TRUE(file.ok()) << file.status().message();
  if (!file.ok()) return {};
  return {file->data(), file->data() + file->size()};
}

std::unique_ptr<TraceWriter> NewWriter(const std::string& dir) {
  auto fd = base::CreateExclusive(dir, "t.jsc");
  EXPECT_TRUE(fd.ok()) << fd.status().message();
  // One granule a chunk: every few records, a thread starts a chunk of its own.
  auto writer = TraceWriter::Create(std::move(fd).value(), {4242, "/bin/jit", 1000, 2000},
                                    {.chunk_size = kGranule, .segment_size = 4 * kGranule});
  EXPECT_TRUE(writer.ok()) << writer.status().message();
  return std::move(writer).value();
}

// Thread `t`'s record `i`: its times climb, tie with the other threads' and now and then go back.
uint64_t TimeOf(uint32_t t, uint32_t i) { return i / 3 + (i % 40 < 20 ? 0 : 100) + t % 2; }

TEST(RecordStreamTest, ReadsTheRecordsParseTraceReadsInItsOrder) {
  test_support::TempDir dir;
  constexpr uint32_t kThreads = 3;
  constexpr uint32_t kPerThread = 600;
  {
    auto writer = NewWriter(dir.path());
    for (uint32_t t = 0; t < kThreads; ++t) {
      std::thread([&writer, t] {
        for (uint32_t i = 0; i < kPerThread; ++i) {
          const UnloadEvent unload{t * kPerThread + i};
          ASSERT_EQ(writer->Append(unload, TimeOf(t, i), 100 + t), TraceWriter::AppendResult::kOk);
        }
      }).join();
    }
  }
  const std::vector<uint8_t> bytes = ReadBytes(dir.path() + "/t.jsc");
  const Read streamed = Streamed(bytes);
  EXPECT_EQ(streamed.damage, "");
  ASSERT_EQ(streamed.records.size(), kThreads * kPerThread);
  EXPECT_EQ(streamed.records.front(), "0 tid=100 unload id=0");
  EXPECT_EQ(streamed.records.back(), "300 tid=101 unload id=1199");
  ExpectReadAlike(bytes, "intact");
  // Walked again, twice, after Next() has read some: the same records each time.
  auto stream = RecordStream::Open(bytes);
  ASSERT_TRUE(stream.ok());
  ASSERT_TRUE(stream->Next().has_value());
  for (int walk = 0; walk < 2; ++walk) {
    std::vector<std::string> walked;
    stream->ForEach([&walked](const Record& record) { walked.push_back(Describe(record)); });
    EXPECT_EQ(walked, streamed.records) << "walk " << walk;
  }
  EXPECT_EQ(Describe(*stream->Next()), streamed.records[1]);
}

TEST(RecordStreamTest, ADamagedTraceReadsAsParseTraceReadsIt) {
  test_support::TempDir dir;
  {
    auto writer = NewWriter(dir.path());
    // Four threads, so four chunks, whose times interleave.
    for (uint32_t t = 0; t < 4; ++t) {
      std::thread([&writer, t] {
        for (uint32_t i = 0; i < 50; ++i) {
          ASSERT_EQ(writer->Append(UnloadEvent{i}, TimeOf(t, i), 100 + t),
                    TraceWriter::AppendResult::kOk);
        }
      }).join();
    }
    writer->Trim();
  }
  const std::vector<uint8_t> whole = ReadBytes(dir.path() + "/t.jsc");
  ASSERT_EQ(whole.size(), 5 * kGranule);
  FileHeader header{};
  std::memcpy(&header, whole.data(), sizeof(header));
  for (size_t cut = header.header_size; cut <= whole.size(); cut += 8) {
    ExpectReadAlike({whole.data(), cut}, "cut at " + std::to_string(cut), Key);
  }
  // Each word of the first 512 bytes of each chunk: its header and first records.
  std::vector<uint8_t> damaged = whole;
  for (size_t chunk = header.header_size; chunk < whole.size(); chunk += kGranule) {
    for (size_t at = chunk; at < chunk + 512; at += 4) {
      for (const uint32_t word : {0u, 0xFFFFFFFFu, 0x10u}) {
        std::memcpy(damaged.data() + at, &word, sizeof(word));
        ExpectReadAlike(damaged, "word " + std::to_string(word) + " at " + std::to_string(at), Key);
      }
      std::memcpy(damaged.data() + at, whole.data() + at, 4);
    }
    ExpectReadAlike(damaged, "intact again");
  }
}

TEST(RecordStreamTest, AFileIsOpenedWithItsPathInEveryMessage) {
  test_support::TempDir dir;
  const std::string path = dir.path() + "/t.jsc";
  {
    auto writer = NewWriter(dir.path());
    ASSERT_EQ(writer->Append(UnloadEvent{7}, 5, 1), TraceWriter::AppendResult::kOk);
  }
  std::vector<uint8_t> bytes = ReadBytes(path);
  auto stream = RecordStream::Open(path);
  ASSERT_TRUE(stream.ok()) << stream.status().message();
  EXPECT_EQ(stream->header().pid, 4242u);
  EXPECT_EQ(stream->header().exe_path, "/bin/jit");
  auto record = stream->Next();
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(Describe(*record), "5 tid=1 unload id=7");
  EXPECT_FALSE(stream->Next().has_value());
  EXPECT_TRUE(stream->damage().ok());

  bytes[kGranule] ^= 0xFF;  // the chunk's magic
  {
    auto fd = base::CreateExclusive(dir.path(), "damaged.jsc");
    ASSERT_TRUE(fd.ok());
    ASSERT_EQ(::write(fd->get(), bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  }
  stream = RecordStream::Open(dir.path() + "/damaged.jsc");
  ASSERT_TRUE(stream.ok()) << stream.status().message();
  EXPECT_FALSE(stream->Next().has_value());
  EXPECT_EQ(stream->damage().message(),
            dir.path() + "/damaged.jsc: damaged trace at offset 4096: invalid chunk header");
  EXPECT_EQ(RecordStream::Open(dir.path() + "/none").status().message().rfind("cannot open", 0),
            0u);
  bytes[0] ^= 0xFF;  // the file's magic
  {
    auto fd = base::CreateExclusive(dir.path(), "foreign");
    ASSERT_TRUE(fd.ok());
    ASSERT_EQ(::write(fd->get(), bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  }
  EXPECT_EQ(RecordStream::Open(dir.path() + "/foreign").status().message(),
            dir.path() + "/foreign: not a jitscope trace (bad magic)");
}

}  // namespace
}  // namespace jitscope::trace
