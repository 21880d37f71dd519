// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// TouchedFiles: the files of the chosen processes that their samples' addresses fall in, from
// samples made record by record.
#include "jitscope/record/touched_files.h"

#include <linux/perf_event.h>

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/perf_data_builder.h"

namespace jitscope::record {
namespace {

using test_support::PerfRecordBuilder;

session::Mapping MappingOf(uint32_t pid, uint64_t start, uint64_t length, std::string name) {
  session::Mapping mapping;
  mapping.pid = pid;
  mapping.start = start;
  mapping.length = length;
  mapping.filename = std::move(name);
  return mapping;
}

// A frame-pointer sample of `pid`: its ip, then the call chain's kernel and user frames.
std::string FpSample(uint32_t pid, uint64_t ip, const std::vector<uint64_t>& kernel,
                     const std::vector<uint64_t>& user) {
  PerfRecordBuilder record(PERF_RECORD_SAMPLE);
  record.Put<uint64_t>(ip).Put<uint32_t>(pid).Put<uint32_t>(pid).Put<uint64_t>(100);
  record.Put<uint64_t>(kernel.size() + user.size() + 2);
  record.Put<uint64_t>(static_cast<uint64_t>(PERF_CONTEXT_KERNEL));
  for (uint64_t frame : kernel) record.Put<uint64_t>(frame);
  record.Put<uint64_t>(static_cast<uint64_t>(PERF_CONTEXT_USER));
  for (uint64_t frame : user) record.Put<uint64_t>(frame);
  return record.Build();
}

// A --call-graph dwarf sample of `pid` at `ip` (its call chain that ip alone), whose stack copy
// is `stack`.
std::string DwarfSample(uint32_t pid, uint64_t ip, uint64_t abi, const std::string& stack) {
  PerfRecordBuilder record(PERF_RECORD_SAMPLE);
  record.Put<uint64_t>(ip).Put<uint32_t>(pid).Put<uint32_t>(pid).Put<uint64_t>(100);
  record.Put<uint64_t>(2).Put<uint64_t>(static_cast<uint64_t>(PERF_CONTEXT_USER)).Put(ip);
  record.Put<uint64_t>(abi);
  for (int reg = 0; reg < session::kPerfRegisterCount; ++reg) {
    if ((session::kX86_64RegsMask >> reg) & 1) record.Put<uint64_t>(0);
  }
  record.Put<uint64_t>(stack.size());
  for (char byte : stack) record.Put(byte);
  record.Put<uint64_t>(stack.size());
  return record.Build();
}

template <typename T>
std::string Words(const std::vector<T>& words) {
  return std::string(reinterpret_cast<const char*>(words.data()), words.size() * sizeof(T));
}

// Process 7's program, three libraries (libc.so.6 mapped twice) and mappings that are no files to
// copy; process 8's library at an address of 7's: only the samples of the process itself count.
session::SampleData DataOf(const std::vector<std::string>& records,
                           const session::SampleLayout& layout) {
  session::SampleData data;
  data.samples.set_layout(layout);
  for (const std::string& record : records) EXPECT_TRUE(data.samples.Add(record).ok());
  data.mappings = {MappingOf(7, 0x400000, 0x1000, "/usr/bin/app"),
                   MappingOf(7, 0x7f0000000000, 0x10000, "/lib/libc.so.6"),
                   MappingOf(7, 0x7f0000020000, 0x1000, "/lib/libc.so.6"),
                   MappingOf(7, 0x7f0000100000, 0x200000, "/lib/libbig.so"),
                   MappingOf(7, 0x7f0000400000, 0x1000, "//anon"),
                   MappingOf(7, 0x7f0000500000, 0x1000, "[vdso]"),
                   MappingOf(7, 0x7f0000600000, 0x1000, "/lib/gone.so (deleted)"),
                   MappingOf(8, 0x7f0000000000, 0x10000, "/lib/other.so")};
  return data;
}

TEST(TouchedFilesTest, TheIpAndTheUserFramesOfTheCallChainOfTheChosenProcesses) {
  const std::vector<std::string> records = {
      FpSample(7, 0x400010, {}, {0x400010, 0x7f0000020fff}),
      // In the kernel: its ip and kernel frames are in no file; the user part is.
      FpSample(7, 0xffffffff81000000, {0xffffffff81000000}, {0x400020, 0x7f00002ff000}),
      // Anonymous memory, the vDSO, a deleted file, just past a mapping's end, between mappings.
      FpSample(7, 0x7f0000400010, {},
               {0x7f0000400010, 0x7f0000500010, 0x7f0000600010, 0x401000, 0x7f0000010000}),
      FpSample(8, 0x7f0000000010, {}, {0x7f0000000010}), FpSample(9, 0x400010, {}, {0x400010})};
  const session::SampleData data = DataOf(records, {});
  EXPECT_EQ(TouchedFiles(data, {7}),
            (std::map<uint32_t, std::set<std::string>>{
                {7, {"/usr/bin/app", "/lib/libc.so.6", "/lib/libbig.so"}}}));
  EXPECT_EQ(
      TouchedFiles(data, {7, 8}),
      (std::map<uint32_t, std::set<std::string>>{
          {7, {"/usr/bin/app", "/lib/libc.so.6", "/lib/libbig.so"}}, {8, {"/lib/other.so"}}}));
  EXPECT_EQ(TouchedFiles(data, {9}), (std::map<uint32_t, std::set<std::string>>{}))
      << "a process without mappings";
  EXPECT_EQ(TouchedFiles(data, {}), (std::map<uint32_t, std::set<std::string>>{}));
}

// With --call-graph dwarf, the words of the stack copy: where report's unwinding returns to.
TEST(TouchedFilesTest, TheWordsOfTheStackCopy) {
  const session::SampleLayout layout{session::kDwarfSampleType, session::kX86_64RegsMask};
  const std::vector<std::string> records = {
      DwarfSample(7, 0x400010, PERF_SAMPLE_REGS_ABI_64,
                  Words<uint64_t>({0x1234, 0x7f0000000100, 0x7fff00000000}) + std::string(4, '\0') +
                      Words<uint64_t>({0x7f0000100000}) + std::string(4, '\0'))};
  EXPECT_EQ(TouchedFiles(DataOf(records, layout), {7}),
            (std::map<uint32_t, std::set<std::string>>{{7, {"/usr/bin/app", "/lib/libc.so.6"}}}))
      << "only aligned words: the unaligned 0x7f0000100000 (libbig.so) is not one";
  // A 32-bit process's words are 4 bytes.
  const std::vector<std::string> records32 = {
      DwarfSample(7, 0x7f0000400010, PERF_SAMPLE_REGS_ABI_32, Words<uint32_t>({0x9, 0x400800}))};
  EXPECT_EQ(TouchedFiles(DataOf(records32, layout), {7}),
            (std::map<uint32_t, std::set<std::string>>{{7, {"/usr/bin/app"}}}));
}

}  // namespace
}  // namespace jitscope::record
