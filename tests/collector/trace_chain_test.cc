// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// A bounded trace (TraceSink::Options::max_size) as a chain of files: each later file links to
// the one before it and starts with a complete snapshot of the live code, so that it names that
// code alone; the reader drops the repeats when it has the earlier files too.
#include <atomic>
#include <deque>
#include <filesystem>
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

  // The chain's files, oldest first, followed by their links.
  std::vector<std::string> ChainFiles() const {
    std::vector<std::string> files;
    for (std::string name = "jit-4711.jsc";;) {
      files.push_back(dir_ + "/" + name);
      std::string next;
      for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
        auto file = trace::TraceFile::Open(entry.path().string());
        if (!file.ok()) continue;
        const trace::ChainPosition position = trace::ChainPositionOf(file->trace());
        if (position.continues && position.previous_name == name) {
          next = entry.path().filename().string();
        }
      }
      if (next.empty()) return files;
      name = next;
    }
  }

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

// Threads keep loading and unloading while the sink moves from file to file: the newest file,
// read alone, names every method still loaded, and the whole chain has each load exactly once.
TEST_F(TraceChainTest, ThreadsLoadingAcrossMovesLoseNothing) {
  auto sink = NewSink(kMaxSize);
  constexpr uint32_t kThreads = 4, kPerThread = 10000, kLive = 20;
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&sink, t] {
      for (uint32_t i = 1; i <= kPerThread; ++i) {
        const uint32_t id = t * kPerThread + i;
        ASSERT_EQ(Load(*sink, id, 2 * uint64_t{id}, 100 + t), EventSink::Result::kOk);
        if (i > kLive) {
          ASSERT_EQ(sink->Write({2 * uint64_t{id} + 1, 100 + t, trace::UnloadEvent{id - kLive}}),
                    EventSink::Result::kOk);
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  // Usually many files; two when the thread that moved was descheduled while the others wrote
  // the rest (the next move comes after the next file has grown by its snapshot).
  const std::vector<std::string> files = ChainFiles();
  ASSERT_GE(files.size(), 2u);

  std::vector<int> loads(kThreads * kPerThread + 1, 0);
  for (const std::string& file : files) {
    const trace::TraceFile opened = Open(file);
    trace::ParsedTrace parsed = opened.trace();
    if (file != files.front()) trace::DropRepeats(parsed);
    for (const trace::Record& record : parsed.records) {
      if (const auto* code = std::get_if<trace::CodeEvent>(&record.event)) ++loads[code->method_id];
    }
  }
  for (uint32_t id = 1; id <= kThreads * kPerThread; ++id) EXPECT_EQ(loads[id], 1) << id;

  std::vector<uint64_t> addresses;
  std::vector<std::string> expected;
  for (uint32_t t = 0; t < kThreads; ++t) {
    for (uint32_t id = (t + 1) * kPerThread - kLive + 1; id <= (t + 1) * kPerThread; ++id) {
      addresses.push_back(AddressOf(id));
      expected.push_back("method_" + std::to_string(id));
    }
  }
  EXPECT_EQ(NamesAt({files.back()}, addresses, kForeverish), expected);
}

TEST_F(TraceChainTest, UnboundedTracesStayOneFile) {
  auto sink = NewSink(0);
  Churn(*sink, 1, 20000, 50);
  EXPECT_EQ(ChainFiles(), std::vector<std::string>{dir_ + "/jit-4711.jsc"});
  EXPECT_GT(std::filesystem::file_size(dir_ + "/jit-4711.jsc"), 2 * kMaxSize);
}

}  // namespace
}  // namespace jitscope::collector
