// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// BuildProfile over a session made byte by byte: a samples file and the jitdump that names its
// JIT code, so each sample's time and address are the test's to choose.
#include "jitscope/report/profile_builder.h"

#include <linux/perf_event.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/formats/jitdump_writer.h"
#include "jitscope/session/perf_record.h"
#include "jitscope/session/samples_file.h"
#include "jitscope/unwind/unwinder.h"
#include "support/perf_data_builder.h"

#include "support/temp_dir.h"

namespace jitscope::report {
namespace {

constexpr uint32_t kPid = 42;
constexpr uint64_t kCode = 0x7f0000001000;

// A sample of kPid at `time` whose user frame is `ip`: its only frame, or, with a `kernel_ip`,
// below the kernel frame it was taken in.
std::string SampleAt(uint64_t time, uint64_t ip, uint64_t kernel_ip = 0) {
  const bool in_kernel = kernel_ip != 0;
  test_support::PerfRecordBuilder sample(PERF_RECORD_SAMPLE,
                                         in_kernel ? PERF_RECORD_MISC_KERNEL : 0);
  sample.Put<uint64_t>(in_kernel ? kernel_ip : ip)
      .Put<uint32_t>(kPid)
      .Put<uint32_t>(kPid)
      .Put<uint64_t>(time)
      .Put<uint64_t>(in_kernel ? 4 : 2);
  if (in_kernel) {
    sample.Put<uint64_t>(static_cast<uint64_t>(PERF_CONTEXT_KERNEL)).Put<uint64_t>(kernel_ip);
  }
  return sample.Put<uint64_t>(static_cast<uint64_t>(PERF_CONTEXT_USER)).Put<uint64_t>(ip).Build();
}

// Each stack of `profile`, its frames' functions leaf first joined by ';', and its samples.
std::map<std::string, uint64_t> StacksOf(const Profile& profile) {
  std::map<std::string, uint64_t> stacks;
  for (const Stack& stack : profile.stacks) {
    std::string joined;
    for (uint32_t frame : stack.frames) {
      joined += (joined.empty() ? "" : ";") + profile.locations[frame].function;
    }
    stacks[joined] += stack.samples;
  }
  return stacks;
}

void AppendCodeLoad(std::vector<uint8_t>& dump, uint64_t time, uint64_t index,
                    std::string_view name, uint64_t address = kCode) {
  formats::JitdumpCodeLoadFields fields;
  fields.timestamp = time;
  fields.pid = kPid;
  fields.tid = kPid;
  fields.code_address = address;
  fields.code_size = 0x100;
  fields.code_index = index;
  fields.name = name;
  ASSERT_TRUE(formats::AppendJitdumpCodeLoadPrefix(dump, fields));
  dump.insert(dump.end(), fields.code_size, 0x90);
}

// The jitdump of kPid in `dir`: each of `loads` (time, name) loads code at kCode.
void WriteJitdump(const std::string& dir,
                  const std::vector<std::pair<uint64_t, std::string>>& loads) {
  std::vector<uint8_t> dump;
  formats::AppendJitdumpHeader(dump, kPid, 50);
  uint64_t index = 0;
  for (const auto& [time, name] : loads) AppendCodeLoad(dump, time, ++index, name);
  std::ofstream out(dir + "/" + formats::JitdumpFileName(kPid), std::ios::binary);
  out.write(reinterpret_cast<const char*>(dump.data()), static_cast<std::streamsize>(dump.size()));
}

// Three samples at one address of JIT code: two before `second` was loaded over `first`, one
// after. The name of a hot address is reused from sample to sample; what was at the address
// when each sample was taken must still decide it.
TEST(ProfileBuilderTest, OneAddressNamesWhatWasThereAtEachSample) {
  const test_support::TempDir tmp;
  const std::string dir = tmp.path();
  WriteJitdump(dir, {{100, "first"}, {300, "second"}});
  {
    base::StatusOr<session::SamplesWriter> writer = session::SamplesWriter::Create(dir, 0);
    ASSERT_TRUE(writer.ok()) << writer.status().message();
    for (uint64_t time : {150, 160, 350}) {
      ASSERT_TRUE(writer->Append(SampleAt(time, kCode + 0x10)).ok());
    }
    ASSERT_TRUE(writer->Flush().ok());
  }
  base::StatusOr<Profile> profile = BuildProfile(dir, BuildOptions{});
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  ASSERT_EQ(profile->stacks.size(), 2u);
  const Stack& before = profile->stacks[0];
  const Stack& after = profile->stacks[1];
  ASSERT_EQ(before.frames.size(), 1u);
  ASSERT_EQ(after.frames.size(), 1u);
  EXPECT_EQ(profile->locations[before.frames[0]].function, "first");
  EXPECT_EQ(before.samples, 2u);
  EXPECT_EQ(before.first_time_ns, 150u);
  EXPECT_EQ(before.last_time_ns, 160u);
  EXPECT_EQ(profile->locations[after.frames[0]].function, "second");
  EXPECT_EQ(after.samples, 1u);
  EXPECT_EQ(after.first_time_ns, 350u);
  EXPECT_EQ(profile->total_samples, 3u);
}

std::string CommAt(uint64_t time, const std::string& name) {
  return test_support::PerfRecordBuilder(PERF_RECORD_COMM)
      .Put<uint32_t>(kPid)
      .Put<uint32_t>(kPid)
      .Name(name)
      .SampleId(kPid, kPid, time)
      .Build();
}

// A process is named by its COMM at its last sample; one that had none then (here it was
// emptied) keeps the latest it had at an earlier sample.
TEST(ProfileBuilderTest, AProcessWithoutANameAtItsLastSampleKeepsItsLatestOne) {
  const test_support::TempDir tmp;
  const std::string dir = tmp.path();
  {
    base::StatusOr<session::SamplesWriter> writer = session::SamplesWriter::Create(dir, 0);
    ASSERT_TRUE(writer.ok()) << writer.status().message();
    for (const std::string& record :
         {CommAt(10, "first"), SampleAt(100, kCode), CommAt(150, "second"), SampleAt(160, kCode),
          CommAt(200, ""), SampleAt(300, kCode)}) {
      ASSERT_TRUE(writer->Append(record).ok());
    }
    ASSERT_TRUE(writer->Flush().ok());
  }
  base::StatusOr<Profile> profile = BuildProfile(dir, BuildOptions{});
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  EXPECT_EQ(profile->processes, (std::vector<ProcessShare>{{kPid, "second", 3}}));
}

std::string MappingAt(uint64_t time, uint64_t start, uint64_t length, const std::string& name) {
  return test_support::ExecutableMapping(kPid, time, start, length, name);
}

// A sample taken in the kernel's exec, before exec returned to the process's new image (it maps
// the image, the [vdso] last, then sets the registers), holds the user registers of the image
// exec replaced: its user frame says nothing of this process and is left out, where "[unknown]"
// would say a walk went wrong. Once a frame of the process is in its new mappings (310), an
// address in no mapping is "[unknown]" as ever (320).
TEST(ProfileBuilderTest, TheUserFrameOfASampleInExecIsLeftOut) {
  const test_support::TempDir tmp;
  const std::string dir = tmp.path();
  constexpr uint64_t kKernel = 0xffffffff81000000;
  constexpr uint64_t kNowhere = 0x5555deadb000;
  constexpr uint64_t kVdso = 0x7ffff7fc1000;
  {
    base::StatusOr<session::SamplesWriter> writer =
        session::SamplesWriter::Create(dir, session::kFlagKernel);
    ASSERT_TRUE(writer.ok()) << writer.status().message();
    for (const std::string& record :
         {SampleAt(100, kNowhere, kKernel), MappingAt(200, kCode, 0x1000, "//anon"),
          SampleAt(220, kNowhere, kKernel), MappingAt(250, kVdso, 0x2000, "[vdso]"),
          SampleAt(300, kNowhere, kKernel), SampleAt(310, kCode + 0x10, kKernel),
          SampleAt(320, kNowhere, kKernel)}) {
      ASSERT_TRUE(writer->Append(record).ok());
    }
    ASSERT_TRUE(writer->Flush().ok());
  }
  base::StatusOr<Profile> profile = BuildProfile(dir, BuildOptions{});
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  EXPECT_EQ(StacksOf(*profile),
            (std::map<std::string, uint64_t>{
                {"[kernel]", 3}, {"[kernel];[unknown]", 1}, {"[kernel];[anonymous]", 1}}));
}

// A sample of record --off-cpu (marked kMiscOffCpu), taken as its thread was switched out.
std::string OffCpuSampleAt(uint64_t time, uint64_t ip) {
  std::string record = SampleAt(time, ip);
  perf_event_header header = session::RecordHeader(record);
  header.misc |= session::kMiscOffCpu;
  std::memcpy(record.data(), &header, sizeof(header));
  return record;
}

std::string SwitchAt(uint64_t time, bool out, bool preempted = false) {
  return test_support::PerfRecordBuilder(
             PERF_RECORD_SWITCH,
             static_cast<uint16_t>((out ? PERF_RECORD_MISC_SWITCH_OUT : 0) |
                                   (preempted ? PERF_RECORD_MISC_SWITCH_OUT_PREEMPT : 0)))
      .SampleId(kPid, kPid, time)
      .Build();
}

// record --off-cpu: each off-CPU sample's stack, under a leaf that says why its thread stopped,
// weighs the time until it ran again (its switch records), in samples of the period (1 ms here),
// each stack's rounded to the nearest; one whose switch records are missing is left out and
// counted. --off-cpu only and exclude keep either kind alone.
TEST(ProfileBuilderTest, OffCpuSamplesWeighTheTimeUntilTheirThreadRanAgain) {
  const test_support::TempDir tmp;
  const std::string dir = tmp.path();
  WriteJitdump(dir, {{100, "jitted"}});
  {
    base::StatusOr<session::SamplesWriter> writer = session::SamplesWriter::Create(dir, 0);
    ASSERT_TRUE(writer.ok()) << writer.status().message();
    for (const std::string& record :
         {SampleAt(1'000'000, kCode + 0x10),
          // Waits 3.6 ms, in two periods: 4 samples.
          OffCpuSampleAt(2'000'000, kCode + 0x20), SwitchAt(2'000'100, true),
          SwitchAt(4'000'100, false),  //
          OffCpuSampleAt(4'500'000, kCode + 0x20), SwitchAt(4'500'100, true),
          SwitchAt(6'100'100, false),
          // Preempted for 0.4 ms: under half a period, no sample.
          OffCpuSampleAt(7'000'000, kCode + 0x10), SwitchAt(7'000'050, true, true),
          SwitchAt(7'400'050, false),
          // No switch out follows within a millisecond: left out.
          OffCpuSampleAt(8'000'000, kCode + 0x10), SwitchAt(9'500'000, true),
          SwitchAt(9'600'000, false), SampleAt(9'700'000, kCode + 0x10)}) {
      ASSERT_TRUE(writer->Append(record).ok());
    }
    ASSERT_TRUE(writer->Flush().ok());
  }
  base::StatusOr<Profile> profile = BuildProfile(dir, BuildOptions{});
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  EXPECT_EQ(StacksOf(*profile),
            (std::map<std::string, uint64_t>{{"[off-cpu: waiting];jitted", 4}, {"jitted", 2}}));
  EXPECT_EQ(profile->total_samples, 6u);
  EXPECT_EQ(profile->filtered_out, 0u);
  EXPECT_EQ(profile->processes, (std::vector<ProcessShare>{{kPid, "", 6}}));
  EXPECT_EQ(profile->off_cpu, (OffCpuSummary{.choice = OffCpuSamples::kInclude,
                                             .switches = 3,
                                             .waiting_ns = 3'600'000,
                                             .preempted_ns = 400'000,
                                             .samples = 4,
                                             .without_period = 1,
                                             .left_out = 0}));
  // The samples on a CPU are on the timeline; the off-CPU samples are its periods.
  ASSERT_EQ(profile->timeline.threads.size(), 1u);
  EXPECT_EQ(profile->timeline.threads[0].samples_on_cpu, 2u);
  EXPECT_EQ(profile->timeline.threads[0].off_cpu.size(), 4u);

  BuildOptions options;
  options.off_cpu = OffCpuSamples::kOnly;
  profile = BuildProfile(dir, options);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  EXPECT_EQ(StacksOf(*profile),
            (std::map<std::string, uint64_t>{{"[off-cpu: waiting];jitted", 4}}));
  EXPECT_EQ(profile->off_cpu.left_out, 2u);
  EXPECT_EQ(profile->filtered_out, 0u);

  options.off_cpu = OffCpuSamples::kExclude;
  profile = BuildProfile(dir, options);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  EXPECT_EQ(StacksOf(*profile), (std::map<std::string, uint64_t>{{"jitted", 2}}));
  OffCpuSummary excluded;
  excluded.choice = OffCpuSamples::kExclude;
  excluded.left_out = 4;
  EXPECT_EQ(profile->off_cpu, excluded);
  EXPECT_EQ(profile->filtered_out, 0u);
}

void WriteFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

// Two samples of one path, leaf < middle < outer in JIT code, one walked by rules to its end,
// the other stopped in middle and carried on to outer by the frame-pointer chain: one stack, of
// which one sample is a guess. With mark_guesses the guess is marked, and the stacks are two.
TEST(ProfileBuilderTest, AStackCarriedOnByTheFramePointerChainIsTheStackWalkedByRules) {
  const test_support::TempDir tmp;
  const std::string dir = tmp.path();
  std::vector<uint8_t> dump;
  formats::AppendJitdumpHeader(dump, kPid, 5);
  AppendCodeLoad(dump, 10, 1, "leaf", kCode);
  AppendCodeLoad(dump, 10, 2, "middle", kCode + 0x100);
  AppendCodeLoad(dump, 10, 3, "outer", kCode + 0x200);
  WriteFile(dir + "/" + formats::JitdumpFileName(kPid), dump);
  {
    session::SamplesFormat format;
    format.layout.unwound = true;
    base::StatusOr<session::SamplesWriter> writer = session::SamplesWriter::Create(dir, 0, format);
    ASSERT_TRUE(writer.ok()) << writer.status().message();
    session::Sample sample;
    sample.pid = sample.tid = kPid;
    sample.ip = kCode + 0x10;
    for (const bool guessed : {false, true}) {
      sample.time_ns = guessed ? 200 : 100;
      const std::vector<session::CallchainEntry> frames = {{kCode + 0x10, false, true},
                                                           {kCode + 0x120, false, false},
                                                           {kCode + 0x230, false, false, guessed}};
      std::string record;
      ASSERT_TRUE(session::EncodeUnwoundSample(
          sample, frames,
          static_cast<uint8_t>(guessed ? unwind::StopReason::kNoRule
                                       : unwind::StopReason::kOutermost),
          PERF_RECORD_MISC_USER, record));
      ASSERT_TRUE(writer->Append(record).ok());
    }
    ASSERT_TRUE(writer->Flush().ok());
  }
  auto names = [](const Profile& profile, const Stack& stack) {
    std::vector<std::string> functions;
    for (uint32_t frame : stack.frames) functions.push_back(profile.locations[frame].function);
    return functions;
  };
  base::StatusOr<Profile> merged = BuildProfile(dir, BuildOptions{});
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  ASSERT_EQ(merged->stacks.size(), 1u);
  EXPECT_EQ(names(*merged, merged->stacks[0]),
            (std::vector<std::string>{"leaf", "middle", "outer"}));
  EXPECT_EQ(merged->stacks[0].samples, 2u);
  EXPECT_EQ(merged->stacks[0].guessed_samples, 1u);
  EXPECT_EQ(merged->guessed_walks, 1u);
  EXPECT_FALSE(merged->guesses_marked);

  BuildOptions marking;
  marking.mark_guesses = true;
  base::StatusOr<Profile> marked = BuildProfile(dir, marking);
  ASSERT_TRUE(marked.ok()) << marked.status().message();
  ASSERT_EQ(marked->stacks.size(), 2u);
  EXPECT_EQ(names(*marked, marked->stacks[0]),
            (std::vector<std::string>{"leaf", "middle", "outer"}));
  EXPECT_EQ(marked->stacks[0].guessed_samples, 0u);
  EXPECT_EQ(names(*marked, marked->stacks[1]),
            (std::vector<std::string>{"leaf", "middle", "[frame-pointer chain]", "outer"}));
  EXPECT_EQ(marked->stacks[1].guessed_samples, 1u);
  EXPECT_TRUE(marked->guesses_marked);
}

}  // namespace
}  // namespace jitscope::report
