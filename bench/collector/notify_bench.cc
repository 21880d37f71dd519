// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// What one METHOD_LOAD_FINISHED costs a JIT engine with jitscope's collector recording, for a
// method with a 40-character name and 16 line entries, measured through the real path (our stub
// → dlopen()ed libjitscope-collector.so → trace), next to the two alternatives that write the
// same bytes:
//   - the page-cache floor: the records built in memory and written with 64 KiB write() calls
//     (what a buffered writer costs, but a buffered writer loses its buffer on a crash);
//   - one write() per record: crash-safe the way wasmtime's and oneDNN's jitdump writers are.
//
// Then the same notification through each output format of the collector (the collector core
// in-process over its real sinks, BM_Sinks/<JITSCOPE_FORMATS>/<code bytes>), for a method with a
// source file, an 8-entry line table and 256 or 4096 bytes of code (the trace and the jitdump
// copy the code, the perf map writes one line; BM_Sinks/trace-no-code is the trace with
// JITSCOPE_CODE_BYTES=0), next to the same two floors for the bytes each format writes
// (BM_PageCacheFloor64KiB/<bytes>, BM_WritePerRecord/<bytes>; trace+code@N and trace-no-code@N
// are the trace's).
//
// And what an ITT task costs a program (oneDNN opens one per primitive execution): a
// __itt_task_begin/__itt_task_end pair through an ittnotify static part (tests/itt's) wired to the
// same dlopen()ed collector, into the same trace (BM_IttTaskPair), against the notification above.
//
// Output goes to $JITSCOPE_BENCH_DIR (default /tmp), one fresh directory per run. Figures:
// docs/performance.md.
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include "fake_static_part.h"
#include "jitprofiling.h"
#include "jitscope/collector/collector.h"
#include "jitscope/formats/jitdump_writer.h"
#include "jitscope/formats/perf_map_writer.h"
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

// The static part the ITT benchmark calls through, wired in main().
FakeItt itt;
FakeIttDomain* itt_domain = nullptr;
FakeIttHandle* itt_task = nullptr;

// One task of the ITT API: begin and end, as oneDNN brackets a primitive's execution (a named task
// in its domain, no ids), two trace records.
void BM_IttTaskPair(benchmark::State& state) {
  for (auto _ : state) {
    itt.task_begin(itt_domain, fake_itt_null, fake_itt_null, itt_task);
    itt.task_end(itt_domain);
  }
}
BENCHMARK(BM_IttTaskPair)->Threads(1)->Threads(2)->UseRealTime();

// The collector's own CPU work (decoding, validation, timestamp, fan-out) with a sink that
// discards: what an event costs before any byte is stored.
class DiscardSink : public jitscope::collector::EventSink {
 public:
  Result Write(const jitscope::trace::Record& record) override {
    benchmark::DoNotOptimize(&record);
    return Result::kOk;
  }
};

void BM_CollectorPathDiscardSink(benchmark::State& state) {
  std::vector<std::unique_ptr<jitscope::collector::EventSink>> sinks;
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

// The floors take the record size as their argument: RecordBytes().size() for the trace, the
// sizes of the perf formats' records for theirs (registered in RegisterBenchmarks()).
void BM_PageCacheFloor64KiB(benchmark::State& state) {
  const std::vector<uint8_t> record(static_cast<size_t>(state.range(0)), 0x5a);
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

void BM_WritePerRecord(benchmark::State& state) {
  const std::vector<uint8_t> record(static_cast<size_t>(state.range(0)), 0x5a);
  const int fd = OpenScratch("per-record");
  for (auto _ : state) benchmark::DoNotOptimize(write(fd, record.data(), record.size()));
  close(fd);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(record.size()));
}

// ---- Per output format: the collector core over its real sinks, in this process ----

constexpr char kSinkName[] = "org.example.Benchmark.method(I)V";
constexpr char kSinkSource[] = "/src/org/example/Benchmark.java";
constexpr unsigned kSinkMethods = 4096;  // ids cycle, so the name tables reach a steady size

struct SinkEvent {
  std::vector<uint8_t> code;
  std::vector<LineNumberInfo> table;
  iJIT_Method_Load load{};

  explicit SinkEvent(size_t code_size) : code(code_size, 0x90) {
    for (unsigned i = 1; i <= 8; ++i) {
      table.push_back({static_cast<unsigned>(code_size * i / 8), 10 + i});
    }
    load.method_name = const_cast<char*>(kSinkName);
    load.source_file_name = const_cast<char*>(kSinkSource);
    load.method_load_address = code.data();
    load.method_size = static_cast<unsigned>(code_size);
    load.line_number_size = static_cast<unsigned>(table.size());
    load.line_number_table = table.data();
  }
};

// What the jitdump sink writes for one SinkEvent: DEBUG_INFO and CODE_LOAD with the code.
int64_t JitdumpBytes(size_t code_size) {
  SinkEvent event(code_size);
  std::vector<jitscope::trace::LineEntry> table;
  for (const auto& entry : event.table) table.push_back({entry.Offset, entry.LineNumber});
  const auto ranges = jitscope::formats::RangesFromLineTable(table, event.load.method_size, 0);
  const auto lines = jitscope::formats::JitdumpLinesFromRanges(0x1000, ranges);
  const std::vector<std::string_view> files = {kSinkSource};
  std::vector<uint8_t> out;
  jitscope::formats::AppendJitdumpDebugInfo(out, 0, 0x1000, lines, files);
  jitscope::formats::JitdumpCodeLoadFields fields;
  fields.code_size = code_size;
  fields.name = kSinkName;
  jitscope::formats::AppendJitdumpCodeLoadPrefix(out, fields);
  return static_cast<int64_t>(out.size() + code_size);
}
// What the trace sink writes for one SinkEvent: the code record, and with `code_bytes` the
// record of the region's machine code (trace/format.h, kCodeBytes).
int64_t TraceBytes(size_t code_size, bool code_bytes) {
  SinkEvent event(code_size);
  std::vector<jitscope::trace::LineEntry> table;
  for (const auto& entry : event.table) table.push_back({entry.Offset, entry.LineNumber});
  jitscope::trace::CodeEvent code;
  code.api_event = jitscope::trace::kEventMethodLoadFinished;
  code.size = static_cast<uint32_t>(code_size);
  code.name = kSinkName;
  code.source_file = kSinkSource;
  code.lines = table;
  size_t bytes = jitscope::trace::EncodedRecordSize(code);
  if (code_bytes) {
    bytes += jitscope::trace::EncodedRecordSize(
        jitscope::trace::CodeBytesEvent{0x1000, static_cast<uint32_t>(code_size), event.code});
  }
  return static_cast<int64_t>(bytes);
}
int64_t PerfMapBytes(size_t code_size) {
  return static_cast<int64_t>(
      jitscope::formats::FormatPerfMapLine(0x7f0000000000, code_size, kSinkName).size());
}

// One collector per run, shared by the run's threads.
jitscope::collector::Collector* sinks_collector = nullptr;

std::string SinksDirectory(uint32_t formats) {
  return bench_dir + "/sinks-" + std::to_string(formats);
}

void BM_Sinks(benchmark::State& state, uint32_t formats, bool code_bytes) {
  if (state.thread_index() == 0) {
    const std::string dir = SinksDirectory(formats);
    std::system(("rm -rf '" + dir + "' && mkdir '" + dir + "'").c_str());
    jitscope::collector::Config config;
    config.output_dir = dir;
    config.perf_map_dir = dir;
    config.formats = formats;
    config.code_bytes = code_bytes;
    auto collector = jitscope::collector::Collector::Create(
        config, jitscope::collector::Log(), jitscope::collector::SystemEnvironment());
    if (!collector.ok()) {
      state.SkipWithError(collector.status().message().c_str());
      return;
    }
    sinks_collector = std::move(collector).value().release();
  }
  SinkEvent event(static_cast<size_t>(state.range(0)));
  const unsigned first_id = 1000 + static_cast<unsigned>(state.thread_index()) * kSinkMethods;
  unsigned i = 0;
  for (auto _ : state) {
    event.load.method_id = first_id + (i++ % kSinkMethods);
    benchmark::DoNotOptimize(
        sinks_collector->Notify(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &event.load));
  }
  if (state.thread_index() == 0) {
    delete sinks_collector;
    sinks_collector = nullptr;
    std::system(("rm -rf '" + SinksDirectory(formats) + "'").c_str());
  }
}

// Registers the per-format benchmarks and every floor. Iterations are capped so that no run
// writes much more than 256 MiB.
void RegisterBenchmarks() {
  using jitscope::collector::kFormatJitdump;
  using jitscope::collector::kFormatPerfMap;
  using jitscope::collector::kFormatTrace;
  auto iterations = [](int64_t bytes) {
    return std::min<int64_t>(200000, (int64_t{256} << 20) / std::max<int64_t>(bytes, 1));
  };
  // Floors per format and code size, named "<format>@<code bytes>" with the record bytes as the
  // argument, so bench/run-perf-formats can pair every format with its own floors.
  std::vector<std::pair<std::string, int64_t>> floors = {
      {"trace", static_cast<int64_t>(RecordBytes().size())}};
  for (const int64_t code_size : {256, 4096}) {
    const int64_t jitdump = JitdumpBytes(static_cast<size_t>(code_size));
    const std::string at = "@" + std::to_string(code_size);
    floors.emplace_back("jitdump" + at, jitdump);
    floors.emplace_back("perfmap" + at, PerfMapBytes(static_cast<size_t>(code_size)));
    floors.emplace_back("trace+code" + at, TraceBytes(static_cast<size_t>(code_size), true));
    floors.emplace_back("trace-no-code" + at, TraceBytes(static_cast<size_t>(code_size), false));
    struct Variant {
      const char* name;
      uint32_t formats;
      bool code_bytes = true;
    };
    for (const Variant& v :
         {Variant{"trace", kFormatTrace}, Variant{"trace-no-code", kFormatTrace, false},
          Variant{"jitdump", kFormatJitdump}, Variant{"perfmap", kFormatPerfMap},
          Variant{"trace,jitdump,perfmap", kFormatTrace | kFormatJitdump | kFormatPerfMap}}) {
      benchmark::RegisterBenchmark(("BM_Sinks/" + std::string(v.name)).c_str(), BM_Sinks, v.formats,
                                   v.code_bytes)
          ->Arg(code_size)
          ->Iterations(iterations(jitdump))
          ->Threads(1)
          ->Threads(2)
          ->UseRealTime();
    }
  }
  for (const auto& [label, bytes] : floors) {
    benchmark::RegisterBenchmark(("BM_PageCacheFloor64KiB/" + label).c_str(),
                                 BM_PageCacheFloor64KiB)
        ->Arg(bytes)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("BM_WritePerRecord/" + label).c_str(), BM_WritePerRecord)
        ->Arg(bytes)
        ->Iterations(iterations(bytes))
        ->UseRealTime();
  }
}

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
  fake_itt_init(&itt, 0);
  if (fake_itt_load(&itt, JITSCOPE_COLLECTOR) != 0 || itt.task_begin == nullptr) {
    fprintf(stderr, "notify_bench: the ITT API was not wired (see %s/collector.log)\n",
            bench_dir.c_str());
    return 1;
  }
  itt_domain = itt.domain_create("bench");
  itt_task = itt.string_handle_create("convolution");
  RegisterBenchmarks();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::system(("rm -rf '" + bench_dir + "'").c_str());
  return 0;
}
