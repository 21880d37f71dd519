// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Hostile events: what a JIT engine can pass that no well-behaved one would. Each case
// is reported through the real collector (trace + jitdump sinks into a scratch directory), read
// back from the trace with the reader, and resolved through the same SourceSet `jitscope resolve`
// uses; each has one defined outcome, listed in docs/reliability.md.
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

#include "index_test_util.h"
#include "jitprofiling.h"
#include "jitscope/collector/collector.h"
#include "jitscope/symbolize/source_set.h"
#include "jitscope/trace/reader.h"
#include "support/read_back.h"
#include "support/temp_dir.h"

namespace jitscope {
namespace {

using symbolize::testing::Describe;
using trace::RejectReason;

alignas(64) char code[4096];
uint64_t Code(size_t offset) { return reinterpret_cast<uintptr_t>(code) + offset; }

// One collector writing into its own directory, as in a process of its own.
class Session {
 public:
  explicit Session(uint32_t formats = collector::kFormatTrace | collector::kFormatJitdump) {
    collector::Config config;
    config.output_dir = dir_.path();
    config.formats = formats;
    auto created = collector::Collector::Create(config, collector::Log::Open(dir_.path() + "/log"),
                                                collector::SystemEnvironment());
    EXPECT_TRUE(created.ok()) << created.status().message();
    collector_ = std::move(created).value();
  }

  int Load(unsigned id, const char* name, size_t offset, unsigned size,
           std::vector<LineNumberInfo> lines = {}, const char* file = nullptr) {
    iJIT_Method_Load m{};
    m.method_id = id;
    m.method_name = const_cast<char*>(name);
    m.method_load_address = code + offset;
    m.method_size = size;
    m.line_number_size = static_cast<unsigned>(lines.size());
    m.line_number_table = lines.empty() ? nullptr : lines.data();
    m.source_file_name = const_cast<char*>(file);
    return collector_->Notify(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &m);
  }

  int Inline(unsigned id, unsigned parent, const char* name, size_t offset, unsigned size) {
    iJIT_Method_Inline_Load m{};
    m.method_id = id;
    m.parent_method_id = parent;
    m.method_name = const_cast<char*>(name);
    m.method_load_address = code + offset;
    m.method_size = size;
    return collector_->Notify(iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED, &m);
  }

  uint64_t rejected(RejectReason reason) const { return collector_->rejected(reason); }

  // The refused events as a report counts them, from the files alone.
  std::map<RejectReason, uint64_t> RejectedInFiles() {
    auto sources = symbolize::SourceSet::Open({dir_.path()});
    EXPECT_TRUE(sources.ok()) << sources.status().message();
    return sources.ok() ? sources->RejectedEvents() : std::map<RejectReason, uint64_t>{};
  }

  // The trace's records as `jitscope dump` would list their kinds, e.g. "code code rejected".
  // The trace's records of reported events (the code bytes written beside them left out).
  std::vector<trace::Record> Records() {
    auto file = test_support::OpenUndamagedTrace(TracePath());
    if (!file) return {};
    records_file_ = std::make_unique<trace::TraceFile>(std::move(*file));
    std::vector<trace::Record> events;
    for (const trace::Record& record : records_file_->trace().records) {
      if (!std::holds_alternative<trace::CodeBytesEvent>(record.event)) events.push_back(record);
    }
    return events;
  }

  // What `jitscope resolve DIR -- ADDRESS` names, innermost frame first (see Describe).
  std::string Resolve(uint64_t address) {
    auto sources = symbolize::SourceSet::Open({dir_.path()});
    EXPECT_TRUE(sources.ok()) << sources.status().message();
    return Describe(sources->BuildIndex(std::nullopt), address, symbolize::kLatest, true);
  }

  // The jitdump written alongside stays readable and holds `loads` code loads.
  void ExpectJitdumpLoads(size_t loads) {
    EXPECT_EQ(test_support::JitdumpCodeLoads(dir_.path() + "/jit-" + std::to_string(::getpid()) +
                                             ".dump"),
              loads);
  }

  std::string TracePath() const {
    return dir_.path() + "/jit-" + std::to_string(::getpid()) + ".jsc";
  }

 private:
  test_support::TempDir dir_;
  std::unique_ptr<collector::Collector> collector_;
  std::unique_ptr<trace::TraceFile> records_file_;
};

// What the collector refused is counted, by reason, from the trace alone (for the report).
TEST(HostileEvents, RefusedEventsAreCountedFromTheTraceByReason) {
  Session s;
  EXPECT_EQ(s.Load(1000, nullptr, 0, 16), 0);
  EXPECT_EQ(s.Load(1001, nullptr, 16, 16), 0);
  EXPECT_EQ(s.Load(1002, "empty", 32, 0), 0);
  EXPECT_EQ(s.Load(1003, "fine", 48, 16), 1);
  const std::map<RejectReason, uint64_t> expected = {{RejectReason::kNullName, 2},
                                                     {RejectReason::kZeroSize, 1}};
  EXPECT_EQ(s.RejectedInFiles(), expected);
}

// Names of 1 MiB are kept whole, in the trace and in what resolves.
TEST(HostileEvents, AOneMebibyteNameIsKeptWhole) {
  Session s;
  const std::string name(1 << 20, 'n');
  EXPECT_EQ(s.Load(1000, name.c_str(), 0, 16), 1);
  const auto records = s.Records();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(std::get<trace::CodeEvent>(records[0].event).name, name);
  EXPECT_EQ(s.Resolve(Code(4)), name + " #1000");
  s.ExpectJitdumpLoads(1);
}

// Ten million line entries: one record of 80 MB, every entry kept, and lookups use them.
TEST(HostileEvents, TenMillionLineEntriesAreKept) {
  Session s(collector::kFormatTrace);
  std::vector<LineNumberInfo> lines(10'000'000);
  for (unsigned i = 0; i < lines.size(); ++i) lines[i] = {i + 1, i + 1};
  EXPECT_EQ(s.Load(1000, "many", 0, 64, lines), 1);
  const auto records = s.Records();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(std::get<trace::CodeEvent>(records[0].event).lines.size(), 10'000'000u);
  // Entry i ends the range [i-1, i), which has line i (end-offset semantics).
  EXPECT_EQ(s.Resolve(Code(4)), "many:5 #1000");
  EXPECT_EQ(s.Resolve(Code(63)), "many:64 #1000");
}

// Offsets past the method's size: the range an entry ends is cut at the method's end, and
// entries that start past it are dropped. The trace keeps the table as reported.
TEST(HostileEvents, LineOffsetsBeyondTheMethodAreCutAtItsEnd) {
  Session s;
  EXPECT_EQ(s.Load(1000, "beyond", 0, 16, {{4, 10}, {40, 11}, {80, 12}}, "b.js"), 1);
  EXPECT_EQ(std::get<trace::CodeEvent>(s.Records()[0].event).lines.size(), 3u);
  EXPECT_EQ(s.Resolve(Code(2)), "beyond:10 @b.js #1000");
  EXPECT_EQ(s.Resolve(Code(15)), "beyond:11 @b.js #1000");
  EXPECT_EQ(s.Resolve(Code(16)), "-");
  s.ExpectJitdumpLoads(1);
}

// Unsorted offsets: the table is read in offset order (each entry still ends the range that the
// next smaller offset starts).
TEST(HostileEvents, UnsortedOffsetsAreReadInOffsetOrder) {
  Session s;
  EXPECT_EQ(s.Load(1000, "unsorted", 0, 32, {{16, 20}, {4, 21}, {32, 22}}, "u.js"), 1);
  EXPECT_EQ(s.Resolve(Code(2)), "unsorted:21 @u.js #1000");
  EXPECT_EQ(s.Resolve(Code(8)), "unsorted:20 @u.js #1000");
  EXPECT_EQ(s.Resolve(Code(20)), "unsorted:22 @u.js #1000");
  s.ExpectJitdumpLoads(1);
}

// An inline region outside its parent is recorded as reported (the collector cannot know where
// the parent's code will be when the tree arrives out of order) and never resolves: inline
// frames exist only inside their root's code.
TEST(HostileEvents, AnInlineRegionOutsideItsParentNeverResolves) {
  Session s;
  EXPECT_EQ(s.Load(1000, "parent", 0, 32), 1);
  EXPECT_EQ(s.Inline(2000, 1000, "outside", 64, 16), 1);
  EXPECT_EQ(s.Records().size(), 2u);
  EXPECT_EQ(s.Resolve(Code(2)), "parent #1000");
  EXPECT_EQ(s.Resolve(Code(70)), "-");
}

// A cycle in parent ids (a inlined into b inlined into a) is recorded and ignored: the lookup
// terminates and names the enclosing top-level method.
TEST(HostileEvents, ACycleOfInlineParentsIsIgnored) {
  Session s;
  EXPECT_EQ(s.Load(1000, "root", 0, 64), 1);
  EXPECT_EQ(s.Inline(2000, 2001, "a", 0, 32), 1);
  EXPECT_EQ(s.Inline(2001, 2000, "b", 8, 8), 1);
  EXPECT_EQ(s.Inline(2002, 2002, "self", 40, 8), 1);
  EXPECT_EQ(s.Resolve(Code(10)), "root #1000");
  EXPECT_EQ(s.Resolve(Code(42)), "root #1000");
}

// One id for two unrelated methods is, by the API's rules, one split method: the later region
// takes the first notification's name and keeps its own, different source file (with a warning
// from the index).
TEST(HostileEvents, AnIdReusedForAnotherMethodIsOneSplitMethod) {
  Session s;
  EXPECT_EQ(s.Load(1000, "alpha", 0, 16, {}, "a.js"), 1);
  EXPECT_EQ(s.Load(1000, "beta", 256, 16, {}, "b.js"), 1);
  EXPECT_EQ(s.Resolve(Code(0)), "alpha @a.js #1000");
  EXPECT_EQ(s.Resolve(Code(256)), "alpha @b.js #1000");
  s.ExpectJitdumpLoads(2);
}

// Names are bytes: invalid UTF-8 is recorded and resolved exactly as reported (the writers of
// JSON, SVG and pprof replace what is not UTF-8; tests/cli and tests/report check them).
TEST(HostileEvents, InvalidUtf8IsKeptAsReported) {
  Session s;
  const std::string name = "bad\xff\xfe name\xc3";
  EXPECT_EQ(s.Load(1000, name.c_str(), 0, 16), 1);
  EXPECT_EQ(std::get<trace::CodeEvent>(s.Records()[0].event).name, name);
  EXPECT_EQ(s.Resolve(Code(0)), name + " #1000");
  s.ExpectJitdumpLoads(1);
}

// Not hostile, but found here: the directory holds the trace and the jitdump the collector wrote
// from the same events; the trace alone is read, so method ids and inline frames survive (the
// jitdump's later re-load of the parent, which carries the inline's lines, once overrode them).
TEST(HostileEvents, TheTraceSupersedesTheJitdumpOfItsProcess) {
  Session s;
  EXPECT_EQ(s.Load(1000, "parent", 0, 32), 1);
  EXPECT_EQ(s.Inline(2000, 1000, "inner", 8, 8), 1);
  s.ExpectJitdumpLoads(2);
  EXPECT_EQ(s.Resolve(Code(10)), "inner (i) #2000 < parent #1000");
}

}  // namespace
}  // namespace jitscope
