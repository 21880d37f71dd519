// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// A bounded trace (TraceSink::Options::max_size) as a chain of files: each later file links to
// the one before it and starts with a complete snapshot of the live code, so that it names that
// code alone; the reader drops the repeats when it has the earlier files too.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/collector/trace_sink.h"
#include "jitscope/symbolize/source_set.h"
#include "jitscope/trace/chain.h"
#include "jitscope/trace/reader.h"
#include "support/temp_dir.h"

namespace jitscope::collector {
namespace {

constexpr uint32_t kPid = 4711;
constexpr uint64_t kMaxSize = 256 * 1024;
constexpr uint64_t kForeverish = uint64_t{1} << 40;  // a time after every test's events

// Method i's code lives at its own address, so that a lookup tells every method apart.
uint64_t AddressOf(uint32_t id) { return 0x10000000 + uint64_t{id} * 64; }

EventSink::Result Load(TraceSink& sink, uint32_t id, uint64_t time, uint32_t tid) {
  trace::CodeEvent code;
  code.api_event = trace::kEventMethodLoadFinishedV2;
  code.method_id = id;
  code.address = AddressOf(id);
  code.size = 64;
  const std::string name = "method_" + std::to_string(id);
  code.name = name;
  code.module = "churn";
  return sink.Write({time, tid, code});
}

// Loads methods first..last, keeping the newest `live` loaded: method i is loaded at time 2i and
// the one it pushes out unloaded at 2i + 1.
void Churn(TraceSink& sink, uint32_t first, uint32_t last, uint32_t live, uint32_t tid = 1) {
  for (uint32_t id = first; id <= last; ++id) {
    ASSERT_EQ(Load(sink, id, 2 * uint64_t{id}, tid), EventSink::Result::kOk);
    if (id >= first + live) {
      ASSERT_EQ(sink.Write({2 * uint64_t{id} + 1, tid, trace::UnloadEvent{id - live}}),
                EventSink::Result::kOk);
    }
  }
}

class TraceChainTest : public ::testing::Test {
 protected:
  std::unique_ptr<TraceSink> NewSink(uint64_t max_size, Log log = Log()) {
    auto sink = TraceSink::Create(dir_, {kPid, "/usr/bin/churn", 0, 0},
                                  {.code_bytes = false, .max_size = max_size, .writer = {}},
                                  std::move(log));
    EXPECT_TRUE(sink.ok()) << sink.status().message();
    return std::move(sink).value();
  }

  // The chain's files, oldest first, followed by their links (each file opened once: the stress
  // test below leaves thousands).
  std::vector<std::string> ChainFiles() const {
    std::map<std::string, std::string> next_of;  // a file's name → the name of the one after it
    for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
      auto file = trace::TraceFile::Open(entry.path().string());
      if (!file.ok()) continue;
      const trace::ChainPosition position = trace::ChainPositionOf(file->trace());
      if (position.continues) next_of[position.previous_name] = entry.path().filename().string();
    }
    std::vector<std::string> files;
    for (std::string name = "jit-4711.jsc";;) {
      files.push_back(dir_ + "/" + name);
      auto next = next_of.find(name);
      if (next == next_of.end()) return files;
      name = next->second;
    }
  }

 public:
  // The names `sources` give `addresses` at `time`, "" where none.
  static std::vector<std::string> NamesAt(const std::vector<std::string>& sources,
                                          const std::vector<uint64_t>& addresses, uint64_t time) {
    auto set = symbolize::SourceSet::Open(sources);
    EXPECT_TRUE(set.ok()) << set.status().message();
    if (!set.ok()) return {};
    EXPECT_EQ(set->problems(), std::vector<std::string>{});
    const symbolize::SymbolIndex index = set->BuildIndex(kPid);
    std::vector<std::string> names;
    for (uint64_t address : addresses) {
      symbolize::Resolution resolution;
      names.push_back(index.Resolve(address, time, resolution)
                          ? std::string(resolution.frames.front().name)
                          : std::string());
    }
    return names;
  }
  static std::string NameAt(const std::vector<std::string>& sources, uint64_t address,
                            uint64_t time) {
    return NamesAt(sources, {address}, time).front();
  }

  static trace::TraceFile Open(const std::string& path) {
    auto file = trace::TraceFile::Open(path);
    EXPECT_TRUE(file.ok()) << file.status().message();
    EXPECT_TRUE(file->trace().damage.ok()) << path;
    return std::move(file).value();
  }

 protected:
  test_support::TempDir tmp_;
  const std::string dir_ = tmp_.path();
};

TEST_F(TraceChainTest, EachFileContinuesThePreviousWithASnapshotOfTheLiveCode) {
  auto sink = NewSink(kMaxSize);
  constexpr uint32_t kMethods = 20000, kLive = 50;
  Churn(*sink, 1, kMethods, kLive);
  const std::vector<std::string> files = ChainFiles();
  ASSERT_GE(files.size(), 3u);
  EXPECT_EQ(sink->path(), files.front());
  for (size_t i = 0; i < files.size(); ++i) {
    const trace::TraceFile file = Open(files[i]);
    const trace::ChainPosition position = trace::ChainPositionOf(file.trace());
    if (i == 0) {
      EXPECT_FALSE(position.continues);
      EXPECT_EQ(position.repeats, 0u);
      continue;
    }
    EXPECT_TRUE(position.continues);
    EXPECT_EQ(position.sequence, i);
    EXPECT_EQ(dir_ + "/" + position.previous_name, files[i - 1]);
    EXPECT_TRUE(position.snapshot_complete);
    // The snapshot is the live methods' loads, exactly: kLive of them, or one more when the move
    // came between a load and the unload it pushes out (one thread, so no record is repeated
    // for having raced the move).
    EXPECT_GE(position.repeats, kLive) << files[i];
    EXPECT_LE(position.repeats, kLive + 1) << files[i];
    // Bounded: the move comes at the first record past the bound, so a file is at most one
    // segment (here 256 KiB) larger, its zeros included.
    EXPECT_LE(std::filesystem::file_size(files[i - 1]), 2 * kMaxSize) << files[i - 1];
    EXPECT_GE(std::filesystem::file_size(files[i - 1]), kMaxSize / 2) << files[i - 1];
  }
  // The newest file alone names every live method and nothing unloaded before it started.
  const std::vector<std::string> newest = {files.back()};
  const uint64_t end = 2 * uint64_t{kMethods} + 2;
  std::vector<uint64_t> addresses;
  std::vector<std::string> expected;
  for (uint32_t id = kMethods - kLive + 1; id <= kMethods; ++id) {
    addresses.push_back(AddressOf(id));
    expected.push_back("method_" + std::to_string(id));
  }
  EXPECT_EQ(NamesAt(newest, addresses, end), expected);
  EXPECT_EQ(NameAt(newest, AddressOf(1), 2 + 1), "");
  // The whole chain names every method at its time, each load once.
  for (uint32_t id : {1u, 777u, kMethods / 2, kMethods}) {
    EXPECT_EQ(NameAt(files, AddressOf(id), 2 * uint64_t{id}), "method_" + std::to_string(id));
  }
}

TEST_F(TraceChainTest, ASampleAfterAMoveIsNamedFromTheSnapshotAlone) {
  auto sink = NewSink(kMaxSize);
  // Method 1 is loaded first and never unloaded: after the moves only snapshots carry it.
  ASSERT_EQ(Load(*sink, 1, 1, 1), EventSink::Result::kOk);
  Churn(*sink, 2, 20000, 10);
  const std::vector<std::string> files = ChainFiles();
  ASSERT_GE(files.size(), 3u);
  // Whatever files before it are deleted, the rest name it.
  for (size_t i = 0; i + 1 < files.size(); ++i) {
    ASSERT_TRUE(std::filesystem::remove(files[i]));
    EXPECT_EQ(NameAt({dir_}, AddressOf(1), 1'000'000), "method_1") << "without " << files[i];
  }
  EXPECT_EQ(NameAt({files.back()}, AddressOf(1), 1'000'000), "method_1");
}

TEST_F(TraceChainTest, LiveCodeBiggerThanTheBoundIsSnapshotWholeAndSaidOnce) {
  const std::string log_path = dir_ + "/log";
  auto sink = NewSink(kMaxSize, Log::Open(log_path));
  // 8,000 live methods of ~100 bytes each: about 3 times the bound.
  constexpr uint32_t kLive = 8000;
  for (uint32_t id = 1; id <= kLive; ++id)
    ASSERT_EQ(Load(*sink, id, id, 1), EventSink::Result::kOk);
  Churn(*sink, kLive + 1, 24000, 1000);
  const std::vector<std::string> files = ChainFiles();
  ASSERT_GE(files.size(), 2u);
  for (size_t i = 1; i < files.size(); ++i) {
    EXPECT_TRUE(trace::ChainPositionOf(Open(files[i]).trace()).snapshot_complete) << files[i];
  }
  // Moves came while the first methods were still being loaded too; the last one after.
  EXPECT_GE(trace::ChainPositionOf(Open(files.back()).trace()).repeats, kLive);
  // Each file but the newest grew to twice its snapshot before the next move.
  for (size_t i = 1; i + 1 < files.size(); ++i) {
    EXPECT_GT(std::filesystem::file_size(files[i]), 2 * kMaxSize);
  }
  for (uint32_t id : {1u, kLive / 2, kLive}) {
    EXPECT_EQ(NameAt({files.back()}, AddressOf(id), 100'000), "method_" + std::to_string(id));
  }
  std::string log;
  {
    auto mapped = base::MappedFile::Open(log_path);
    ASSERT_TRUE(mapped.ok());
    log = std::string(mapped->bytes());
  }
  size_t warnings = 0;
  for (size_t at = log.find("alone fill half of JITSCOPE_MAX_SIZE"); at != std::string::npos;
       at = log.find("alone fill half of JITSCOPE_MAX_SIZE", at + 1)) {
    ++warnings;
  }
  EXPECT_EQ(warnings, 1u) << log;
}

// Thread t (of loaded.size()) loads methods t * stride + 1, t * stride + 2, ..., keeping its
// newest `live` loaded, counting them in loaded[t]: `stride` of them, or from the (live + 1)-th
// on, as long as go_on() says so.
void LoadFromThreads(TraceSink& sink, uint32_t stride, uint32_t live, std::vector<uint32_t>& loaded,
                     std::vector<std::thread>& started, const std::function<bool()>& go_on) {
  for (uint32_t t = 0; t < loaded.size(); ++t) {
    started.emplace_back([&sink, &loaded, t, stride, live, go_on] {
      for (uint32_t i = 1; i <= stride && (i <= live || go_on()); ++i) {
        const uint32_t id = t * stride + i;
        ASSERT_EQ(Load(sink, id, 2 * uint64_t{id}, 100 + t), EventSink::Result::kOk);
        if (i > live) {
          ASSERT_EQ(sink.Write({2 * uint64_t{id} + 1, 100 + t, trace::UnloadEvent{id - live}}),
                    EventSink::Result::kOk);
        }
        loaded[t] = i;
      }
    });
  }
}

// What LoadFromThreads left, thread t having loaded loaded[t] methods, read back: the whole chain
// has each load exactly once, and the newest file alone names every method still loaded.
void ExpectEveryLoadOnceAndTheLiveNamed(const std::vector<std::string>& files, uint32_t stride,
                                        const std::vector<uint32_t>& loaded, uint32_t live) {
  std::vector<int> loads(loaded.size() * stride + 1, 0);
  for (const std::string& file : files) {
    const trace::TraceFile opened = TraceChainTest::Open(file);
    trace::ParsedTrace parsed = opened.trace();
    if (file != files.front()) trace::DropRepeats(parsed);
    for (const trace::Record& record : parsed.records) {
      if (const auto* code = std::get_if<trace::CodeEvent>(&record.event)) ++loads[code->method_id];
    }
  }
  std::vector<uint64_t> addresses;
  std::vector<std::string> expected;
  for (uint32_t t = 0; t < loaded.size(); ++t) {
    for (uint32_t i = 1; i <= loaded[t]; ++i) EXPECT_EQ(loads[t * stride + i], 1) << t * stride + i;
    for (uint32_t i = loaded[t] - live + 1; i <= loaded[t]; ++i) {
      addresses.push_back(AddressOf(t * stride + i));
      expected.push_back("method_" + std::to_string(t * stride + i));
    }
  }
  EXPECT_EQ(TraceChainTest::NamesAt({files.back()}, addresses, kForeverish), expected);
}

// Threads keep loading and unloading while the sink moves from file to file.
TEST_F(TraceChainTest, ThreadsLoadingAcrossMovesLoseNothing) {
  auto sink = NewSink(kMaxSize);
  constexpr uint32_t kThreads = 4, kPerThread = 10000, kLive = 20;
  std::vector<uint32_t> loaded(kThreads, 0);
  std::vector<std::thread> threads;
  LoadFromThreads(*sink, kPerThread, kLive, loaded, threads, [] { return true; });
  for (std::thread& thread : threads) thread.join();
  ASSERT_EQ(loaded, std::vector<uint32_t>(kThreads, kPerThread));
  // Usually many files; two when the thread that moved was descheduled while the others wrote
  // the rest (the next move comes after the next file has grown by its snapshot).
  const std::vector<std::string> files = ChainFiles();
  ASSERT_GE(files.size(), 2u);
  ExpectEveryLoadOnceAndTheLiveNamed(files, kPerThread, loaded, kLive);
}

// 2,000 moves; 100 under ASan+UBSan and 50 under TSan, which slow every event several and many
// times (500 moves took 23 s under ASan+UBSan, 7 minutes under TSan): a sanitizer looks for memory
// errors and races, which need the moves to overlap appends, not to be many.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define JITSCOPE_TSAN 1
#endif
#endif
#ifdef JITSCOPE_TSAN
constexpr uint32_t kStressMoves = 50;
#elif defined(JITSCOPE_SANITIZED_BUILD)
constexpr uint32_t kStressMoves = 100;
#else
constexpr uint32_t kStressMoves = 2000;
#endif

// The stress test's descheduler (TraceSink::Options::pause): at one in 64 of the points where a
// descheduled thread lets the others move the trace on under it, the thread sleeps 0-1 ms, long
// enough for several moves. Counts the moves started and finished, and the pauses.
std::atomic<uint64_t> stress_moves{0};
std::atomic<uint64_t> stress_moved{0};
std::atomic<uint64_t> stress_pauses{0};
void PauseAtRandom(TraceSink::Options::PausePoint point) {
  if (point == TraceSink::Options::PausePoint::kMoving) stress_moves.fetch_add(1);
  thread_local std::mt19937_64 random(std::hash<std::thread::id>()(std::this_thread::get_id()));
  if (random() % 64 == 0) {
    stress_pauses.fetch_add(1);
    std::this_thread::sleep_for(std::chrono::microseconds(random() % 1000));
  }
  if (point == TraceSink::Options::PausePoint::kMoved) stress_moved.fetch_add(1);
}

// Threads descheduled at random where it matters, and a small bound, so that the sink moves
// thousands of times: every interleaving of a thread's append with a move, and with the
// retirement of the file it appended to two moves later, comes up many times.
TEST_F(TraceChainTest, ThreadsDescheduledAtRandomAcrossThousandsOfMovesLoseNothing) {
  // 16 KiB segments in chunks of 4 KiB, and a bound of 32 KiB: a move every few hundred records.
  const TraceSink::Options options{.code_bytes = false,
                                   .max_size = 32 * 1024,
                                   .writer = {.chunk_size = trace::kGranule,
                                              .segment_size = 4 * trace::kGranule,
                                              .first_chunk_size = trace::kGranule,
                                              .first_segment_size = 4 * trace::kGranule},
                                   .pause = &PauseAtRandom};
  auto created =
      TraceSink::Create(dir_, {kPid, "/usr/bin/churn", 0, 0}, options, Log::Open(dir_ + "/log"));
  ASSERT_TRUE(created.ok()) << created.status().message();
  stress_moves = 0;
  stress_moved = 0;
  // Each thread loads until the sink has moved kStressMoves times.
  constexpr uint32_t kThreads = 8, kStride = 1'000'000, kLive = 20, kMoves = kStressMoves;
  std::vector<uint32_t> loaded(kThreads, 0);
  std::vector<std::thread> threads;
  // While a move runs, a thread loads at most 100 methods, then waits for it to end: each move
  // reads the whole file before it back, and threads that outran the mover (in sanitized builds
  // they do) would make each file bigger than the last.
  LoadFromThreads(**created, kStride, kLive, loaded, threads, [] {
    thread_local uint64_t moves_seen = 0, since = 0;
    const uint64_t moves = stress_moves.load();
    since = moves == moves_seen ? since + 1 : 0;
    moves_seen = moves;
    while (since > 100 && stress_moved.load() < moves) {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    return moves < kMoves;
  });
  for (std::thread& thread : threads) thread.join();
  const std::vector<std::string> files = ChainFiles();
  ASSERT_GE(files.size(), kMoves + 1) << "the loads ran out before the moves";
  std::printf("%zu files, %llu pauses, %u loads\n", files.size(),
              static_cast<unsigned long long>(stress_pauses.load()),
              std::accumulate(loaded.begin(), loaded.end(), 0u));
  ExpectEveryLoadOnceAndTheLiveNamed(files, kStride, loaded, kLive);
}

TEST_F(TraceChainTest, UnboundedTracesStayOneFile) {
  auto sink = NewSink(0);
  Churn(*sink, 1, 20000, 50);
  EXPECT_EQ(ChainFiles(), std::vector<std::string>{dir_ + "/jit-4711.jsc"});
  EXPECT_GT(std::filesystem::file_size(dir_ + "/jit-4711.jsc"), 2 * kMaxSize);
}

}  // namespace
}  // namespace jitscope::collector
