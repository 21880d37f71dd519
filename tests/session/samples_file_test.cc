// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/session/samples_file.h"

#include <asm/perf_regs.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "support/perf_data_builder.h"

#include "support/resident.h"
#include "support/temp_dir.h"

namespace jitscope::session {
namespace {

using RecordBuilder = test_support::PerfRecordBuilder;

std::string Header(const SamplesFormat& format = {}) {
  std::string out(kSamplesMagic, sizeof(kSamplesMagic));
  auto put = [&out](auto value) {
    out.append(reinterpret_cast<const char*>(&value), sizeof(value));
  };
  put(kSamplesVersion);
  put(kSamplesHeaderSize);
  put(format.layout.sample_type);
  put(kFlagKernel);
  put(format.layout.regs_mask);
  put(format.stack_size);
  return out;
}

constexpr SamplesFormat kDwarfFormat{{kDwarfSampleType, kX86_64RegsMask}, 64};

// A --call-graph dwarf sample: a kernel-only call chain, 20 registers (register i holds
// 0x1000 + i), and a stack copy of `size` bytes of which `dyn_size` are valid.
std::string DwarfSampleRecord(uint64_t abi, uint64_t size, uint64_t dyn_size) {
  RecordBuilder record(PERF_RECORD_SAMPLE);
  record.Put<uint64_t>(0x401000).Put<uint32_t>(10).Put<uint32_t>(11).Put<uint64_t>(5000);
  record.Put<uint64_t>(2)
      .Put<uint64_t>(static_cast<uint64_t>(PERF_CONTEXT_KERNEL))
      .Put<uint64_t>(0xffffffff81000000);
  record.Put<uint64_t>(abi);
  if (abi != PERF_SAMPLE_REGS_ABI_NONE) {
    for (int reg = 0; reg < kPerfRegisterCount; ++reg) {
      if ((kX86_64RegsMask >> reg) & 1) record.Put<uint64_t>(0x1000 + reg);
    }
  }
  record.Put<uint64_t>(size);
  for (uint64_t i = 0; i < size; ++i) record.Put<uint8_t>(static_cast<uint8_t>(i));
  if (size != 0) record.Put<uint64_t>(dyn_size);
  return record.Build();
}

std::string SampleRecord() {
  return RecordBuilder(PERF_RECORD_SAMPLE)
      .Put<uint64_t>(0x401000)
      .Put<uint32_t>(10)
      .Put<uint32_t>(11)
      .Put<uint64_t>(5000)
      .Put<uint64_t>(5)
      .Put<uint64_t>(static_cast<uint64_t>(PERF_CONTEXT_KERNEL))
      .Put<uint64_t>(0xffffffff81000000)
      .Put<uint64_t>(static_cast<uint64_t>(PERF_CONTEXT_USER))
      .Put<uint64_t>(0x401000)
      .Put<uint64_t>(0x402000)
      .Build();
}

TEST(SamplesFileTest, DecodesEveryRecordKind) {
  std::string file = Header() + SampleRecord();
  file += RecordBuilder(PERF_RECORD_MMAP2)
              .Put<uint32_t>(10)
              .Put<uint32_t>(10)
              .Put<uint64_t>(0x400000)
              .Put<uint64_t>(0x3000)
              .Put<uint64_t>(0x1000)
              .Put<uint32_t>(8)  // maj
              .Put<uint32_t>(1)  // min
              .Put<uint64_t>(1234)
              .Put<uint64_t>(0)
              .Put<uint32_t>(5)  // prot
              .Put<uint32_t>(2)  // flags
              .Name("/usr/bin/app")
              .SampleId(10, 10, 4000)
              .Build();
  file += RecordBuilder(PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC)
              .Put<uint32_t>(10)
              .Put<uint32_t>(10)
              .Name("app")
              .SampleId(10, 10, 3000)
              .Build();
  file += RecordBuilder(PERF_RECORD_FORK)
              .Put<uint32_t>(12)
              .Put<uint32_t>(10)
              .Put<uint32_t>(12)
              .Put<uint32_t>(10)
              .Put<uint64_t>(6000)
              .SampleId(12, 12, 6000)
              .Build();
  file +=
      RecordBuilder(PERF_RECORD_LOST).Put<uint64_t>(1).Put<uint64_t>(7).SampleId(0, 0, 0).Build();
  file += RecordBuilder(PERF_RECORD_THROTTLE)
              .Put<uint64_t>(1)
              .Put<uint64_t>(2)
              .Put<uint64_t>(3)
              .Build();

  base::StatusOr<SampleData> data = ParseSamples(file);
  ASSERT_TRUE(data.ok()) << data.status().message();
  EXPECT_EQ(data->flags, kFlagKernel);
  ASSERT_EQ(data->samples.size(), 1u);
  const Sample& sample = data->samples[0];
  EXPECT_EQ(sample.pid, 10u);
  EXPECT_EQ(sample.tid, 11u);
  EXPECT_EQ(sample.time_ns, 5000u);
  EXPECT_EQ(sample.ip, 0x401000u);
  EXPECT_EQ(sample.callchain,
            (std::vector<CallchainEntry>{
                {0xffffffff81000000, true}, {0x401000, false}, {0x402000, false}}));
  ASSERT_EQ(data->mappings.size(), 1u);
  EXPECT_EQ(data->mappings[0].start, 0x400000u);
  EXPECT_EQ(data->mappings[0].length, 0x3000u);
  EXPECT_EQ(data->mappings[0].file_offset, 0x1000u);
  EXPECT_EQ(data->mappings[0].filename, "/usr/bin/app");
  EXPECT_EQ(data->mappings[0].time_ns, 4000u);
  ASSERT_EQ(data->comms.size(), 1u);
  EXPECT_EQ(data->comms[0].name, "app");
  EXPECT_TRUE(data->comms[0].exec);
  EXPECT_EQ(data->comms[0].time_ns, 3000u);
  ASSERT_EQ(data->tasks.size(), 1u);
  EXPECT_FALSE(data->tasks[0].exit);
  EXPECT_EQ(data->tasks[0].pid, 12u);
  EXPECT_EQ(data->tasks[0].ppid, 10u);
  EXPECT_EQ(data->tasks[0].time_ns, 6000u);
  EXPECT_EQ(data->counters, (SampleCounters{.lost_samples = 7, .throttled = 1}));
}

TEST(SamplesFileTest, DecodesRegistersAndTheValidPartOfTheStackCopy) {
  // Kept: the samples' stack copies point into it.
  const std::string bytes =
      Header(kDwarfFormat) + DwarfSampleRecord(PERF_SAMPLE_REGS_ABI_64, 64, 40);
  base::StatusOr<SampleData> data = ParseSamples(bytes);
  ASSERT_TRUE(data.ok()) << data.status().message();
  EXPECT_EQ(data->format, kDwarfFormat);
  ASSERT_EQ(data->samples.size(), 1u);
  const Sample& sample = data->samples[0];
  EXPECT_EQ(sample.callchain, (std::vector<CallchainEntry>{{0xffffffff81000000, true}}));
  EXPECT_EQ(sample.regs.abi, static_cast<uint64_t>(PERF_SAMPLE_REGS_ABI_64));
  EXPECT_EQ(sample.regs.mask, kX86_64RegsMask);
  for (int reg = 0; reg < kPerfRegisterCount; ++reg) {
    const bool present = (kX86_64RegsMask >> reg) & 1;
    EXPECT_EQ(sample.regs.values[static_cast<size_t>(reg)], present ? 0x1000u + reg : 0u) << reg;
  }
  ASSERT_EQ(sample.stack.size(), 40u) << "only dyn_size bytes are valid";
  for (size_t i = 0; i < sample.stack.size(); ++i) {
    EXPECT_EQ(static_cast<uint8_t>(sample.stack[i]), i);
  }
}

TEST(SamplesFileTest, SamplesWithoutUserStateOrStackCopyDecode) {
  // A kernel thread: abi NONE, no registers; the kernel copied no stack (size 0, no dyn_size).
  // Kept: the samples' stack copies point into it.
  const std::string bytes =
      Header(kDwarfFormat) + DwarfSampleRecord(PERF_SAMPLE_REGS_ABI_NONE, 0, 0);
  base::StatusOr<SampleData> data = ParseSamples(bytes);
  ASSERT_TRUE(data.ok());
  ASSERT_EQ(data->samples.size(), 1u);
  EXPECT_EQ(data->samples[0].regs.abi, static_cast<uint64_t>(PERF_SAMPLE_REGS_ABI_NONE));
  EXPECT_EQ(data->samples[0].regs.mask, 0u);
  EXPECT_TRUE(data->samples[0].stack.empty());
  EXPECT_EQ(data->counters, SampleCounters{});
}

TEST(SamplesFileTest, StackCopyLengthsAreBoundsChecked) {
  std::string record = DwarfSampleRecord(PERF_SAMPLE_REGS_ABI_64, 64, 64);
  // The stack size field claims more bytes than the record holds.
  std::string too_long = record;
  const size_t size_at = record.size() - 8 - 64 - 8;
  const uint64_t huge = 1ull << 40;
  std::memcpy(too_long.data() + size_at, &huge, sizeof(huge));
  // dyn_size larger than size: only `size` bytes count.
  std::string dyn_too_big = record;
  std::memcpy(dyn_too_big.data() + record.size() - 8, &huge, sizeof(huge));
  // Cut inside the registers (the header size shrunk to match).
  std::string cut = record.substr(0, 8 + 8 * 4 + 8 * 3 + 8 + 8 * 5);
  const uint16_t cut_size = static_cast<uint16_t>(cut.size());
  std::memcpy(cut.data() + 6, &cut_size, sizeof(cut_size));
  // Kept: the samples' stack copies point into it.
  const std::string bytes = Header(kDwarfFormat) + too_long + dyn_too_big + cut;
  base::StatusOr<SampleData> data = ParseSamples(bytes);
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(data->counters.malformed_records, 2u);
  ASSERT_EQ(data->samples.size(), 1u);
  EXPECT_EQ(data->samples[0].stack.size(), 64u);
}

TEST(SamplesFileTest, RefusesLayoutsItCannotDecode) {
  base::StatusOr<SampleData> data = ParseSamples(Header({{kDwarfSampleType, 0xf000}, 64}));
  ASSERT_FALSE(data.ok());
  EXPECT_NE(data.status().message().find("sample_type 0x3027 with registers 0xf000"),
            std::string::npos)
      << data.status().message();
  EXPECT_FALSE(ParseSamples(Header({{kSampleType | PERF_SAMPLE_CPU, 0}, 0})).ok());
}

TEST(SamplesFileTest, CountsThrottling) {
  std::string file = Header();
  for (uint32_t type : {PERF_RECORD_THROTTLE, PERF_RECORD_UNTHROTTLE, PERF_RECORD_THROTTLE}) {
    file += RecordBuilder(type).Put<uint64_t>(1).Put<uint64_t>(2).Put<uint64_t>(3).Build();
  }
  base::StatusOr<SampleData> data = ParseSamples(file);
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(data->counters, SampleCounters{.throttled = 2});
}

// record --switch-events: a task's own switch records, and a CPU's (record -a), which name the
// other task of the switch too; the trailer says whose switch it is.
TEST(SamplesFileTest, DecodesSwitchesOutAndIn) {
  std::string file = Header();
  file += RecordBuilder(PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT).SampleId(5, 6, 30).Build();
  file += RecordBuilder(PERF_RECORD_SWITCH_CPU_WIDE,
                        PERF_RECORD_MISC_SWITCH_OUT | PERF_RECORD_MISC_SWITCH_OUT_PREEMPT)
              .Put<uint32_t>(9)
              .Put<uint32_t>(9)
              .SampleId(7, 8, 10)
              .Build();
  file += RecordBuilder(PERF_RECORD_SWITCH).SampleId(5, 6, 50).Build();
  file += RecordBuilder(PERF_RECORD_SWITCH_CPU_WIDE).Put<uint32_t>(9).Build();  // truncated
  base::StatusOr<SampleData> data = ParseSamples(file);
  ASSERT_TRUE(data.ok()) << data.status().message();
  ASSERT_EQ(data->switches.size(), 3u);
  const auto describe = [](const Switch& s) {
    return std::to_string(s.pid) + "/" + std::to_string(s.tid) + " at " +
           std::to_string(s.time_ns) + (s.out ? " out" : " in") + (s.preempted ? " preempted" : "");
  };
  EXPECT_EQ(describe(data->switches[0]), "7/8 at 10 out preempted") << "in time order";
  EXPECT_EQ(describe(data->switches[1]), "5/6 at 30 out");
  EXPECT_EQ(describe(data->switches[2]), "5/6 at 50 in");
  EXPECT_EQ(data->counters.malformed_records, 1u);
}

// record --off-cpu marks the samples of its switches in their header's misc (kMiscOffCpu, and why
// above it), bits the kernel leaves clear; unwinding a sample keeps its misc, so an unwound one
// stays marked.
TEST(SamplesFileTest, AnOffCpuSampleIsMarkedAndStaysMarkedWhenUnwound) {
  std::string marked = SampleRecord();
  perf_event_header header = RecordHeader(marked);
  header.misc |=
      kMiscOffCpu | (static_cast<uint16_t>(OffCpuReason::kLock) << kMiscOffCpuReasonShift);
  std::memcpy(marked.data(), &header, sizeof(header));
  base::StatusOr<SampleData> data = ParseSamples(Header() + SampleRecord() + marked);
  ASSERT_TRUE(data.ok()) << data.status().message();
  ASSERT_EQ(data->samples.size(), 2u);
  EXPECT_FALSE(data->samples[0].off_cpu);
  EXPECT_EQ(data->samples[0].off_cpu_reason, OffCpuReason::kUnknown);
  EXPECT_TRUE(data->samples[1].off_cpu);
  EXPECT_EQ(data->samples[1].off_cpu_reason, OffCpuReason::kLock);
  EXPECT_EQ(data->samples[1].callchain, data->samples[0].callchain);

  const std::vector<CallchainEntry> frames = {{0x401000, false, true}};
  std::string unwound;
  ASSERT_TRUE(
      EncodeUnwoundSample(data->samples[1], frames, 3, header.misc, unwound, kRecordUnwoundSample));
  Sample read;
  ASSERT_TRUE(ParseSampleRecord(unwound, {}, read).ok());
  EXPECT_TRUE(read.off_cpu);
  EXPECT_EQ(read.off_cpu_reason, OffCpuReason::kLock);
  ASSERT_TRUE(EncodeUnwoundSample(data->samples[0], frames, 3, PERF_RECORD_MISC_USER, unwound,
                                  kRecordUnwoundSample));
  ASSERT_TRUE(ParseSampleRecord(unwound, {}, read).ok());
  EXPECT_FALSE(read.off_cpu);
}

TEST(SamplesFileTest, ReadsFilesWithTheShorterHeaderOfFramePointerSessions) {
  std::string file = Header();
  file.resize(kSamplesHeaderSizeWithoutRegisters);
  const uint32_t size = kSamplesHeaderSizeWithoutRegisters;
  std::memcpy(file.data() + 12, &size, sizeof(size));
  base::StatusOr<SampleData> data = ParseSamples(file + SampleRecord());
  ASSERT_TRUE(data.ok()) << data.status().message();
  EXPECT_EQ(data->format, SamplesFormat{});
  EXPECT_EQ(data->samples.size(), 1u);
}

TEST(SamplesFileTest, ListsAreInTimeOrderWhateverTheDrainOrder) {
  auto comm = [](uint32_t pid, uint64_t time) {
    return RecordBuilder(PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC)
        .Put<uint32_t>(pid)
        .Put<uint32_t>(pid)
        .Name("sh")
        .SampleId(pid, pid, time)
        .Build();
  };
  // CPU 0's ring (a grandchild's exec) drained before CPU 1's (the command's, earlier).
  base::StatusOr<SampleData> data = ParseSamples(Header() + comm(30, 900) + comm(20, 100));
  ASSERT_TRUE(data.ok());
  ASSERT_EQ(data->comms.size(), 2u);
  EXPECT_EQ(data->comms[0].pid, 20u);
  EXPECT_EQ(data->comms[1].pid, 30u);
}

TEST(SamplesFileTest, TornTailIsCountedNotFatal) {
  const std::string sample = SampleRecord();
  std::string file = Header() + sample + sample.substr(0, sample.size() - 3);
  base::StatusOr<SampleData> data = ParseSamples(file);
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(data->samples.size(), 1u);
  EXPECT_EQ(data->counters.torn_tail_bytes, sample.size() - 3);
}

TEST(SamplesFileTest, CallChainLongerThanRecordIsMalformed) {
  std::string bad = RecordBuilder(PERF_RECORD_SAMPLE)
                        .Put<uint64_t>(1)
                        .Put<uint32_t>(1)
                        .Put<uint32_t>(1)
                        .Put<uint64_t>(1)
                        .Put<uint64_t>(1ull << 60)
                        .Build();
  base::StatusOr<SampleData> data = ParseSamples(Header() + bad + SampleRecord());
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(data->counters.malformed_records, 1u);
  EXPECT_EQ(data->samples.size(), 1u);
}

// A frame-pointer sample of `pid` at `time` whose user call chain is `ips`.
std::string SampleOf(uint32_t pid, uint64_t time, const std::vector<uint64_t>& ips) {
  RecordBuilder record(PERF_RECORD_SAMPLE);
  record.Put<uint64_t>(ips.front()).Put<uint32_t>(pid).Put<uint32_t>(pid).Put<uint64_t>(time);
  record.Put<uint64_t>(ips.size() + 1).Put<uint64_t>(static_cast<uint64_t>(PERF_CONTEXT_USER));
  for (uint64_t ip : ips) record.Put<uint64_t>(ip);
  return record.Build();
}

struct Seen {
  uint32_t pid;
  uint64_t time;
  std::vector<uint64_t> ips;
  bool operator==(const Seen&) const = default;
};

std::vector<Seen> Visit(const SampleData& data) {
  std::vector<Seen> seen;
  data.ForEachSample([&seen](const Sample& sample) {
    std::vector<uint64_t> ips;
    for (const CallchainEntry& frame : sample.callchain) ips.push_back(frame.ip);
    seen.push_back({sample.pid, sample.time_ns, ips});
  });
  return seen;
}

TEST(SampleListTest, VisitsTheSamplesInTimeOrderEachDecodedWhole) {
  // Drain order: CPU 1's ring (times 300, 100) then CPU 0's (200, and 100 again for another
  // process, which stays after the first 100). The Sample the visit reuses must not keep the
  // longer call chain of the sample before it.
  const std::string file = Header() + SampleOf(1, 300, {0x30, 0x31, 0x32}) +
                           SampleOf(2, 100, {0x10}) + SampleOf(3, 200, {0x20, 0x21}) +
                           SampleOf(4, 100, {0x40, 0x41, 0x42, 0x43});
  base::StatusOr<SampleData> data = ParseSamples(file);
  ASSERT_TRUE(data.ok()) << data.status().message();
  const std::vector<Seen> expected = {{2, 100, {0x10}},
                                      {4, 100, {0x40, 0x41, 0x42, 0x43}},
                                      {3, 200, {0x20, 0x21}},
                                      {1, 300, {0x30, 0x31, 0x32}}};
  EXPECT_EQ(Visit(*data), expected);
  ASSERT_EQ(data->samples.size(), 4u);
  EXPECT_EQ(data->samples.time_ns(1), 100u);
  EXPECT_EQ(data->samples[2].pid, 3u);
  EXPECT_EQ(data->samples.back().callchain.size(), 3u);
  EXPECT_EQ(data->samples.record(0), SampleOf(2, 100, {0x10}));
}

TEST(SampleListTest, KnowsItsProcessesWithoutAPass) {
  const std::string file = Header() + SampleOf(9, 300, {0x30}) + SampleOf(2, 100, {0x10}) +
                           SampleOf(9, 200, {0x20}) + SampleOf(5, 100, {0x40});
  base::StatusOr<SampleData> data = ParseSamples(file);
  ASSERT_TRUE(data.ok()) << data.status().message();
  EXPECT_EQ(data->samples.pids(), (std::vector<uint32_t>{2, 5, 9}));
  EXPECT_TRUE(SampleList().pids().empty());
}

TEST(SamplesFileTest, WriterCutsStackCopiesToTheirValidBytes) {
  const test_support::TempDir tmp;
  const std::string& dir = tmp.path();
  const std::string mmap = RecordBuilder(PERF_RECORD_MMAP)
                               .Put<uint32_t>(10)
                               .Put<uint32_t>(10)
                               .Put<uint64_t>(0x400000)
                               .Put<uint64_t>(0x1000)
                               .Put<uint64_t>(0)
                               .Name("/bin/x")
                               .Build();
  // Each record appended, and what the file holds of it.
  const std::vector<std::pair<std::string, std::string>> records = {
      {DwarfSampleRecord(PERF_SAMPLE_REGS_ABI_64, 64, 45),  // to 48 bytes: whole words
       DwarfSampleRecord(PERF_SAMPLE_REGS_ABI_64, 48, 45)},
      {DwarfSampleRecord(PERF_SAMPLE_REGS_ABI_64, 64, 64),  // nothing to cut
       DwarfSampleRecord(PERF_SAMPLE_REGS_ABI_64, 64, 64)},
      {DwarfSampleRecord(PERF_SAMPLE_REGS_ABI_64, 64, 0),  // nothing copied: size 0, no dyn_size
       DwarfSampleRecord(PERF_SAMPLE_REGS_ABI_64, 0, 0)},
      {DwarfSampleRecord(PERF_SAMPLE_REGS_ABI_NONE, 0, 0),  // no copy at all
       DwarfSampleRecord(PERF_SAMPLE_REGS_ABI_NONE, 0, 0)},
      {mmap, mmap},
  };
  std::string expected = Header(kDwarfFormat);
  {
    base::StatusOr<SamplesWriter> writer = SamplesWriter::Create(dir, kFlagKernel, kDwarfFormat);
    ASSERT_TRUE(writer.ok()) << writer.status().message();
    for (const auto& [record, kept] : records) {
      ASSERT_TRUE(writer->Append(record).ok());
      expected += kept;
    }
    ASSERT_TRUE(writer->Flush().ok());
    EXPECT_EQ(writer->records_bytes(), expected.size() - kSamplesHeaderSize);
  }
  const std::string path = dir + "/" + kSamplesFileName;
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(bytes, expected);
  base::StatusOr<SampleData> data = ReadSamplesFile(path);
  ASSERT_TRUE(data.ok()) << data.status().message();
  EXPECT_EQ(data->counters, SampleCounters{});
  ASSERT_EQ(data->samples.size(), 4u);
  EXPECT_EQ(data->mappings.size(), 1u);
  // What a report reads is what the kernel filled, as before the cut.
  ASSERT_EQ(data->samples[0].stack.size(), 45u);
  EXPECT_EQ(static_cast<uint8_t>(data->samples[0].stack[44]), 44);
  EXPECT_EQ(data->samples[1].stack.size(), 64u);
  EXPECT_TRUE(data->samples[2].stack.empty());
  EXPECT_EQ(data->samples[2].regs.values[PERF_REG_X86_SP], 0x1000u + PERF_REG_X86_SP);
}

TEST(SampleListTest, AddsOnlyRecordsThatDecode) {
  SampleList list;
  const std::string good = SampleOf(7, 50, {0x70, 0x71});
  std::string cut = good;
  cut.resize(cut.size() - 8);
  const uint16_t size = static_cast<uint16_t>(cut.size());
  std::memcpy(cut.data() + 6, &size, sizeof(size));  // a call chain past the record's end
  EXPECT_FALSE(list.Add(cut).ok());
  EXPECT_FALSE(list.Add(RecordBuilder(PERF_RECORD_COMM).Name("x").Build()).ok());
  EXPECT_TRUE(list.empty());
  ASSERT_TRUE(list.Add(good).ok());
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list.time_ns(0), 50u);
  EXPECT_EQ(list[0].callchain, (std::vector<CallchainEntry>{{0x70, false}, {0x71, false}}));
}

TEST(SampleListTest, ReadingAndVisitingAFileKeepOnlyAWindowOfItInMemory) {
  // About 15 MB of samples, over three times what a reader passes between evictions, in drain
  // rounds of two CPUs whose times interleave.
  const test_support::TempDir tmp;
  std::string file = Header();
  std::vector<Seen> expected;
  const std::vector<uint64_t> chain(40, 0x400000);
  for (uint64_t round = 0; round < 5000; ++round) {
    for (uint64_t cpu = 0; cpu < 2; ++cpu) {
      for (uint64_t i = 0; i < 4; ++i) {
        const uint64_t time = round * 100 + i * 10 + cpu;
        file += SampleOf(static_cast<uint32_t>(round), time, chain);
      }
    }
    for (uint64_t i = 0; i < 8; ++i) {
      expected.push_back({static_cast<uint32_t>(round), round * 100 + i / 2 * 10 + i % 2, chain});
    }
  }
  ASSERT_GT(file.size(), 3 * base::MappedFile::kEvictEvery);
  {
    std::ofstream out(tmp.path() + "/" + kSamplesFileName, std::ios::binary);
    out << file;
  }
  base::StatusOr<SampleData> data = ReadSamplesFile(tmp.path() + "/" + kSamplesFileName);
  ASSERT_TRUE(data.ok()) << data.status().message();
  // The passes read the file through a base::FileWindow: of the mapping, only the header's page
  // was touched, and what the kernel maps about it (up to 64 KiB of cached pages, or the 2 MiB
  // folio of the page cache the page is in): less than what a pass of the mapping keeps.
  const uint64_t header_kb = 2048 + 64;
  ASSERT_LT(header_kb, base::MappedFile::kEvictEvery / 1024);
  EXPECT_LE(test_support::ResidentKb(data->file->data()), header_kb);
  EXPECT_EQ(Visit(*data), expected);
  EXPECT_LE(test_support::ResidentKb(data->file->data()), header_kb);
  // Without the file open, the passes read the mapping itself and evict it behind them.
  data = ReadSamplesFile(tmp.path() + "/" + kSamplesFileName);
  ASSERT_TRUE(data.ok()) << data.status().message();
  data->file_fd.reset();
  EXPECT_EQ(Visit(*data), expected);
  // A visit evicts before every few hundred samples (here about 100 KiB of them): what is left is
  // the last of those and the fault-around, not a page at every boundary between them.
  EXPECT_LE(test_support::ResidentKb(data->file->data()), 256u);
}

TEST(SamplesFileTest, RejectsForeignFilesAndVersions) {
  EXPECT_FALSE(ParseSamples("PERFILE2 and more bytes than a header").ok());
  std::string file = Header();
  file[8] = 9;
  base::StatusOr<SampleData> data = ParseSamples(file);
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.status().message(), "samples file version 9; this jitscope reads version 1");
}

TEST(SamplesFileTest, WriterRoundTrip) {
  const test_support::TempDir tmp;
  const std::string& dir = tmp.path();
  {
    base::StatusOr<SamplesWriter> writer = SamplesWriter::Create(dir, kFlagKernel);
    ASSERT_TRUE(writer.ok()) << writer.status().message();
    ASSERT_TRUE(writer->Append(SampleRecord()).ok());
    ASSERT_TRUE(writer->Flush().ok());
    EXPECT_FALSE(SamplesWriter::Create(dir, 0).ok()) << "must not overwrite";
  }
  const std::string path = dir + "/" + kSamplesFileName;
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(bytes, Header() + SampleRecord());
  base::StatusOr<SampleData> data = ReadSamplesFile(path);
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(data->samples.size(), 1u);
}

TEST(SamplesFileTest, WriterRoundTripWithRegistersAndStack) {
  const test_support::TempDir tmp;
  const std::string& dir = tmp.path();
  const std::string record = DwarfSampleRecord(PERF_SAMPLE_REGS_ABI_64, 64, 48);
  {
    base::StatusOr<SamplesWriter> writer = SamplesWriter::Create(dir, kFlagKernel, kDwarfFormat);
    ASSERT_TRUE(writer.ok()) << writer.status().message();
    ASSERT_TRUE(writer->Append(record).ok());
    ASSERT_TRUE(writer->Flush().ok());
  }
  const std::string path = dir + "/" + kSamplesFileName;
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(bytes, Header(kDwarfFormat) + DwarfSampleRecord(PERF_SAMPLE_REGS_ABI_64, 48, 48))
      << "the stack copy is cut to its valid bytes";
  base::StatusOr<SampleData> data = ReadSamplesFile(path);
  ASSERT_TRUE(data.ok()) << data.status().message();
  ::unlink(path.c_str());
  EXPECT_EQ(data->format, kDwarfFormat);
  ASSERT_EQ(data->samples.size(), 1u);
  // The stack copy stays readable as long as the data: it points into the kept mapping.
  ASSERT_EQ(data->samples[0].stack.size(), 48u);
  EXPECT_EQ(static_cast<uint8_t>(data->samples[0].stack[47]), 47);
  EXPECT_EQ(data->samples[0].regs.values[PERF_REG_X86_SP], 0x1000u + PERF_REG_X86_SP);
  EXPECT_FALSE(SamplesWriter::Create(dir, 0, {{kDwarfSampleType, 0}, 64}).ok());
}

// An unwound sample (EncodeUnwoundSample) carries its frames, which of them are exact pcs rather
// than return addresses, and how its walk ended; the file says it is unwound in its header flags.
TEST(UnwoundSamplesTest, RoundTripThroughAFile) {
  const test_support::TempDir tmp;
  const std::string& dir = tmp.path();
  Sample sample;
  sample.pid = 10;
  sample.tid = 11;
  sample.time_ns = 5000;
  sample.ip = 0x401000;
  const std::vector<CallchainEntry> frames = {
      {0, true, false},          // the kernel's run, as a dwarf walk gives it
      {0x401000, false, true},   // the sampled pc
      {0x402000, false, false},  // a return address
      {0x403000, false, true},   // the pc a signal interrupted
      {0x404000, false, false},
      {0x405000, false, false, true},  // the frame-pointer chain after the walk stopped
      {0x406000, false, false, true}};
  std::string record;
  ASSERT_TRUE(EncodeUnwoundSample(sample, frames, 3, PERF_RECORD_MISC_USER, record));
  {
    SamplesFormat format;
    format.layout.unwound = true;
    format.stack_size = 8192;
    base::StatusOr<SamplesWriter> writer = SamplesWriter::Create(dir, kFlagKernel, format);
    ASSERT_TRUE(writer.ok()) << writer.status().message();
    ASSERT_TRUE(writer->Append(record).ok());
    ASSERT_TRUE(writer->Flush().ok());
  }
  base::StatusOr<SampleData> data = ReadSamplesFile(dir + "/" + kSamplesFileName);
  ASSERT_TRUE(data.ok()) << data.status().message();
  EXPECT_EQ(data->flags, kFlagKernel | kFlagUnwound);
  EXPECT_TRUE(data->format.layout.unwound);
  EXPECT_EQ(data->format.layout.sample_type, kSampleType);
  EXPECT_EQ(data->format.stack_size, 8192u);
  ASSERT_EQ(data->samples.size(), 1u);
  const Sample read = data->samples[0];
  EXPECT_EQ(read.pid, 10u);
  EXPECT_EQ(read.tid, 11u);
  EXPECT_EQ(read.time_ns, 5000u);
  EXPECT_EQ(read.ip, 0x401000u);
  // The first frame's exactness is not written: every reader takes a leaf's pc as it is.
  EXPECT_EQ(read.callchain, (std::vector<CallchainEntry>{{0, true, false},
                                                         {0x401000, false, true},
                                                         {0x402000, false, false},
                                                         {0x403000, false, true},
                                                         {0x404000, false, false},
                                                         {0x405000, false, false, true},
                                                         {0x406000, false, false, true}}));
  EXPECT_EQ(read.walk_end, std::optional<uint8_t>(3));
  EXPECT_TRUE(read.stack.empty());
}

// The same markers in a kernel's call chain (a file not flagged unwound) are context markers
// like any other: skipped, meaning nothing.
TEST(UnwoundSamplesTest, MarkersMeanNothingInAKernelsChain) {
  Sample sample;
  sample.ip = 0x401000;
  std::string record;
  ASSERT_TRUE(EncodeUnwoundSample(
      sample, std::vector<CallchainEntry>{{0x401000, false, false}, {0x402000, false, true}}, 1, 0,
      record));
  Sample plain;
  ASSERT_TRUE(ParseSampleRecord(record, SampleLayout{}, plain).ok());
  EXPECT_EQ(plain.callchain, (std::vector<CallchainEntry>{{0x401000, false}, {0x402000, false}}));
  EXPECT_FALSE(plain.walk_end.has_value());
  Sample unwound;
  ASSERT_TRUE(ParseSampleRecord(record, SampleLayout{.unwound = true}, unwound).ok());
  EXPECT_EQ(unwound.callchain,
            (std::vector<CallchainEntry>{{0x401000, false}, {0x402000, false, true}}));
  EXPECT_EQ(unwound.walk_end, std::optional<uint8_t>(1));
}

// A HotSpot interpreter frame carries its Method* and bcp slots (kContextInterpreter and two
// words) through an unwound sample; a chain that ends inside them is damage, not a frame.
TEST(UnwoundSamplesTest, InterpreterFramesCarryTheirSlots) {
  Sample sample;
  sample.ip = 0x401000;
  // (A first frame is exact without saying so: every reader takes a leaf's pc as it is.)
  const std::vector<CallchainEntry> frames = {
      {0x401000, false, false, false, true, 0x7f0000001000, 0x88},
      {0x402000, false, false, false, true, 0x7f0000002000, 0},
      {0x403000, false, false}};
  std::string record;
  ASSERT_TRUE(EncodeUnwoundSample(sample, frames, 0, 0, record));
  Sample read;
  ASSERT_TRUE(ParseSampleRecord(record, SampleLayout{.unwound = true}, read).ok());
  EXPECT_EQ(read.callchain, frames);

  // The chain's count says it ends after the marker's first word.
  std::string torn = record;
  uint64_t nr = 0;
  const size_t nr_at = sizeof(perf_event_header) + 3 * sizeof(uint64_t);
  std::memcpy(&nr, torn.data() + nr_at, sizeof(nr));
  // The entries: USER, INTERPRETER, method, bcp, ip, ... ; cut after the marker and one word.
  nr = 3;
  std::memcpy(torn.data() + nr_at, &nr, sizeof(nr));
  EXPECT_FALSE(ParseSampleRecord(torn, SampleLayout{.unwound = true}, read).ok());
}

// A record's size is 16 bits: a walk too long to say in one is refused, not cut silently.
TEST(UnwoundSamplesTest, AChainTooLongForARecordIsRefused) {
  std::string record = "untouched";
  EXPECT_FALSE(EncodeUnwoundSample(
      Sample{}, std::vector<CallchainEntry>(8200, CallchainEntry{0x401000}), 0, 0, record));
  EXPECT_EQ(record, "untouched");
  EXPECT_TRUE(EncodeUnwoundSample(
      Sample{}, std::vector<CallchainEntry>(8000, CallchainEntry{0x401000}), 0, 0, record));
}

// A --call-graph dwarf file whose recorder unwound some samples as it recorded: those are of
// jitscope's own record type, decoded as an unwound file's samples; the others keep their
// registers and stack copies, and no walk's end.
TEST(UnwoundSamplesTest, AFileMixesSamplesUnwoundWhileRecordingWithSamplesAsRecorded) {
  Sample sample;
  sample.pid = 10;
  sample.tid = 11;
  sample.time_ns = 6000;
  sample.ip = 0x401000;
  std::string unwound;
  ASSERT_TRUE(EncodeUnwoundSample(
      sample, std::vector<CallchainEntry>{{0x401000, false, true}, {0x402000, false, false}}, 0,
      PERF_RECORD_MISC_USER, unwound, kRecordUnwoundSample));
  perf_event_header header{};
  std::memcpy(&header, unwound.data(), sizeof(header));
  EXPECT_EQ(header.type, kRecordUnwoundSample);

  const std::string raw = DwarfSampleRecord(PERF_SAMPLE_REGS_ABI_64, 64, 64);  // at 5000
  base::StatusOr<SampleData> data = ParseSamples(Header(kDwarfFormat) + unwound + raw);
  ASSERT_TRUE(data.ok()) << data.status().message();
  EXPECT_EQ(data->counters, SampleCounters{});
  ASSERT_EQ(data->samples.size(), 2u);
  // In time order: the one as recorded first.
  const Sample as_recorded = data->samples[0];
  EXPECT_EQ(as_recorded.time_ns, 5000u);
  EXPECT_FALSE(as_recorded.walk_end.has_value());
  EXPECT_EQ(as_recorded.regs.abi, static_cast<uint64_t>(PERF_SAMPLE_REGS_ABI_64));
  EXPECT_EQ(as_recorded.stack.size(), 64u);
  const Sample read = data->samples[1];
  EXPECT_EQ(read.time_ns, 6000u);
  EXPECT_EQ(read.pid, 10u);
  EXPECT_EQ(read.callchain,
            (std::vector<CallchainEntry>{{0x401000, false, false}, {0x402000, false, false}}));
  EXPECT_EQ(read.walk_end, std::optional<uint8_t>(0));
  EXPECT_EQ(read.regs.abi, static_cast<uint64_t>(PERF_SAMPLE_REGS_ABI_NONE));
  EXPECT_TRUE(read.stack.empty());
}

// Only a frame-pointer layout can be unwound: registers and stack copies are what unwinding
// replaced.
TEST(UnwoundSamplesTest, AnUnwoundLayoutHasNoRegisters) {
  EXPECT_TRUE(IsSupportedLayout({.sample_type = kSampleType, .unwound = true}));
  EXPECT_FALSE(IsSupportedLayout(
      {.sample_type = kDwarfSampleType, .regs_mask = kX86_64RegsMask, .unwound = true}));
}

}  // namespace
}  // namespace jitscope::session
