// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// What one METHOD_LOAD_FINISHED costs a JIT engine with jitscope's collector recording, for a
// method with a 40-character name and 16 line entries, measured through the real path (our stub
// → dlopen()ed libjitscope-collector.so → trace), next to the two alternatives that write the
// same bytes:
//   - the page-cache floor: the records built in memory and written with 64 KiB write() calls
//     (what a buffered writer costs, but a buffered writer loses its buffer on a crash);
//   - one write() per record: crash-safe the way wasmtime's and oneDNN's jitdump writers are.
// Output goes to $JITSCOPE_BENCH_DIR (default /tmp), one fresh directory per run.
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "jitprofiling.h"
#include "jitscope/collector/collector.h"
#include "jitscope/trace/event.h"
#include "jitscope/trace/record_codec.h"

namespace {

std::string bench_dir;

LineNumberInfo lines[16];
char name[] = "org.example.Benchmark::hotMethodNumber_42";  // 40 characters
unsigned char code[4096];

iJIT_Method_Load MakeLoad(unsigned id) {
  iJIT_Method_Load load{};
  load.method_id = id;
  load.method_name = name;
  load.method_load_address = code + (id % 1024);
  load.method_size = 256;
  load.line_number_size = 16;
  load.line_number_table = lines;
  load.source_file_name = nullptr;
  return load;
}

// The bytes of one record as the collector writes it, for the two write() baselines.
std::vector<uint8_t> RecordBytes() {
  iJIT_Method_Load load = MakeLoad(1000);
  jitscope::trace::CodeEvent event;
  event.api_event = jitscope::trace::kEventMethodLoadFinished;
  event.method_id = load.method_id;
  event.address = reinterpret_cast<uintptr_t>(load.method_load_address);
  event.size = load.method_size;
  event.name = load.method_name;
  event.lines = {reinterpret_cast<const jitscope::trace::LineEntry*>(lines), 16};
  std::vector<uint8_t> bytes(jitscope::trace::EncodedRecordSize(event));
  jitscope::trace::EncodeRecordBody(event, 1, bytes.data() + 8);
  return bytes;
}

int OpenScratch(const char* what) {
  const std::string path = bench_dir + "/" + what + "-" + std::to_string(getpid());
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  unlink(path.c_str());
  return fd;
}

void BM_CollectorNotify(benchmark::State& state) {
  unsigned id = 1000 + static_cast<unsigned>(state.thread_index()) * 100000000u;
  for (auto _ : state) {
    iJIT_Method_Load load = MakeLoad(++id);
    benchmark::DoNotOptimize(iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &load));
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(RecordBytes().size()));
}
BENCHMARK(BM_CollectorNotify)->Threads(1)->Threads(2)->UseRealTime();

// The collector's own CPU work (decoding, validation, timestamp, fan-out) with a sink that
// discards: what an event costs before any byte is stored.
class DiscardSink : public jitscope::collector::Sink {
 public:
  Result Write(const jitscope::trace::Record& record) override {
    benchmark::DoNotOptimize(&record);
    return Result::kOk;
  }
};

void BM_CollectorPathDiscardSink(benchmark::State& state) {
  std::vector<std::unique_ptr<jitscope::collector::Sink>> sinks;
  sinks.push_back(std::make_unique<DiscardSink>());
  auto collector = jitscope::collector::Collector::CreateForTesting(
      std::move(sinks), jitscope::collector::Log(), jitscope::collector::SystemEnvironment());
  unsigned id = 1000;
  for (auto _ : state) {
    iJIT_Method_Load load = MakeLoad(++id);
    benchmark::DoNotOptimize(collector->Notify(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &load));
  }
}
BENCHMARK(BM_CollectorPathDiscardSink);

void BM_PageCacheFloor64KiB(benchmark::State& state) {
  const std::vector<uint8_t> record = RecordBytes();
  const int fd = OpenScratch("floor");
  std::vector<uint8_t> buffer(64 * 1024);
  size_t used = 0;
  for (auto _ : state) {
    if (used + record.size() > buffer.size()) {
      benchmark::DoNotOptimize(write(fd, buffer.data(), used));
      used = 0;
    }
    std::memcpy(buffer.data() + used, record.data(), record.size());
    used += record.size();
  }
  close(fd);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(record.size()));
}
BENCHMARK(BM_PageCacheFloor64KiB)->UseRealTime();

void BM_WritePerRecord(benchmark::State& state) {
  const std::vector<uint8_t> record = RecordBytes();
  const int fd = OpenScratch("per-record");
  for (auto _ : state) benchmark::DoNotOptimize(write(fd, record.data(), record.size()));
  close(fd);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(record.size()));
}
BENCHMARK(BM_WritePerRecord)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  for (unsigned i = 0; i < 16; ++i) lines[i] = {16 * (i + 1), 100 + i};
  const char* base = getenv("JITSCOPE_BENCH_DIR");
  std::string pattern = std::string(base ? base : "/tmp") + "/jitscope-bench.XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    perror("mkdtemp");
    return 1;
  }
  bench_dir = pattern;
  // The stub decides once per process: configure the collector before the first API call.
  setenv("INTEL_JIT_PROFILER64", JITSCOPE_COLLECTOR, 1);
  setenv("JITSCOPE_OUTPUT_DIR", bench_dir.c_str(), 1);
  setenv("JITSCOPE_LOG", (bench_dir + "/collector.log").c_str(), 1);
  if (iJIT_IsProfilingActive() != iJIT_SAMPLING_ON) {
    fprintf(stderr, "notify_bench: the collector did not start (see %s/collector.log)\n",
            bench_dir.c_str());
    return 1;
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::system(("rm -rf '" + bench_dir + "'").c_str());
  return 0;
}
