// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <utility>
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

class WriterReaderTest : public ::testing::Test {
 protected:
  std::unique_ptr<TraceWriter> NewWriter(TraceWriter::Options options = {}) {
    auto fd = base::CreateExclusive(dir_, "t.jsc");
    EXPECT_TRUE(fd.ok()) << fd.status().message();
    auto writer = TraceWriter::Create(std::move(fd).value(), kIdentity, options);
    EXPECT_TRUE(writer.ok()) << writer.status().message();
    return std::move(writer).value();
  }
  std::string path() const { return dir_ + "/t.jsc"; }

  // The file's size and the disk it holds, in bytes.
  std::pair<uint64_t, uint64_t> SizeAndDisk() const {
    struct stat st {};
    EXPECT_EQ(::stat(path().c_str(), &st), 0);
    return {static_cast<uint64_t>(st.st_size), static_cast<uint64_t>(st.st_blocks) * 512};
  }

  // Every record of the trace, described, after checking that it reads without damage.
  std::vector<std::string> DescribeAll(const std::vector<uint8_t>& bytes) const {
    auto t = ParseTrace(bytes);
    EXPECT_TRUE(t.ok()) << t.status().message();
    if (!t.ok()) return {};
    EXPECT_TRUE(t->damage.ok()) << t->damage.message();
    std::vector<std::string> out;
    for (const auto& record : t->records) out.push_back(Describe(record));
    return out;
  }

  // Reads the file into memory (so tests can damage a copy).
  std::vector<uint8_t> ReadBytes() const {
    auto file = base::MappedFile::Open(path());
    EXPECT_TRUE(file.ok());
    return {file->data(), file->data() + file->size()};
  }

  static inline const TraceIdentity kIdentity{4242, "/usr/bin/some-jit", 1000, 2000};
  test_support::TempDir tmp_;
  const std::string dir_ = tmp_.path();
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

// Starts `threads` threads; thread t appends loads with ids t * per_thread + 1 and on, with tid
// 100 + t, then counts `running` down.
std::vector<std::thread> AppendFromThreads(TraceWriter& writer, uint32_t threads,
                                           uint32_t per_thread, std::atomic<uint32_t>& running) {
  std::vector<std::thread> started;
  for (uint32_t t = 0; t < threads; ++t) {
    started.emplace_back([&writer, &running, t, per_thread] {
      for (uint32_t i = 0; i < per_thread; ++i) {
        const uint32_t id = t * per_thread + i + 1;
        ASSERT_EQ(writer.Append(Load(id, id, "method"), id, 100 + t),
                  TraceWriter::AppendResult::kOk);
      }
      running.fetch_sub(1);
    });
  }
  return started;
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

TEST_F(WriterReaderTest, FlaggedRecordsReadBackAsRepeats) {
  auto writer = NewWriter();
  ASSERT_EQ(writer->Append(Load(1, 0x100, "a"), 1, 11, kRecordFlagSnapshot),
            TraceWriter::AppendResult::kOk);
  ASSERT_EQ(writer->Append(UnloadEvent{1}, 2, 11), TraceWriter::AppendResult::kOk);
  EXPECT_EQ(DescribeAll(ReadBytes()),
            (std::vector<std::string>{
                "snapshot 1 tid=11 code event=13 id=1 parent=0 addr=256 size=16 class_id=0 "
                "arch=0 name=\"a\" class=null source=null module=null lines=",
                "2 tid=11 unload id=1"}));
}

TEST_F(WriterReaderTest, SizeGrowsBySegmentsAndTheFileReadsBackWhileWritten) {
  auto writer = NewWriter({.first_segment_size = 8192});
  const uint64_t first = writer->size();
  EXPECT_EQ(first, SizeAndDisk().first);
  for (uint32_t id = 1; id <= 200; ++id) {
    ASSERT_EQ(writer->Append(Load(id, id * 16, "method"), id, 11), TraceWriter::AppendResult::kOk);
  }
  EXPECT_GT(writer->size(), first);
  EXPECT_EQ(writer->size(), SizeAndDisk().first);
  auto mapped = writer->MapForReading();
  ASSERT_TRUE(mapped.ok()) << mapped.status().message();
  auto t = ParseTrace({mapped->data(), mapped->size()});
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->records.size(), 200u);
}

TEST_F(WriterReaderTest, ARetiredWriterKeepsItsFileAndWritesNoMore) {
  auto writer = NewWriter();
  ASSERT_EQ(writer->Append(Load(1, 0x100, "a"), 1, 11), TraceWriter::AppendResult::kOk);
  const std::vector<uint8_t> before = ReadBytes();
  writer->Retire();
  EXPECT_TRUE(writer->retired());
  // This thread's chunk had room: the record lands in the zero pages that replaced it.
  EXPECT_EQ(writer->Append(Load(2, 0x200, "b"), 2, 11), TraceWriter::AppendResult::kOk);
  // Another thread must claim a chunk, which a retired writer refuses.
  std::thread([&] {
    EXPECT_EQ(writer->Append(Load(3, 0x300, "c"), 3, 12), TraceWriter::AppendResult::kWriteFailed);
  }).join();
  EXPECT_EQ(writer->error().message(), "the trace writer is retired");
  EXPECT_FALSE(writer->MapForReading().ok());
  writer->Trim();  // nothing to do, and no crash
  EXPECT_EQ(ReadBytes(), before);
  EXPECT_EQ(DescribeAll(before).size(), 1u);
}

// What a thread that appended while the writer was retired learns: whether its record is in the
// file (stored before the pages were replaced) or was lost in their zeros (stored after).
TEST_F(WriterReaderTest, ARecordAppendedAroundRetirementIsKnownToBeInTheFileOrNot) {
  auto writer = NewWriter();
  ASSERT_EQ(writer->Append(Load(1, 0x100, "a"), 1, 11), TraceWriter::AppendResult::kOk);
  EXPECT_TRUE(writer->LastAppendReachedFile());
  writer->Retire();
  // Stored before the retirement: in the file, which this thread could not tell by retired().
  EXPECT_TRUE(writer->LastAppendReachedFile());
  // Stored into the zeros that replaced the file's pages: not in the file.
  ASSERT_EQ(writer->Append(Load(2, 0x200, "b"), 2, 11), TraceWriter::AppendResult::kOk);
  EXPECT_FALSE(writer->LastAppendReachedFile());
  EXPECT_EQ(DescribeAll(ReadBytes()),
            std::vector<std::string>{"1 tid=11 code event=13 id=1 parent=0 addr=256 size=16 "
                                     "class_id=0 arch=0 name=\"a\" class=null source=null "
                                     "module=null lines="});
}

// A trace cut short anywhere inside its chunk (a truncated copy) reads as damaged, however few
// bytes of a record header are left: a cut 1-7 bytes into one read as a clean end, and the
// records after it were lost without a word.
TEST_F(WriterReaderTest, ATraceCutShortAnywhereInsideAChunkIsDamaged) {
  auto writer = NewWriter();
  for (uint32_t id = 1; id <= 5; ++id) {
    ASSERT_EQ(writer->Append(Load(id, id * 16, "m"), id, 11), TraceWriter::AppendResult::kOk);
  }
  writer->Trim();
  const std::vector<uint8_t> whole = ReadBytes();
  auto parsed = ParseTrace(whole);
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(parsed->damage.ok()) << parsed->damage.message();
  EXPECT_EQ(parsed->records.size(), 5u);
  FileHeader header{};
  std::memcpy(&header, whole.data(), sizeof(header));
  for (size_t cut = header.header_size + 1; cut < whole.size(); ++cut) {
    auto cut_short = ParseTrace({whole.data(), cut});
    ASSERT_TRUE(cut_short.ok()) << cut;
    EXPECT_NE(cut_short->damage.message().find("it was cut short"), std::string::npos)
        << cut << ": " << cut_short->damage.message();
  }
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
  std::atomic<uint32_t> running{kThreads};
  for (auto& thread : AppendFromThreads(*writer, kThreads, kPerThread, running)) thread.join();
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

// The first segment is small and each next one doubles, up to segment_size; so does each
// thread's chunk, up to chunk_size.
TEST_F(WriterReaderTest, SegmentsAndChunksGrowGeometrically) {
  auto writer = NewWriter();
  EXPECT_EQ(SizeAndDisk().first, kGranule + 64 * 1024u);
  const std::string name(1000, 'n');  // 1080-byte records
  std::vector<uint64_t> sizes = {SizeAndDisk().first};
  for (uint32_t i = 1; i <= 12000; ++i) {  // ~12.4 MiB
    ASSERT_EQ(writer->Append(Load(i, i, name), i, 1), TraceWriter::AppendResult::kOk);
    if (SizeAndDisk().first != sizes.back()) sizes.push_back(SizeAndDisk().first);
  }
  constexpr uint64_t KiB = 1024, MiB = 1024 * KiB;
  // The header, then 64 KiB, 128 KiB, ... 2 MiB, then 4 MiB at a time.
  std::vector<uint64_t> expected;
  uint64_t size = kGranule, segment = 64 * KiB;
  while (size < sizes.back()) {
    size += segment;
    expected.push_back(size);
    segment = std::min(2 * segment, 4 * MiB);
  }
  EXPECT_EQ(sizes, expected);
  EXPECT_EQ(expected.size(), 9u);  // 6 growing segments, then three of 4 MiB
  // One thread's chunks: 4, 8, 16 and 32 KiB (3, 7, 15 and 30 records), then 64 KiB (61 each).
  auto t = ParseTrace(ReadBytes());
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->records.size(), 12000u);
  EXPECT_EQ(t->stats.chunks, 4u + (12000 - 55 + 60) / 61);
}

// A clean end gives back what follows the last record: the file holds its header, one chunk
// header and the records, to the next granule, in size and on disk. Records appended after it grow
// the file again from the first segment size, and a second Trim() cuts it again.
TEST_F(WriterReaderTest, TrimEndsTheFileAfterItsLastRecordAndAppendingGoesOn) {
  auto writer = NewWriter();
  for (uint32_t i = 1; i <= 26; ++i) {  // 26 records of 80 bytes
    ASSERT_EQ(writer->Append(Load(i, i, "m"), i, 1), TraceWriter::AppendResult::kOk);
  }
  const std::vector<std::string> before = DescribeAll(ReadBytes());
  ASSERT_EQ(before.size(), 26u);
  EXPECT_EQ(SizeAndDisk().first, kGranule + 64 * 1024u);
  writer->Trim();
  EXPECT_EQ(SizeAndDisk(), std::make_pair(uint64_t{2 * kGranule}, uint64_t{2 * kGranule}));
  EXPECT_EQ(DescribeAll(ReadBytes()), before);
  writer->Trim();  // nothing claimed since: nothing changes
  EXPECT_EQ(SizeAndDisk().first, 2 * kGranule);

  ASSERT_EQ(writer->Append(Load(27, 27, "m"), 27, 1), TraceWriter::AppendResult::kOk);
  EXPECT_EQ(SizeAndDisk().first, 2 * kGranule + 64 * 1024u);
  writer->Trim();
  EXPECT_EQ(SizeAndDisk(), std::make_pair(uint64_t{3 * kGranule}, uint64_t{3 * kGranule}));
  const std::vector<std::string> after = DescribeAll(ReadBytes());
  ASSERT_EQ(after.size(), 27u);
  EXPECT_EQ(std::vector<std::string>(after.begin(), after.begin() + 26), before);
  auto t = ParseTrace(ReadBytes());
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->stats.chunks, 2u);
}

// Another thread's chunk, last in the file, is kept whole: that thread may still write in it.
TEST_F(WriterReaderTest, TrimKeepsAnotherThreadsChunkWhole) {
  auto writer = NewWriter();
  ASSERT_EQ(writer->Append(Load(1, 1, "a"), 1, 1), TraceWriter::AppendResult::kOk);
  std::thread([&] {
    ASSERT_EQ(writer->Append(Load(2, 2, "b"), 2, 2), TraceWriter::AppendResult::kOk);
  }).join();
  writer->Trim();
  EXPECT_EQ(SizeAndDisk().first, 3 * kGranule);  // header, then two 4 KiB first chunks
  EXPECT_EQ(DescribeAll(ReadBytes()).size(), 2u);
}

// Traces of both shapes read alike: as an older writer left them (one 4 MiB segment of zeros
// after the records) and cut after their last record.
TEST_F(WriterReaderTest, UntrimmedAndTrimmedTracesReadTheSame) {
  auto writer = NewWriter({.chunk_size = 64 * 1024,
                           .segment_size = 4 * 1024 * 1024,
                           .first_chunk_size = 64 * 1024,
                           .first_segment_size = 4 * 1024 * 1024});
  for (uint32_t i = 1; i <= 100; ++i) {
    ASSERT_EQ(writer->Append(Load(i, i, "m"), i, 1), TraceWriter::AppendResult::kOk);
  }
  const std::vector<uint8_t> untrimmed = ReadBytes();
  EXPECT_EQ(untrimmed.size(), kGranule + 4 * 1024 * 1024u);
  writer->Trim();
  const std::vector<uint8_t> trimmed = ReadBytes();
  EXPECT_EQ(trimmed.size(), 3 * kGranule);  // the header, then 100 records of 80 bytes
  const std::vector<std::string> records = DescribeAll(untrimmed);
  EXPECT_EQ(records.size(), 100u);
  EXPECT_EQ(DescribeAll(trimmed), records);
}

// Whether `p` lies in a mapping of the file `path` (/proc/self/maps), rather than in memory of
// the process's own.
bool MappedFrom(const uint8_t* p, const std::string& path) {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    uintptr_t begin = 0;
    uintptr_t end = 0;
    if (std::sscanf(line.c_str(), "%" SCNxPTR "-%" SCNxPTR, &begin, &end) != 2) continue;
    const auto address = reinterpret_cast<uintptr_t>(p);
    if (address < begin || address >= end) continue;
    return line.size() >= path.size() &&
           line.compare(line.size() - path.size(), path.size(), path) == 0;
  }
  return false;
}

// The trace of a process that still runs is held as a copy: its collector trims it when the
// process ends, and a reader that mapped it (report of a running process) would die of SIGBUS
// in the pages cut off. That of a process that has ended is mapped.
TEST_F(WriterReaderTest, TheTraceOfARunningProcessIsHeldAsACopy) {
  const TraceIdentity running{static_cast<uint32_t>(::getpid()), "/usr/bin/some-jit", 1, 2};
  auto fd = base::CreateExclusive(dir_, "t.jsc");
  ASSERT_TRUE(fd.ok()) << fd.status().message();
  auto writer = TraceWriter::Create(std::move(fd).value(), running, {});
  ASSERT_TRUE(writer.ok()) << writer.status().message();
  for (uint32_t i = 1; i <= 10; ++i) {
    ASSERT_EQ((*writer)->Append(Load(i, i, "m"), i, 1), TraceWriter::AppendResult::kOk);
  }
  const std::vector<uint8_t> untrimmed = ReadBytes();
  auto held = HoldFile(path());
  ASSERT_TRUE(held.ok()) << held.status().message();
  EXPECT_FALSE(MappedFrom(held->data(), path()));
  (*writer)->Trim();
  ASSERT_LT(ReadBytes().size(), untrimmed.size());
  // Every byte, the zero tail cut off the file included.
  ASSERT_EQ(held->size(), untrimmed.size());
  EXPECT_TRUE(std::equal(untrimmed.begin(), untrimmed.end(), held->data()));
  EXPECT_EQ(DescribeAll({held->data(), held->data() + held->size()}).size(), 10u);

  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  ASSERT_EQ(::waitpid(child, nullptr, 0), child);
  const TraceIdentity ended{static_cast<uint32_t>(child), "/usr/bin/some-jit", 1, 2};
  auto ended_fd = base::CreateExclusive(dir_, "ended.jsc");
  ASSERT_TRUE(ended_fd.ok()) << ended_fd.status().message();
  auto ended_writer = TraceWriter::Create(std::move(ended_fd).value(), ended, {});
  ASSERT_TRUE(ended_writer.ok()) << ended_writer.status().message();
  ASSERT_EQ((*ended_writer)->Append(Load(1, 1, "m"), 1, 1), TraceWriter::AppendResult::kOk);
  (*ended_writer)->Trim();
  auto mapped = HoldFile(dir_ + "/ended.jsc");
  ASSERT_TRUE(mapped.ok()) << mapped.status().message();
  EXPECT_TRUE(MappedFrom(mapped->data(), dir_ + "/ended.jsc"));
  // Not a trace: mapped whatever its bytes say.
  auto other = base::CreateExclusive(dir_, "other");
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE(base::WriteAll(other->get(), "not a trace", 11).ok());
  auto plain = HoldFile(dir_ + "/other");
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_TRUE(MappedFrom(plain->data(), dir_ + "/other"));
  EXPECT_FALSE(HoldFile(dir_ + "/missing").ok());
}

// Trim() while other threads append: no thread stores into the part cut off (that would be a
// SIGBUS), every record is kept, and the file reads without damage.
TEST_F(WriterReaderTest, TrimWhileOtherThreadsAppendLosesNothing) {
  auto writer = NewWriter({.chunk_size = 8192,
                           .segment_size = 64 * 1024,
                           .first_chunk_size = 4096,
                           .first_segment_size = 16 * 1024});
  constexpr uint32_t kThreads = 4;
  constexpr uint32_t kPerThread = 20000;
  std::atomic<uint32_t> running{kThreads};
  std::vector<std::thread> threads = AppendFromThreads(*writer, kThreads, kPerThread, running);
  uint32_t trims = 0;
  while (running.load() != 0) {
    writer->Trim();
    ++trims;
  }
  for (auto& thread : threads) thread.join();
  writer->Trim();
  EXPECT_GT(trims, 10u);
  auto t = ParseTrace(ReadBytes());
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->damage.ok()) << t->damage.message();
  std::set<uint32_t> ids;
  for (const auto& record : t->records) ids.insert(std::get<CodeEvent>(record.event).method_id);
  EXPECT_EQ(ids.size(), kThreads * kPerThread);
  EXPECT_EQ(t->records.size(), kThreads * kPerThread);
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

// A SIGKILL between the chunk header's tid and size and its magic (stored last) leaves a chunk
// that was never published: no records can follow, and it is no damage.
TEST_F(WriterReaderTest, AChunkKilledBeforeItsMagicIsSkipped) {
  auto writer = NewWriter();
  ASSERT_EQ(writer->Append(Load(1, 1, "a"), 1, 1), TraceWriter::AppendResult::kOk);
  writer.reset();
  std::vector<uint8_t> bytes = ReadBytes();
  // The first chunk is one granule (4096 + 4096); the next granule is the unpublished chunk.
  ASSERT_GE(bytes.size(), 3 * kGranule);
  const ChunkHeader torn{0, 77, 2 * kGranule};
  std::memcpy(bytes.data() + 2 * kGranule, &torn, sizeof(torn));
  auto t = ParseTrace(bytes);
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->damage.ok()) << t->damage.message();
  EXPECT_EQ(t->records.size(), 1u);
  // Another magic is damage, as are bytes under a header of zeros.
  const ChunkHeader other{0x12345678, 77, kGranule};
  std::memcpy(bytes.data() + 2 * kGranule, &other, sizeof(other));
  EXPECT_EQ(ParseTrace(bytes)->damage.message(),
            "damaged trace at offset 8192: invalid chunk header");
  const ChunkHeader zeros{0, 0, 0};
  std::memcpy(bytes.data() + 2 * kGranule, &zeros, sizeof(zeros));
  bytes[2 * kGranule + 100] = 1;
  EXPECT_EQ(ParseTrace(bytes)->damage.message(),
            "damaged trace at offset 8192: invalid chunk header");
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
  // Said at the cut, once: the record it cuts short is no damage of its own.
  EXPECT_EQ(t->damage.message(),
            "damaged trace at offset 4452: the file ends inside a chunk: it was cut short");
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
            "unsupported trace version 99 (this reader reads versions 1 to 2)");
  header.version = 0;
  EXPECT_EQ(ParseTrace({p, sizeof(header)}).status().message(),
            "unsupported trace version 0 (this reader reads versions 1 to 2)");
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
