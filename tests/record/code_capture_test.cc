// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Code read from a running process (record/code_capture.h), with this test's own process as the
// one recorded: its anonymous executable memory is made known by an MMAP record and reached by
// samples, as a recording's records would. What was read is read back from the session's file.
#include "jitscope/record/code_capture.h"

#include <linux/perf_event.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/formats/captured_code.h"
#include "jitscope/record/perf_map_tail.h"
#include "support/files.h"
#include "support/perf_data_builder.h"
#include "support/temp_dir.h"

namespace jitscope::record {
namespace {

using test_support::PerfRecordBuilder;

// Counts what reaches it.
class CountingSink : public session::RecordSink {
 public:
  base::Status Append(std::string_view record) override {
    ++records;
    bytes += record.size();
    return base::Status::Ok();
  }
  base::Status Flush() override {
    ++flushes;
    return base::Status::Ok();
  }
  base::Status Checkpoint() override {
    ++checkpoints;
    return base::Status::Ok();
  }
  uint64_t records_bytes() const override { return bytes; }
  uint64_t records = 0;
  uint64_t bytes = 0;
  uint64_t flushes = 0;
  uint64_t checkpoints = 0;
};

uint32_t Pid() { return static_cast<uint32_t>(::getpid()); }

std::string MappingOf(uint64_t start, uint64_t length, const std::string& name, uint32_t pid) {
  return test_support::ExecutableMapping(pid, 1, start, length, name);
}

// A sample of the default layout (IP, TID, TIME, CALLCHAIN) at `ip`, its only frame.
std::string SampleAt(uint64_t time, uint64_t ip, uint32_t pid) {
  return PerfRecordBuilder(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER)
      .Put<uint64_t>(ip)
      .Put<uint32_t>(pid)
      .Put<uint32_t>(pid)
      .Put<uint64_t>(time)
      .Put<uint64_t>(2)
      .Put<uint64_t>(static_cast<uint64_t>(PERF_CONTEXT_USER))
      .Put<uint64_t>(ip)
      .Build();
}

// Anonymous executable memory of this process, its bytes the test's to write.
class Code {
 public:
  static constexpr size_t kSize = 256 * 1024;
  Code() {
    void* at = ::mmap(nullptr, kSize, PROT_READ | PROT_WRITE | PROT_EXEC,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (at == MAP_FAILED) at = nullptr;
    bytes_ = static_cast<uint8_t*>(at);
    if (bytes_ != nullptr) std::memset(bytes_, 0x90, kSize);
  }
  ~Code() {
    if (bytes_ != nullptr) ::munmap(bytes_, kSize);
  }
  uint8_t* bytes() const { return bytes_; }
  uint64_t address() const { return reinterpret_cast<uint64_t>(bytes_); }

 private:
  uint8_t* bytes_ = nullptr;
};

std::unique_ptr<CodeCapture> Capture(const std::string& dir, uint64_t max_bytes,
                                     CountingSink** next = nullptr) {
  auto sink = std::make_unique<CountingSink>();
  if (next != nullptr) *next = sink.get();
  auto capture = CodeCapture::Create(dir, session::SamplesFormat{}, max_bytes, std::move(sink));
  EXPECT_TRUE(capture.ok()) << capture.status().message();
  return capture.ok() ? std::move(*capture) : nullptr;
}

formats::ParsedCapturedCode ReadBack(const std::string& dir, std::string& keep) {
  keep = test_support::ReadFile(dir + "/" + formats::CapturedCodeFileName(Pid()));
  auto parsed = formats::ParseCapturedCode(
      {reinterpret_cast<const uint8_t*>(keep.data()), keep.size()}, "captured");
  EXPECT_TRUE(parsed.ok());
  return parsed.ok() ? std::move(*parsed) : formats::ParsedCapturedCode{};
}

// The window of the mapping read around an address no perf-map function holds.
std::pair<uint64_t, uint64_t> WindowOf(const Code& code, uint64_t address) {
  const uint64_t block = address / CodeCapture::kWindowBlock * CodeCapture::kWindowBlock;
  return {std::max(code.address(), block - CodeCapture::kWindowBefore),
          std::min(code.address() + Code::kSize, block + CodeCapture::kWindowAfter)};
}

// The recorder's checkpoints reach the next sink as checkpoints: a flush there would end a
// recording unwinder's thread while records still come (and the next append wait for it forever).
TEST(CodeCaptureTest, ACheckpointIsPassedOnAsACheckpointNotAFlush) {
  const test_support::TempDir tmp;
  CountingSink* next = nullptr;
  auto capture = Capture(tmp.path(), CodeCapture::kDefaultMaxBytes, &next);
  ASSERT_NE(capture, nullptr);
  ASSERT_TRUE(capture->Checkpoint().ok());
  ASSERT_TRUE(capture->Checkpoint().ok());
  EXPECT_EQ(next->checkpoints, 2u);
  EXPECT_EQ(next->flushes, 0u);
  ASSERT_TRUE(capture->Flush().ok());
  EXPECT_EQ(next->flushes, 1u);
}

// A sample reads the code around its pc once; within the check interval it is not looked at
// again; after it, a page that changed is read again, one that did not is only compared. Every
// record goes on to the next sink.
TEST(CodeCaptureTest, CodeWhereSamplesLandIsReadAgainWhenItChanged) {
  const Code code;
  ASSERT_NE(code.bytes(), nullptr);
  const test_support::TempDir tmp;
  CountingSink* next = nullptr;
  auto capture = Capture(tmp.path(), CodeCapture::kDefaultMaxBytes, &next);
  ASSERT_NE(capture, nullptr);
  const uint64_t pc = code.address() + 0x9100;
  const uint64_t second = CodeCapture::kCheckInterval;
  ASSERT_TRUE(capture->Append(MappingOf(code.address(), Code::kSize, "//anon", Pid())).ok());
  ASSERT_TRUE(capture->Append(SampleAt(1000, pc, Pid())).ok());
  ASSERT_TRUE(capture->Append(SampleAt(1000 + second / 2, pc, Pid())).ok());
  std::memset(code.bytes() + 0x9100, 0xcc, 16);  // the code at the pc changes
  ASSERT_TRUE(capture->Append(SampleAt(1000 + second / 2 + 1, pc, Pid())).ok());
  ASSERT_TRUE(capture->Append(SampleAt(1000 + second * 2, pc, Pid())).ok());
  ASSERT_TRUE(capture->Append(SampleAt(1000 + second * 4, pc, Pid())).ok());
  ASSERT_TRUE(capture->Flush().ok());
  EXPECT_EQ(next->records, 6u);
  const CodeCaptureCounts& counts = capture->counts();
  EXPECT_EQ(counts.reads, 2u);
  EXPECT_EQ(counts.processes, 1u);
  EXPECT_EQ(counts.unchanged, 1u);
  EXPECT_EQ(counts.failed, 0u);
  EXPECT_EQ(counts.over_bound, 0u);

  std::string keep;
  const formats::ParsedCapturedCode parsed = ReadBack(tmp.path(), keep);
  EXPECT_TRUE(parsed.error.ok()) << parsed.error.message();
  EXPECT_EQ(parsed.pid, Pid());
  ASSERT_EQ(parsed.reads.size(), 2u);
  const auto [start, end] = WindowOf(code, pc);
  for (const formats::CodeRead& read : parsed.reads) {
    EXPECT_EQ(read.address, start);
    EXPECT_EQ(read.bytes.size(), end - start);
  }
  EXPECT_LE(parsed.reads[0].time_ns, parsed.reads[1].time_ns);
  EXPECT_EQ(parsed.reads[0].bytes[pc - start], 0x90);
  EXPECT_EQ(parsed.reads[1].bytes[pc - start], 0xcc);
  EXPECT_EQ(counts.bytes, 2 * (end - start));
}

// The words of a sample's stack copy that point into the memory are where its frames may return
// to: each is read (here: the call chain's frames, a frame-pointer sample's).
TEST(CodeCaptureTest, EveryFrameOfASamplesStackIsRead) {
  const Code code;
  ASSERT_NE(code.bytes(), nullptr);
  const test_support::TempDir tmp;
  auto capture = Capture(tmp.path(), CodeCapture::kDefaultMaxBytes);
  ASSERT_NE(capture, nullptr);
  const uint64_t leaf = code.address() + 0x100, caller = code.address() + 0x30000;
  ASSERT_TRUE(capture->Append(MappingOf(code.address(), Code::kSize, "//anon", Pid())).ok());
  const std::string sample = PerfRecordBuilder(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER)
                                 .Put<uint64_t>(leaf)
                                 .Put<uint32_t>(Pid())
                                 .Put<uint32_t>(Pid())
                                 .Put<uint64_t>(5)
                                 .Put<uint64_t>(3)
                                 .Put<uint64_t>(static_cast<uint64_t>(PERF_CONTEXT_USER))
                                 .Put<uint64_t>(leaf)
                                 .Put<uint64_t>(caller)
                                 .Build();
  ASSERT_TRUE(capture->Append(sample).ok());
  EXPECT_EQ(capture->counts().reads, 2u);
  std::string keep;
  const formats::ParsedCapturedCode parsed = ReadBack(tmp.path(), keep);
  ASSERT_EQ(parsed.reads.size(), 2u);
  EXPECT_EQ(parsed.reads[0].address, WindowOf(code, leaf).first);
  EXPECT_EQ(parsed.reads[1].address, WindowOf(code, caller).first);
}

// Nothing is read of a process whose JIT files hold its code (it maps a jitdump), of memory a
// file backs, past the bound, or of a process that cannot be read; what is not read is counted.
TEST(CodeCaptureTest, WhatIsNotReadIsSaid) {
  const Code code;
  ASSERT_NE(code.bytes(), nullptr);
  const uint64_t pc = code.address() + 0x100;
  {
    const test_support::TempDir tmp;
    auto capture = Capture(tmp.path(), CodeCapture::kDefaultMaxBytes);
    ASSERT_TRUE(capture->Append(MappingOf(code.address(), Code::kSize, "//anon", Pid())).ok());
    ASSERT_TRUE(capture
                    ->Append(MappingOf(0x10000, 0x1000,
                                       "/tmp/x/jit-" + std::to_string(Pid()) + ".dump", Pid()))
                    .ok());
    ASSERT_TRUE(capture->Append(SampleAt(5, pc, Pid())).ok());
    EXPECT_EQ(capture->counts().reads, 0u) << "its jitdump holds its code";
  }
  {
    const test_support::TempDir tmp;
    auto capture = Capture(tmp.path(), CodeCapture::kDefaultMaxBytes);
    ASSERT_TRUE(capture->Append(MappingOf(code.address(), Code::kSize, "/usr/bin/x", Pid())).ok());
    ASSERT_TRUE(capture->Append(SampleAt(5, pc, Pid())).ok());
    EXPECT_EQ(capture->counts().reads, 0u) << "a file holds its code";
  }
  {
    const test_support::TempDir tmp;
    auto capture = Capture(tmp.path(), 4096);
    ASSERT_TRUE(capture->Append(MappingOf(code.address(), Code::kSize, "//anon", Pid())).ok());
    ASSERT_TRUE(capture->Append(SampleAt(5, pc, Pid())).ok());
    EXPECT_EQ(capture->counts().reads, 0u);
    EXPECT_EQ(capture->counts().over_bound, 1u);
  }
  {
    // Memory the process no longer has (here: never had) cannot be read.
    const test_support::TempDir tmp;
    auto capture = Capture(tmp.path(), CodeCapture::kDefaultMaxBytes);
    const uint64_t gone = 0x10000;  // below the lowest address a process may map
    ASSERT_TRUE(capture->Append(MappingOf(gone, 0x4000, "//anon", Pid())).ok());
    ASSERT_TRUE(capture->Append(SampleAt(5, gone + 0x100, Pid())).ok());
    EXPECT_EQ(capture->counts().reads, 0u);
    EXPECT_EQ(capture->counts().failed, 1u);
    EXPECT_NE(capture->counts().first_failure.find("at 0x10000: "), std::string::npos)
        << capture->counts().first_failure;
  }
}

// A perf map of this process (/tmp/perf-PID.map, where engines write theirs), removed at the end.
class OwnPerfMap {
 public:
  explicit OwnPerfMap(const std::string& text)
      : path_("/tmp/perf-" + std::to_string(Pid()) + ".map") {
    test_support::WriteFile(path_, text);
  }
  ~OwnPerfMap() { ::unlink(path_.c_str()); }

 private:
  std::string path_;
};

std::string Hex(uint64_t value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%llx", static_cast<unsigned long long>(value));
  return text;
}

// Functions a perf map names on one page (V8 puts a function's optimised code beside its
// baseline code) are each read: a sample in one is not held off by a check of the other, made
// within the check interval or by the same sample's stack.
TEST(CodeCaptureTest, EachFunctionOfAPageIsRead) {
  const Code code;
  ASSERT_NE(code.bytes(), nullptr);
  const uint64_t first = code.address() + 0x9000, second = code.address() + 0x9200;
  const uint64_t third = code.address() + 0x9400;
  const OwnPerfMap map(Hex(first) + " 100 first\n" + Hex(second) + " 100 second\n" + Hex(third) +
                       " 100 third\n");
  const test_support::TempDir tmp;
  auto capture = Capture(tmp.path(), CodeCapture::kDefaultMaxBytes);
  ASSERT_NE(capture, nullptr);
  ASSERT_TRUE(capture->Append(MappingOf(code.address(), Code::kSize, "//anon", Pid())).ok());
  ASSERT_TRUE(capture->Append(SampleAt(1000, first + 0x10, Pid())).ok());
  ASSERT_TRUE(capture->Append(SampleAt(1001, second + 0x10, Pid())).ok());
  // In third, returning to first: the lower address of the page does not stand for the page.
  const std::string sample = PerfRecordBuilder(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER)
                                 .Put<uint64_t>(third + 0x10)
                                 .Put<uint32_t>(Pid())
                                 .Put<uint32_t>(Pid())
                                 .Put<uint64_t>(1002)
                                 .Put<uint64_t>(3)
                                 .Put<uint64_t>(static_cast<uint64_t>(PERF_CONTEXT_USER))
                                 .Put<uint64_t>(third + 0x10)
                                 .Put<uint64_t>(first + 0x20)
                                 .Build();
  ASSERT_TRUE(capture->Append(sample).ok());
  ASSERT_TRUE(capture->Flush().ok());
  EXPECT_EQ(capture->counts().perf_map_functions, 3u);
  EXPECT_EQ(capture->counts().reads, 3u);
  EXPECT_EQ(capture->counts().unchanged, 0u);
  std::string keep;
  const formats::ParsedCapturedCode parsed = ReadBack(tmp.path(), keep);
  ASSERT_EQ(parsed.reads.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(parsed.reads[i].address, std::vector<uint64_t>({first, second, third})[i]);
    EXPECT_EQ(parsed.reads[i].bytes.size(), 0x100u);
  }
}

// A perf map's lines as they are written: whole lines only, "Interpreter" (HotSpot's, walked by
// its layout) and malformed lines left out.
TEST(PerfMapTailTest, WholeLinesGiveTheirRanges) {
  uint64_t consumed = 0, malformed = 0;
  const std::string text =
      "7f0000001000 40 Work:Main (string[])\n"
      "not a line\n"
      "7f0000002000 100 Interpreter\n"
      "\n"
      "0x7f0000003000 0x20 stub\r\n"
      "7f0000004000 10 cut sho";
  const std::vector<formats::CodeRange> ranges = ParsePerfMapLines(text, consumed, malformed);
  EXPECT_EQ(ranges, (std::vector<formats::CodeRange>{{0x7f0000001000, 0x7f0000001040},
                                                     {0x7f0000003000, 0x7f0000003020}}));
  EXPECT_EQ(consumed, text.rfind('\n') + 1);
  EXPECT_EQ(malformed, 1u);
  uint64_t none = 0;
  EXPECT_TRUE(ParsePerfMapLines("7f0000004000 10 no end", none, malformed).empty());
  EXPECT_EQ(none, 0u);
}

}  // namespace
}  // namespace jitscope::record
