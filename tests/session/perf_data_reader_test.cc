// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/session/perf_data_reader.h"

#include <zstd.h>

#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/base/files.h"
#include "support/perf_data_builder.h"

namespace jitscope::session {
namespace {

using test_support::FpAttr;
using test_support::PerfDataBuilder;
using test_support::PerfRecordBuilder;

constexpr uint32_t kPid = 4242;

// A sample of FpAttr's layout: IP, TID, TIME, ID, PERIOD, CALLCHAIN.
std::string SampleRecord(uint64_t ip, uint64_t time, uint64_t id, std::vector<uint64_t> chain) {
  PerfRecordBuilder b(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
  b.Put(ip)
      .Put(kPid)
      .Put(kPid)
      .Put(time)
      .Put(id)
      .Put(uint64_t{1000000})
      .Put(uint64_t{chain.size()});
  for (uint64_t entry : chain) b.Put(entry);
  return b.Build();
}

// FpAttr's sample_id_all trailer: {pid, tid}, time, id.
PerfRecordBuilder& Trailer(PerfRecordBuilder& b, uint64_t time, uint64_t id) {
  return b.Put(kPid).Put(kPid).Put(time).Put(id);
}

std::string CommRecord(const std::string& name, uint64_t time, uint64_t id) {
  PerfRecordBuilder b(PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
  b.Put(kPid).Put(kPid).Name(name);
  return Trailer(b, time, id).Build();
}

std::string Mmap2Record(uint64_t start, uint64_t length, const std::string& name, uint64_t time,
                        uint64_t id) {
  PerfRecordBuilder b(PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
  b.Put(kPid).Put(kPid).Put(start).Put(length).Put(uint64_t{0});
  b.Put(uint32_t{8}).Put(uint32_t{1}).Put(uint64_t{77}).Put(uint64_t{0});  // maj, min, ino, gen
  b.Put(uint32_t{5}).Put(uint32_t{2}).Name(name);                          // prot, flags
  return Trailer(b, time, id).Build();
}

std::string FinishedRound() { return PerfRecordBuilder(68).Build(); }

base::StatusOr<PerfData> Parse(const std::vector<uint8_t>& bytes) {
  return ParsePerfData(bytes, "t.data");
}

// The records perf writes for `perf record -k 1 -g` of one process, out of time order as two
// CPUs' buffers interleave them.
PerfDataBuilder Basic() {
  PerfDataBuilder b;
  b.Attr(FpAttr(), {11, 12});
  b.Record(CommRecord("hot", 100, 11));
  b.Record(Mmap2Record(0x400000, 0x1000, "/usr/bin/hot", 110, 11));
  b.Record(SampleRecord(0x400010, 300, 12,
                        {static_cast<uint64_t>(PERF_CONTEXT_USER), 0x400010, 0x400020}));
  b.Record(FinishedRound());
  b.Record(SampleRecord(0x400030, 200, 11, {}));
  return b;
}

TEST(PerfDataReaderTest, DecodesAFileModeRecording) {
  auto parsed = Parse(Basic().Build());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_TRUE(parsed->monotonic_clock);
  EXPECT_EQ(parsed->damage, "");
  ASSERT_EQ(parsed->attrs.size(), 1u);
  EXPECT_EQ(parsed->attrs[0].ids, (std::vector<uint64_t>{11, 12}));
  const SampleData& data = parsed->data;
  EXPECT_EQ(data.format.layout.sample_type, FpAttr().sample_type);
  ASSERT_EQ(data.samples.size(), 2u);
  // In time order, whatever the file's order.
  EXPECT_EQ(data.samples[0].time_ns, 200u);
  EXPECT_EQ(data.samples[0].ip, 0x400030u);
  EXPECT_EQ(data.samples[1].time_ns, 300u);
  EXPECT_EQ(data.samples[1].pid, kPid);
  EXPECT_EQ(data.samples[1].callchain,
            (std::vector<CallchainEntry>{{0x400010, false}, {0x400020, false}}));
  ASSERT_EQ(data.comms.size(), 1u);
  EXPECT_EQ(data.comms[0].name, "hot");
  EXPECT_EQ(data.comms[0].time_ns, 100u);
  EXPECT_TRUE(data.comms[0].exec);
  ASSERT_EQ(data.mappings.size(), 1u);
  EXPECT_EQ(data.mappings[0].filename, "/usr/bin/hot");
  EXPECT_EQ(data.mappings[0].start, 0x400000u);
  EXPECT_EQ(data.mappings[0].time_ns, 110u);
  EXPECT_EQ(data.counters, SampleCounters{});
  EXPECT_TRUE(parsed->unknown_types.empty());
}

// attr.build_id: an MMAP2 with PERF_RECORD_MISC_MMAP_BUILD_ID holds the file's build id (its
// size, 3 reserved bytes, 20 bytes) where device and inode would be.
TEST(PerfDataReaderTest, AnMmap2CarriesItsFilesBuildId) {
  PerfRecordBuilder b(PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
  b.Put(kPid).Put(kPid).Put(uint64_t{0x500000}).Put(uint64_t{0x1000}).Put(uint64_t{0});
  b.Put(uint8_t{4}).Put(uint8_t{0}).Put(uint16_t{0});
  const uint8_t id[20] = {0xde, 0xad, 0x0b, 0xef, 0xff};  // 4 of them count
  for (uint8_t byte : id) b.Put(byte);
  b.Put(uint32_t{5}).Put(uint32_t{2}).Name("/usr/lib/libhot.so");
  PerfDataBuilder file = Basic();
  file.Record(Trailer(b, 120, 11).Build());
  auto parsed = Parse(file.Build());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ASSERT_EQ(parsed->data.mappings.size(), 2u);
  EXPECT_EQ(parsed->data.mappings[0].build_id, "") << "device and inode: no build id";
  EXPECT_EQ(parsed->data.mappings[1].filename, "/usr/lib/libhot.so");
  EXPECT_EQ(parsed->data.mappings[1].build_id, "dead0bef");
}

// Linux 6.1 leaves the build-id flag set on the MMAP2 records of events that did not ask for build
// ids when another event on the machine did (a jitscope record -a beside perf record): they hold
// the device and inode, which must not be read as a build id.
TEST(PerfDataReaderTest, AnMmap2WhoseBuildIdFlagWasLeftSetHasNoBuildId) {
  PerfDataBuilder file = Basic();
  for (const uint32_t major : {uint32_t{253}, uint32_t{0x10103}, uint32_t{21}}) {
    PerfRecordBuilder b(PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
    b.Put(kPid).Put(kPid).Put(uint64_t{0x500000}).Put(uint64_t{0x1000}).Put(uint64_t{0});
    b.Put(major).Put(uint32_t{1}).Put(uint64_t{123456}).Put(uint64_t{7});
    b.Put(uint32_t{5}).Put(uint32_t{2}).Name("/usr/lib/libhot.so");
    file.Record(Trailer(b, 120, 11).Build());
  }
  auto parsed = Parse(file.Build());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ASSERT_EQ(parsed->data.mappings.size(), 4u);
  for (const Mapping& mapping : parsed->data.mappings) {
    EXPECT_EQ(mapping.build_id, "") << mapping.filename;
  }
}

TEST(PerfDataReaderTest, CountsUnknownRecordTypesAndLostSamples) {
  PerfDataBuilder b = Basic();
  b.Record(PerfRecordBuilder(200).Put(uint64_t{1}).Build());
  b.Record(PerfRecordBuilder(200).Build());
  PerfRecordBuilder lost(PERF_RECORD_LOST);
  lost.Put(uint64_t{11}).Put(uint64_t{7});
  b.Record(Trailer(lost, 400, 11).Build());
  auto parsed = Parse(b.Build());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->unknown_types, (std::map<uint32_t, uint64_t>{{200, 2}}));
  EXPECT_EQ(parsed->data.counters.lost_samples, 7u);
  EXPECT_EQ(parsed->data.samples.size(), 2u);
}

TEST(PerfDataReaderTest, WithoutClockidTheTimesAreNotMonotonic) {
  perf_event_attr attr = FpAttr();
  attr.use_clockid = 0;
  attr.clockid = 0;
  PerfDataBuilder b;
  b.Attr(attr, {11});
  auto parsed = Parse(b.Build());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_FALSE(parsed->monotonic_clock);
}

TEST(PerfDataReaderTest, ReadsTheCommandLineAndBuildIds) {
  PerfDataBuilder b = Basic();
  test_support::ByteBuilder cmdline;
  cmdline.U32(2)
      .U32(8)
      .Raw(std::string("perf\0\0\0\0", 8))
      .U32(8)
      .Raw(std::string("record\0\0", 8));
  PerfRecordBuilder build_id(PERF_RECORD_MISC_USER);  // type: unused in the feature
  build_id.Put(int32_t{-1});
  for (int i = 0; i < 24; ++i) build_id.Put(static_cast<uint8_t>(i < 20 ? 0xa0 + i : 0));
  build_id.Name("/usr/bin/hot");
  b.Feature(2, build_id.Build());
  b.Feature(11, std::string(cmdline.bytes().begin(), cmdline.bytes().end()));
  auto parsed = Parse(b.Build());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->command_line, (std::vector<std::string>{"perf", "record"}));
  ASSERT_EQ(parsed->build_ids.size(), 1u);
  EXPECT_EQ(parsed->build_ids[0].pid, -1);
  EXPECT_EQ(parsed->build_ids[0].build_id, "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3");
  EXPECT_EQ(parsed->build_ids[0].filename, "/usr/bin/hot");
  EXPECT_TRUE(parsed->notes.empty());
}

TEST(PerfDataReaderTest, ReadsEventNamesAndNotesACutDescription) {
  test_support::ByteBuilder desc;
  desc.U32(1).U32(sizeof(perf_event_attr)).Zeros(sizeof(perf_event_attr));
  desc.U32(2).U32(16).Raw(std::string("cpu-clock\0\0\0\0\0\0\0", 16)).U64(11).U64(12);
  const std::string whole(desc.bytes().begin(), desc.bytes().end());
  auto parsed = Parse(Basic().Feature(12, whole).Build());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->attrs[0].name, "cpu-clock");
  EXPECT_TRUE(parsed->notes.empty());
  // The ids claimed run past the section's end.
  PerfDataBuilder cut = Basic();
  const size_t section = cut.DataOffset() + 16;  // after the index's one entry
  parsed = Parse(cut.Feature(12, whole.substr(0, whole.size() - 8)).Build());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->attrs[0].name, "");
  EXPECT_EQ(parsed->notes,
            (std::vector<std::string>{
                "t.data: offset " + std::to_string(section + 8 + sizeof(perf_event_attr) + 4 + 20) +
                ": the event description feature is cut short"}));
}

TEST(PerfDataReaderTest, RefusesPipeModeOtherByteOrdersAndOtherFiles) {
  std::vector<uint8_t> pipe = {'P', 'E', 'R', 'F', 'I', 'L', 'E', '2', 16, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(Parse(pipe).status().message(),
            "t.data: a pipe-mode perf.data (perf record -o -, or piped); jitscope reads files "
            "perf wrote in file mode (perf record -o FILE)");
  std::vector<uint8_t> swapped = {'2', 'E', 'L', 'I', 'F', 'R', 'E', 'P', 0, 0, 0, 0, 0, 0, 0, 16};
  EXPECT_EQ(Parse(swapped).status().message(),
            "t.data: a perf.data file of the other byte order; jitscope reads little-endian files");
  std::vector<uint8_t> text = {'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd'};
  EXPECT_EQ(Parse(text).status().message(), "t.data: not a perf.data file (no PERFILE2 magic)");
  EXPECT_EQ(Parse({}).status().message(), "t.data: not a perf.data file (shorter than its magic)");
  std::vector<uint8_t> short_header = Basic().Build();
  short_header.resize(60);
  EXPECT_EQ(Parse(short_header).status().message(),
            "t.data: offset 60: the file ends inside the 104-byte perf.data header");
}

TEST(PerfDataReaderTest, KeepsWhatPrecedesATruncation) {
  PerfDataBuilder b = Basic();
  const size_t last = b.DataOffset();
  b.Record(SampleRecord(0x400040, 500, 11, {}));
  std::vector<uint8_t> bytes = b.Build();
  bytes.resize(last + 20);  // inside the last sample
  auto parsed = Parse(bytes);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->data.samples.size(), 2u);
  EXPECT_EQ(parsed->damage, "t.data: offset " + std::to_string(last) +
                                ": record of type 9 claims 56 bytes, past the data's end");
  ASSERT_EQ(parsed->notes.size(), 1u);
  EXPECT_EQ(parsed->notes[0], "t.data: offset 40: the data section ends at offset " +
                                  std::to_string(last + 56) + ", past the file's end (" +
                                  std::to_string(last + 20) + " bytes); read what the file holds");
}

TEST(PerfDataReaderTest, ADataSectionPastTheFilesEndHasNoRecords) {
  // What is read is what the file holds, here nothing: the reader must not take the data's size
  // from an end before its start.
  std::vector<uint8_t> bytes = Basic().Build();
  const uint64_t past = bytes.size() + 100;
  uint64_t data_size = 0;
  std::memcpy(bytes.data() + 40, &past, sizeof(past));  // data.offset
  std::memcpy(&data_size, bytes.data() + 48, sizeof(data_size));
  auto parsed = Parse(bytes);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->data.samples.size(), 0u);
  EXPECT_EQ(parsed->notes, std::vector<std::string>{
                               "t.data: offset 40: the data section ends at offset " +
                               std::to_string(past + data_size) + ", past the file's end (" +
                               std::to_string(bytes.size()) + " bytes); read what the file holds"});
}

TEST(PerfDataReaderTest, AWrongRecordSizeEndsTheRecordsWithItsOffset) {
  PerfDataBuilder b = Basic();
  const size_t bad = b.DataOffset();
  b.Record(std::string("\x09\0\0\0\0\0\x04\0", 8));  // a sample of 4 bytes
  b.Record(SampleRecord(0x400040, 500, 11, {}));
  auto parsed = Parse(b.Build());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->data.samples.size(), 2u);
  EXPECT_EQ(parsed->damage, "t.data: offset " + std::to_string(bad) +
                                ": record of type 9 claims 4 bytes, less than its header");
}

TEST(PerfDataReaderTest, AMalformedRecordIsCountedAndSkipped) {
  // A sample whose call chain claims more entries than the record holds.
  PerfDataBuilder c = Basic();
  PerfRecordBuilder sample(PERF_RECORD_SAMPLE);
  sample.Put(uint64_t{1}).Put(kPid).Put(kPid).Put(uint64_t{600}).Put(uint64_t{11});
  sample.Put(uint64_t{1}).Put(uint64_t{1000});  // nr = 1000 entries in no bytes
  c.Record(sample.Build());
  c.Record(SampleRecord(0x400050, 700, 11, {}));
  auto parsed = Parse(c.Build());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->data.counters.malformed_records, 1u);
  EXPECT_EQ(parsed->data.samples.size(), 3u);
  EXPECT_EQ(parsed->damage, "");
}

TEST(PerfDataReaderTest, AHeaderWithoutDataSizeIsReadToTheEnd) {
  std::vector<uint8_t> bytes = Basic().Build();
  std::fill(bytes.begin() + 48, bytes.begin() + 56, 0);  // data.size, as a killed perf leaves it
  auto parsed = Parse(bytes);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->data.samples.size(), 2u);
  ASSERT_EQ(parsed->notes.size(), 1u);
  EXPECT_EQ(parsed->notes[0],
            "t.data: the header says the data section is empty (perf record did not finish the "
            "file); read the records to the end of the file");
}

TEST(PerfDataReaderTest, AttrsOutOfBoundsOrNotWholeAreRefused) {
  std::vector<uint8_t> bytes = Basic().Build();
  bytes[32] = 0xff;  // attrs.size
  EXPECT_EQ(Parse(bytes).status().message(),
            "t.data: offset 24: the attrs section {offset 120, size " +
                std::to_string((sizeof(perf_event_attr) + 16) | 0xff) + "} is not whole attrs of " +
                std::to_string(sizeof(perf_event_attr) + 16) + " bytes inside the file");
}

TEST(PerfDataReaderTest, AnIdOfTwoAttrsIsRefused) {
  PerfDataBuilder b;
  b.Attr(FpAttr(), {11, 12}).Attr(FpAttr(), {12});
  EXPECT_EQ(Parse(b.Build()).status().message(),
            "t.data: offset 120: event id 12 belongs to attrs 0 and 1");
}

TEST(PerfDataReaderTest, AttrsThatPutTheIdElsewhereAreRefused) {
  perf_event_attr other = FpAttr();
  other.sample_type |= PERF_SAMPLE_ADDR;
  PerfDataBuilder b;
  b.Attr(FpAttr(), {11}).Attr(other, {12});
  EXPECT_EQ(Parse(b.Build()).status().message(),
            "t.data: offset " + std::to_string(104 + 16 + sizeof(perf_event_attr) + 16) +
                ": attr 1 puts the event id elsewhere than attr 0");
}

TEST(PerfDataReaderTest, SeveralEventsKeepTheFirstOnesSamples) {
  perf_event_attr faults = FpAttr();
  faults.config = PERF_COUNT_SW_PAGE_FAULTS;
  perf_event_attr dummy = FpAttr();
  dummy.config = PERF_COUNT_SW_DUMMY;
  PerfDataBuilder b;
  b.Attr(dummy, {10}).Attr(FpAttr(), {11}).Attr(faults, {12});
  b.Record(CommRecord("hot", 100, 10));
  b.Record(SampleRecord(0x400010, 300, 11, {}));
  b.Record(SampleRecord(0x400020, 310, 12, {}));
  b.Record(SampleRecord(0x400030, 320, 12, {}));
  b.Record(SampleRecord(0x400040, 330, 99, {}));  // an id no attr lists
  auto parsed = Parse(b.Build());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->sampled_attr, 1u);
  ASSERT_EQ(parsed->data.samples.size(), 1u);
  EXPECT_EQ(parsed->data.samples[0].ip, 0x400010u);
  EXPECT_EQ(parsed->other_event_samples, 2u);
  EXPECT_EQ(parsed->unknown_id_records, 1u);
  EXPECT_EQ(parsed->data.comms.size(), 1u);
}

// A PERF_RECORD_COMPRESSED record (81) holding `frame`, part of a zstd stream,
// unpadded.
std::string CompressedRecord(const std::string& frame) {
  perf_event_header header{81, 0, static_cast<uint16_t>(8 + frame.size())};
  return std::string(reinterpret_cast<const char*>(&header), 8) + frame;
}

// `perf record -z`: the records in a zstd stream cut into PERF_RECORD_COMPRESSED records, a
// record straddling two of them.
TEST(PerfDataReaderTest, DecompressesCompressedRecords) {
  const std::string records = CommRecord("hot", 100, 11) +
                              Mmap2Record(0x400000, 0x1000, "/usr/bin/hot", 110, 11) +
                              SampleRecord(0x400010, 300, 12, {0x400010, 0x400020});
  std::string frame(ZSTD_compressBound(records.size()), '\0');
  frame.resize(ZSTD_compress(frame.data(), frame.size(), records.data(), records.size(), 1));
  ASSERT_FALSE(ZSTD_isError(frame.size()));
  PerfDataBuilder b;
  b.Attr(FpAttr(), {11, 12});
  const size_t cut = frame.size() / 2;
  for (const std::string& part : {frame.substr(0, cut), frame.substr(cut)}) {
    b.Record(CompressedRecord(part));
  }
  auto parsed = Parse(b.Build());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->damage, "");
  EXPECT_EQ(parsed->compressed_records, 2u);
  ASSERT_EQ(parsed->data.samples.size(), 1u);
  EXPECT_EQ(parsed->data.samples[0].callchain,
            (std::vector<CallchainEntry>{{0x400010, false}, {0x400020, false}}));
  ASSERT_EQ(parsed->data.mappings.size(), 1u);
  EXPECT_EQ(parsed->data.mappings[0].filename, "/usr/bin/hot");
  EXPECT_EQ(parsed->data.comms.size(), 1u);
  // The decompressed records are in a file of their own, mapped, not in the reader's memory: all
  // of them, and the sample's record among them.
  ASSERT_NE(parsed->data.decompressed, nullptr);
  EXPECT_EQ(parsed->data.decompressed->bytes(), records);
  EXPECT_TRUE(parsed->data.decompressed->Holds(parsed->data.samples.record_start(0)));
  parsed->data.ForEachSample([](const Sample& sample) { EXPECT_EQ(sample.ip, 0x400010u); });
}

TEST(PerfDataReaderTest, ABrokenCompressedStreamIsDamage) {
  PerfDataBuilder b = Basic();
  const size_t at = b.DataOffset();
  b.Record(PerfRecordBuilder(81).Put(uint64_t{0x0123456789abcdef}).Build());
  auto parsed = Parse(b.Build());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->data.samples.size(), 2u);
  EXPECT_EQ(parsed->damage, "t.data: offset " + std::to_string(at) +
                                ": the compressed records do not decompress: Unknown frame "
                                "descriptor");
}

// A zstd frame of `copies` records of `record`'s bytes, which compresses them to almost nothing.
std::string CompressedCopies(const std::string& record, size_t copies) {
  std::string records;
  records.reserve(record.size() * copies);
  for (size_t i = 0; i < copies; ++i) records += record;
  std::string frame(ZSTD_compressBound(records.size()), '\0');
  frame.resize(ZSTD_compress(frame.data(), frame.size(), records.data(), records.size(), 1));
  EXPECT_FALSE(ZSTD_isError(frame.size()));
  return frame;
}

// A record of a type nobody reads, as large as a record can be (65,528 bytes).
std::string LargestIgnoredRecord() {
  return PerfRecordBuilder(200).Name(std::string(65528 - 8 - 1, '\0')).Build();
}

// A compressed record is at most 64 KiB, and perf's ratio is around 10: one that decompresses to
// more than 64 MiB is a bomb, refused before it fills memory. What came before it stays.
TEST(PerfDataReaderTest, ARecordThatDecompressesToMoreThan64MiBIsDamage) {
  PerfDataBuilder b = Basic();
  const std::string frame = CompressedCopies(LargestIgnoredRecord(), 1025);  // 64 MiB + 1 record
  ASSERT_LT(frame.size() + 8, 65536u);
  const size_t at = b.DataOffset();
  b.Record(CompressedRecord(frame));
  auto parsed = Parse(b.Build());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->data.samples.size(), 2u);
  EXPECT_EQ(parsed->damage, "t.data: offset " + std::to_string(at) +
                                ": a compressed record decompresses to more than 67108864 bytes");
}

// Each record within its bound, all of them together may still decompress to more than the disk
// they are spooled to should take: past 1 GiB (for a file this small; 100 times the file's size
// for a larger one) the rest is refused, and what came before stays.
TEST(PerfDataReaderTest, CompressedRecordsThatDecompressToMoreThan1GiBAreDamage) {
  PerfDataBuilder b = Basic();
  const std::string frame = CompressedCopies(LargestIgnoredRecord(), 1024);  // 64 MiB less a bit
  const size_t records_within = (uint64_t{1} << 30) / (1024 * 65528);        // 16
  size_t at = 0;
  for (size_t i = 0; i <= records_within; ++i) {
    at = b.DataOffset();
    b.Record(CompressedRecord(frame));
  }
  auto parsed = Parse(b.Build());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->data.samples.size(), 2u);
  EXPECT_EQ(parsed->damage, "t.data: offset " + std::to_string(at) +
                                ": the compressed records decompress to more than 1073741824 "
                                "bytes (1 GiB, or 100 times the file's size if more)");
}

// Recordings Debian's perf 6.1 wrote: the fuzzer's seeds (fuzz/make_seeds.py says how).
std::vector<uint8_t> ReadSeed(const std::string& name) {
  auto file = base::MappedFile::Open(std::string(JITSCOPE_PERF_DATA_SEEDS) + "/" + name);
  EXPECT_TRUE(file.ok()) << file.status().message();
  if (!file.ok()) return {};
  return std::vector<uint8_t>(file->data(), file->data() + file->size());
}

TEST(PerfDataReaderTest, ReadsPerfsFramePointerRecording) {
  auto parsed = Parse(ReadSeed("awk_fp.data"));
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->damage, "");
  EXPECT_TRUE(parsed->notes.empty());
  EXPECT_TRUE(parsed->monotonic_clock);
  EXPECT_EQ(parsed->data.samples.size(), 3u);
  EXPECT_EQ(parsed->data.comms.size(), 2u);
  EXPECT_EQ(parsed->data.comms.back().name, "awk");
  EXPECT_EQ(parsed->attrs[0].name, "cpu-clock");
  EXPECT_EQ(parsed->arch, "x86_64");
  EXPECT_EQ(parsed->data.mappings.size(), 6u);  // the kernel's MMAP and 5 MMAP2
  EXPECT_EQ(parsed->data.tasks.size(), 1u);
  EXPECT_TRUE(parsed->unknown_types.empty());
  EXPECT_EQ(parsed->data.counters, SampleCounters{});
  ASSERT_GE(parsed->command_line.size(), 2u);
  EXPECT_EQ(parsed->command_line[1], "record");
}

TEST(PerfDataReaderTest, ReadsPerfsDwarfRecording) {
  auto parsed = Parse(ReadSeed("awk_dwarf.data"));
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->damage, "");
  EXPECT_EQ(parsed->data.samples.size(), 4u);
  EXPECT_EQ(parsed->data.format.stack_size, 512u);
  EXPECT_EQ(parsed->data.format.layout.regs_mask, kX86_64RegsMask);
  for (const Sample& sample : parsed->data.samples) {
    if (sample.regs.abi == PERF_SAMPLE_REGS_ABI_64) {
      EXPECT_EQ(sample.stack.size(), 512u);
    }
  }
  EXPECT_EQ(parsed->data.counters, SampleCounters{});
}

TEST(PerfDataReaderTest, ReadsPerfsCompressedRecording) {
  auto parsed = Parse(ReadSeed("awk_z.data"));
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->damage, "");
  EXPECT_GE(parsed->compressed_records, 1u);
  EXPECT_EQ(parsed->data.samples.size(), 4u);
  EXPECT_EQ(parsed->data.comms.back().name, "awk");
  EXPECT_EQ(parsed->data.counters, SampleCounters{});
}

TEST(PerfDataReaderTest, ReadsPerfsTwoEventRecording) {
  auto parsed = Parse(ReadSeed("awk_two_events.data"));
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->damage, "");
  EXPECT_FALSE(parsed->monotonic_clock);  // recorded without -k 1
  ASSERT_EQ(parsed->attrs.size(), 2u);
  EXPECT_EQ(parsed->attrs[0].name, "cpu-clock");
  EXPECT_EQ(parsed->attrs[1].name, "page-faults");
  EXPECT_EQ(parsed->data.samples.size() + parsed->other_event_samples, 9u);
  EXPECT_EQ(parsed->unknown_id_records, 0u);
}

}  // namespace
}  // namespace jitscope::session
