// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The memory `jitscope resolve` takes beyond the trace it maps, per method, at the scale of a
// large JIT: a trace of 1,000,000 methods shaped as the example JIT writes them (`jitvm
// --generate=1000000`: a METHOD_LOAD_FINISHED_V2 with a name, a source file, a module and 5
// line entries, then the 249 bytes of its code), read into a symbol index two ways in the same
// run:
//  - BM_IndexFromHeldRecords: the way before, and what ParseTrace still does: every record of
//    the trace decoded into a vector (~185 bytes a record), then imported.
//  - BM_IndexFromStreamedTrace: what `resolve` and `report` do now (SourceSet): the records are
//    read again, in time order, for each walk over them, and never held (trace/record_stream.h).
// Each iteration runs in a child process of its own, which resets its peak resident memory
// (proc(5), clear_refs) just before it reads the trace and reports the peak after the index is
// built: `bytes_per_method` is that peak less the memory it started with and less the trace's
// size (the mapped trace, read whole, is resident), divided by the methods. docs/performance.md
// gives the command and the figures.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "jitscope/base/files.h"
#include "jitscope/symbolize/importers.h"
#include "jitscope/symbolize/index_builder.h"
#include "jitscope/symbolize/source_set.h"
#include "jitscope/trace/reader.h"
#include "jitscope/trace/writer.h"

namespace jitscope::symbolize {
namespace {

constexpr uint32_t kMethods = 1000000;
constexpr uint32_t kCodeSize = 249;

// The trace, written once into a directory of its own (removed at exit).
class TraceFile {
 public:
  TraceFile() {
    char pattern[] = "/tmp/trace_memory_bench.XXXXXX";
    if (::mkdtemp(pattern) == nullptr) std::abort();
    directory_ = pattern;
    auto fd = base::CreateExclusive(directory_, "jit-1.jsc");
    if (!fd.ok()) std::abort();
    auto writer = trace::TraceWriter::Create(std::move(fd).value(), {1, "/usr/bin/jitvm", 1, 1});
    if (!writer.ok()) std::abort();
    const std::vector<uint8_t> code(kCodeSize, 0x90);
    for (uint32_t i = 0; i < kMethods; ++i) {
      const std::string name = "f" + std::to_string(i);
      const trace::LineEntry lines[] = {
          {54, i + 1}, {101, i + 2}, {143, i + 3}, {148, i + 4}, {kCodeSize, i + 1}};
      trace::CodeEvent load;
      load.api_event = trace::kEventMethodLoadFinishedV2;
      load.method_id = 1000 + i;
      load.address = 0x7f0000000000 + uint64_t{i} * 256;
      load.size = kCodeSize;
      load.name = name;
      load.source_file = "/tmp/jitvm/many.jv";
      load.module = "jitvm-baseline";
      load.lines = lines;
      const uint64_t time = 1000 + uint64_t{i} * 10;
      if ((*writer)->Append(load, time, 1) != trace::TraceWriter::AppendResult::kOk ||
          (*writer)->Append(trace::CodeBytesEvent{load.address, kCodeSize, code}, time, 1) !=
              trace::TraceWriter::AppendResult::kOk) {
        std::abort();
      }
    }
    (*writer)->Trim();
  }
  ~TraceFile() { std::system(("rm -rf " + directory_).c_str()); }

  std::string path() const { return directory_ + "/jit-1.jsc"; }
  uint64_t size() const {
    auto mapped = base::MappedFile::Open(path());
    return mapped.ok() ? mapped->size() : 0;
  }

 private:
  std::string directory_;
};

const TraceFile& Trace() {
  static const TraceFile trace;
  return trace;
}

// "VmRSS" or "VmHWM" of this process, in bytes.
uint64_t Memory(const char* field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field, 0) == 0) return std::strtoull(line.c_str() + 6, nullptr, 10) * 1024;
  }
  return 0;
}

// Runs `build` in a child process; returns the peak memory it took beyond what the child started
// with, or -1 when it failed.
double PeakOf(const std::function<size_t()>& build) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return -1;
  const pid_t child = ::fork();
  if (child == 0) {
    {
      std::ofstream clear_refs("/proc/self/clear_refs");
      clear_refs << "5";
    }
    const uint64_t start = Memory("VmRSS");
    const size_t regions = build();
    const double peak = static_cast<double>(Memory("VmHWM") - start);
    const double result = regions == kMethods ? peak : -1;
    if (::write(pipe_fds[1], &result, sizeof(result)) != sizeof(result)) ::_exit(1);
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  double result = -1;
  if (::read(pipe_fds[0], &result, sizeof(result)) != sizeof(result)) result = -1;
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  return result;
}

// How many of the index's methods resolve at their own address: every one, or the run failed.
size_t Resolved(const SymbolIndex& index) {
  size_t resolved = 0;
  Resolution resolution;
  for (uint32_t i = 0; i < kMethods; ++i) {
    if (index.Resolve(0x7f0000000000 + uint64_t{i} * 256 + 1, kLatest, resolution)) ++resolved;
  }
  return resolved;
}

void Report(benchmark::State& state, double peak) {
  if (peak < 0) {
    state.SkipWithError("the index did not name every method");
    return;
  }
  const double trace_size = static_cast<double>(Trace().size());
  state.counters["trace_MB"] = trace_size / 1e6;
  state.counters["peak_beyond_trace_MB"] = (peak - trace_size) / 1e6;
  state.counters["bytes_per_method"] = (peak - trace_size) / kMethods;
}

void BM_IndexFromHeldRecords(benchmark::State& state) {
  const std::string path = Trace().path();
  double peak = -1;
  for (auto _ : state) {
    peak = PeakOf([&path] {
      auto mapped = base::MappedFile::Open(path);
      if (!mapped.ok()) return size_t{0};
      auto parsed = trace::ParseTrace({mapped->data(), mapped->size()});
      if (!parsed.ok()) return size_t{0};
      IndexBuilder builder;
      ImportTrace(*parsed, builder);
      return Resolved(std::move(builder).Build());
    });
  }
  Report(state, peak);
}
BENCHMARK(BM_IndexFromHeldRecords)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_IndexFromStreamedTrace(benchmark::State& state) {
  const std::string path = Trace().path();
  double peak = -1;
  for (auto _ : state) {
    peak = PeakOf([&path] {
      auto sources = SourceSet::Open({path});
      if (!sources.ok()) return size_t{0};
      return Resolved(sources->BuildIndex(std::nullopt));
    });
  }
  Report(state, peak);
}
BENCHMARK(BM_IndexFromStreamedTrace)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
}  // namespace jitscope::symbolize

BENCHMARK_MAIN();
