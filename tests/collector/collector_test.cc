// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/collector/collector.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "../trace/trace_test_util.h"
#include "jitprofiling.h"
#include "jitscope/collector/trace_sink.h"
#include "jitscope/trace/reader.h"
#include "support/files.h"
#include "support/temp_dir.h"

namespace jitscope::collector {
namespace {

using trace::RejectReason;

uint64_t fake_now = 0;
uint64_t FakeNow() { return ++fake_now; }
uint32_t FakeTid() { return 7; }
constexpr Environment kFakeEnvironment{&FakeNow, &FakeTid};

// Keeps a description of every record it is given (the views die with the call).
class RecordingSink : public EventSink {
 public:
  Result Write(const trace::Record& record) override {
    std::lock_guard lock(mutex_);
    lines.push_back(trace::Describe(record));
    return next_result;
  }
  std::mutex mutex_;
  std::vector<std::string> lines;
  Result next_result = Result::kOk;
};

class CollectorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fake_now = 0;
    auto sink = std::make_unique<RecordingSink>();
    sink_ = sink.get();
    std::vector<std::unique_ptr<EventSink>> sinks;
    sinks.push_back(std::move(sink));
    collector_ = Collector::CreateForTesting(std::move(sinks), Log(), kFakeEnvironment);
  }
  int Notify(uint32_t type, const void* payload) { return collector_->Notify(type, payload); }

  RecordingSink* sink_ = nullptr;
  std::unique_ptr<Collector> collector_;
};

// The guide's "Analyzing Split Functions" example (000_*.txt): two regions, one id.
TEST_F(CollectorTest, SeedSplitFunctionExample) {
  const unsigned int method_id = 1000;
  iJIT_Method_Load a = {};
  a.method_id = method_id;
  a.method_name = const_cast<char*>("split");
  a.method_load_address = reinterpret_cast<void*>(0x100);
  a.method_size = 0x20;
  iJIT_Method_Load b = {};
  b.method_id = method_id;
  b.method_name = const_cast<char*>("split");
  b.method_load_address = reinterpret_cast<void*>(0x200);
  b.method_size = 0x30;
  EXPECT_EQ(Notify(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &a), 1);
  EXPECT_EQ(Notify(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &b), 1);
  EXPECT_EQ(sink_->lines,
            (std::vector<std::string>{
                "1 tid=7 code event=13 id=1000 parent=0 addr=256 size=32 class_id=0 arch=0 "
                "name=\"split\" class=null source=null module=null lines=",
                "2 tid=7 code event=13 id=1000 parent=0 addr=512 size=48 class_id=0 arch=0 "
                "name=\"split\" class=null source=null module=null lines="}));
}

// The guide's "Exploring Inline Functions" example: a (1000) contains b (2000) and d (2001);
// b contains c (3000). Nested inline events may arrive in any order.
TEST_F(CollectorTest, SeedNestedInlineExample) {
  iJIT_Method_Load a = {};
  a.method_id = 1000;
  a.method_name = const_cast<char*>("a");
  a.method_load_address = reinterpret_cast<void*>(0x1000);
  a.method_size = 0x100;
  auto inline_load = [](unsigned id, unsigned parent, const char* name, uint64_t address,
                        unsigned size) {
    iJIT_Method_Inline_Load m = {};
    m.method_id = id;
    m.parent_method_id = parent;
    m.method_name = const_cast<char*>(name);
    m.method_load_address = reinterpret_cast<void*>(address);
    m.method_size = size;
    return m;
  };
  const auto b = inline_load(2000, 1000, "b", 0x1010, 0x40);
  const auto c = inline_load(3000, 2000, "c", 0x1020, 0x10);
  const auto d = inline_load(2001, 1000, "d", 0x1060, 0x40);
  EXPECT_EQ(Notify(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &a), 1);
  EXPECT_EQ(Notify(iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED, &c), 1);  // before its parent b
  EXPECT_EQ(Notify(iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED, &b), 1);
  EXPECT_EQ(Notify(iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED, &d), 1);
  ASSERT_EQ(sink_->lines.size(), 4u);
  EXPECT_EQ(sink_->lines[1],
            "2 tid=7 code event=16 id=3000 parent=2000 addr=4128 size=16 class_id=0 arch=0 "
            "name=\"c\" class=null source=null module=null lines=");
  EXPECT_EQ(sink_->lines[2],
            "3 tid=7 code event=16 id=2000 parent=1000 addr=4112 size=64 class_id=0 arch=0 "
            "name=\"b\" class=null source=null module=null lines=");
  EXPECT_EQ(sink_->lines[3],
            "4 tid=7 code event=16 id=2001 parent=1000 addr=4192 size=64 class_id=0 arch=0 "
            "name=\"d\" class=null source=null module=null lines=");

  // A sibling of b and d that overlaps d is refused, counted and recorded as rejected.
  const auto e = inline_load(2002, 1000, "e", 0x1090, 0x10);
  EXPECT_EQ(Notify(iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED, &e), 0);
  EXPECT_EQ(collector_->rejected(RejectReason::kInlineOverlap), 1u);
  EXPECT_EQ(sink_->lines.back(), "5 tid=7 rejected event=16 reason=inline_overlap");
  // The same region under another parent is fine: only siblings may not overlap.
  const auto f = inline_load(3001, 2001, "f", 0x1090, 0x10);
  EXPECT_EQ(Notify(iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED, &f), 1);
  // Reloading the parent invalidates its tree: the old children no longer block new ones.
  EXPECT_EQ(Notify(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &a), 1);
  EXPECT_EQ(Notify(iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED, &e), 1);
}

// The guide's line-table example is recorded as reported (end offsets, unconverted).
TEST_F(CollectorTest, SeedLineTableIsKeptAsReported) {
  LineNumberInfo lines[] = {{1, 2}, {12, 4}, {15, 2}, {18, 1}, {21, 30}};
  iJIT_Method_Load m = {};
  m.method_id = 1;
  m.method_name = const_cast<char*>("f");
  m.method_load_address = reinterpret_cast<void*>(0x10);
  m.method_size = 21;
  m.line_number_size = 5;
  m.line_number_table = lines;
  EXPECT_EQ(Notify(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &m), 1);
  EXPECT_EQ(sink_->lines.back(),
            "1 tid=7 code event=13 id=1 parent=0 addr=16 size=21 class_id=0 arch=0 name=\"f\" "
            "class=null source=null module=null lines=1:2,12:4,15:2,18:1,21:30,");
}

TEST_F(CollectorTest, EveryRejectionIsCountedPerReasonAndRecorded) {
  iJIT_Method_Load m = {};
  m.method_id = 1;
  EXPECT_EQ(Notify(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &m), 0);  // NULL name
  EXPECT_EQ(Notify(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &m), 0);
  EXPECT_EQ(Notify(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, nullptr), 0);
  EXPECT_EQ(Notify(42, &m), 0);
  EXPECT_EQ(collector_->rejected(RejectReason::kNullName), 2u);
  EXPECT_EQ(collector_->rejected(RejectReason::kNullPayload), 1u);
  EXPECT_EQ(collector_->rejected(RejectReason::kUnknownEvent), 1u);
  EXPECT_EQ(collector_->rejected(RejectReason::kZeroSize), 0u);
  EXPECT_EQ(sink_->lines, (std::vector<std::string>{
                              "1 tid=7 rejected event=13 reason=null_name",
                              "2 tid=7 rejected event=13 reason=null_name",
                              "3 tid=7 rejected event=13 reason=null_payload",
                              "4 tid=7 rejected event=42 reason=unknown_event",
                          }));
}

TEST_F(CollectorTest, ShutdownReturnsOneAndLaterEventsAreStillSafe) {
  EXPECT_EQ(Notify(iJVM_EVENT_TYPE_SHUTDOWN, nullptr), 1);
  const unsigned int id = 5;
  EXPECT_EQ(Notify(iJVM_EVENT_TYPE_METHOD_UNLOAD_START, &id), 1);
  EXPECT_EQ(sink_->lines, (std::vector<std::string>{"1 tid=7 shutdown", "2 tid=7 unload id=5"}));
}

TEST_F(CollectorTest, AFailedWriteRefusesTheEventAndIsCounted) {
  sink_->next_result = EventSink::Result::kWriteFailed;
  const unsigned int id = 5;
  EXPECT_EQ(Notify(iJVM_EVENT_TYPE_METHOD_UNLOAD_START, &id), 0);
  EXPECT_EQ(collector_->rejected(RejectReason::kWriteFailed), 1u);
}

// A recycled pid finds jit-<pid>.jsc (or a link planted there): the collector never touches it
// and writes the next free name instead.
TEST(TraceSinkTest, NeverClobbersOrFollowsWhatIsAlreadyThere) {
  const test_support::TempDir tmp;
  const std::string dir = tmp.path();
  ASSERT_TRUE(test_support::WriteFile(dir + "/jit-77.jsc", "precious\n"));
  ASSERT_EQ(::symlink((dir + "/target").c_str(), (dir + "/jit-77.1.jsc").c_str()), 0);
  auto sink = TraceSink::Create(dir, {77, "exe", 0, 0},
                                {.code_bytes = false, .max_size = 0, .writer = {}}, Log());
  ASSERT_TRUE(sink.ok()) << sink.status().message();
  EXPECT_EQ((*sink)->path(), dir + "/jit-77.2.jsc");
  std::ifstream precious(dir + "/jit-77.jsc");
  std::string content;
  std::getline(precious, content);
  EXPECT_EQ(content, "precious");
  EXPECT_NE(::access((dir + "/target").c_str(), F_OK), 0);
}

// The trace keeps the machine code of each region the engine places: top-level loads and code
// updates, never an inline instance (its bytes are its parent's) or an update of data; memory the
// engine got wrong is recorded as a region without bytes instead of faulting.
TEST(TraceSinkTest, KeepsTheCodeBytesOfEveryRegionThatHoldsCode) {
  static const uint8_t kCode[] = {0x55, 0x48, 0x89, 0xe5, 0x5d, 0xc3};
  const test_support::TempDir tmp;
  const std::string dir = tmp.path();
  auto sink = TraceSink::Create(dir, {78, "exe", 0, 0},
                                {.code_bytes = true, .max_size = 0, .writer = {}}, Log());
  ASSERT_TRUE(sink.ok()) << sink.status().message();
  const std::string path = (*sink)->path();
  std::vector<std::unique_ptr<EventSink>> sinks;
  sinks.push_back(std::move(sink).value());
  fake_now = 0;
  auto collector = Collector::CreateForTesting(std::move(sinks), Log(), kFakeEnvironment);

  iJIT_Method_Load load = {};
  load.method_id = 1;
  load.method_name = const_cast<char*>("f");
  load.method_load_address = const_cast<uint8_t*>(kCode);
  load.method_size = sizeof(kCode);
  ASSERT_EQ(collector->Notify(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &load), 1);
  iJIT_Method_Inline_Load inlined = {};
  inlined.method_id = 2;
  inlined.parent_method_id = 1;
  inlined.method_name = const_cast<char*>("g");
  inlined.method_load_address = const_cast<uint8_t*>(kCode + 1);
  inlined.method_size = 2;
  ASSERT_EQ(collector->Notify(iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED, &inlined), 1);
  iJIT_Method_Update data = {};
  data.load_address = const_cast<uint8_t*>(kCode);
  data.size = 2;
  data.type = iJIT_CT_DATA;
  data.data_format = const_cast<char*>("%d");
  ASSERT_EQ(collector->Notify(iJVM_EVENT_TYPE_METHOD_UPDATE_V2, &data), 1);
  load.method_id = 3;
  load.method_load_address = reinterpret_cast<void*>(uintptr_t{0x10});  // nothing mapped there
  load.method_size = 4;
  ASSERT_EQ(collector->Notify(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &load), 1);

  auto file = trace::TraceFile::Open(path);
  ASSERT_TRUE(file.ok());
  std::vector<std::string> lines;
  for (const auto& record : file->trace().records) {
    if (const auto* bytes = std::get_if<trace::CodeBytesEvent>(&record.event)) {
      lines.push_back(trace::Describe(record));
      EXPECT_EQ(bytes->address, bytes->bytes.empty() ? 0x10 : reinterpret_cast<uintptr_t>(kCode));
    }
  }
  EXPECT_EQ(lines,
            (std::vector<std::string>{
                "1 tid=7 code_bytes addr=" + std::to_string(reinterpret_cast<uintptr_t>(kCode)) +
                    " size=6 bytes=85,72,137,229,93,195,",
                "4 tid=7 code_bytes addr=16 size=4 bytes=",
            }));
}

// This process's anonymous resident memory (heap, stacks), in KiB: what the collector costs the
// host beyond the trace file's own pages, which the kernel can write back and drop.
long RssAnonKib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.starts_with("RssAnon:")) return std::stol(line.substr(8));
  }
  ADD_FAILURE() << "no RssAnon in /proc/self/status";
  return 0;
}

// Many threads through the real trace sink: every accepted event is in the file exactly once.
// `rss_growth_kib` gets the growth of anonymous resident memory over the run.
void RunThreads(int thread_count, int per_thread, long* rss_growth_kib = nullptr) {
  const long rss_before = RssAnonKib();
  const test_support::TempDir tmp;
  const std::string dir = tmp.path();
  // The methods' addresses are made up: no code to keep.
  auto sink = TraceSink::Create(dir, {1, "test", 0, 0},
                                {.code_bytes = false, .max_size = 0, .writer = {}}, Log());
  ASSERT_TRUE(sink.ok()) << sink.status().message();
  const std::string path = (*sink)->path();
  std::vector<std::unique_ptr<EventSink>> sinks;
  sinks.push_back(std::move(sink).value());
  auto collector = Collector::CreateForTesting(std::move(sinks), Log(), SystemEnvironment());

  std::vector<std::thread> threads;
  for (int t = 0; t < thread_count; ++t) {
    threads.emplace_back([&, t] {
      iJIT_Method_Load m = {};
      m.method_name = const_cast<char*>("m");
      m.method_size = 1;
      for (int i = 0; i < per_thread; ++i) {
        m.method_id = static_cast<unsigned>(t * per_thread + i + 1);
        m.method_load_address = reinterpret_cast<void*>(uintptr_t{m.method_id});
        if (collector->Notify(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &m) != 1) {
          ADD_FAILURE() << "event refused";
          return;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  if (rss_growth_kib != nullptr) *rss_growth_kib = RssAnonKib() - rss_before;

  auto file = trace::TraceFile::Open(path);
  ASSERT_TRUE(file.ok());
  EXPECT_TRUE(file->trace().damage.ok());
  std::vector<bool> seen(static_cast<size_t>(thread_count) * per_thread + 1, false);
  size_t duplicates = 0;
  for (const auto& record : file->trace().records) {
    const uint32_t id = std::get<trace::CodeEvent>(record.event).method_id;
    ASSERT_LT(id, seen.size());
    if (seen[id]) ++duplicates;
    seen[id] = true;
  }
  EXPECT_EQ(file->trace().records.size(), seen.size() - 1);
  EXPECT_EQ(duplicates, 0u);
}

TEST(CollectorThreadsTest, TwoThreads200kEventsEach) { RunThreads(2, 200000); }

// 1.6 million events from 8 threads: the host's own memory stays bounded whatever the number of
// events. The collector keeps no per-event state for the trace: each thread owns one 64 KiB chunk
// of the file mapping at a time, and the events go to the file's pages, not the heap.
TEST(CollectorThreadsTest, EightThreads200kEventsEachInBoundedHostMemory) {
  long growth_kib = 0;
  RunThreads(8, 200000, &growth_kib);
  std::printf("anonymous memory growth: %ld KiB\n", growth_kib);
#ifdef JITSCOPE_SANITIZED_BUILD
  // Sanitizers keep shadow memory for every byte the writer touches (TSan: for the file mapping
  // too) and quarantine freed blocks, so the figure is theirs; the plain build checks the bound.
#else
  EXPECT_LT(growth_kib, 4096) << "KiB of heap and stacks for 1.6 M events";
#endif
}

}  // namespace
}  // namespace jitscope::collector
