// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The frame-pointer oracle: in a program whose JIT code keeps frame pointers (the
// example JIT by default, V8, HotSpot with -XX:+PreserveFramePointer), the kernel's frame-pointer
// chain of a sample is the truth through the JIT frames, and the DWARF walk of the same sample
// (CFI, and rules derived from the JIT code's bytes, which never take rbp for a frame pointer
// unless the code shows it is one) must find the same frames.
//
// Input: a session `jitscope record --call-graph dwarf --keep-stacks` recorded: each sample holds
// both the chain and the registers and stack copy. A sample counts when it was taken in JIT code
// (code a JIT file names: a native leaf without a frame pointer, a libc function the JIT code
// called, makes the chain skip its caller); it matches when the walk found the chain's frames, in
// order, from the sampled pc through the native caller of the outermost JIT frame (beyond that,
// native code without frame pointers, Debian's libc for one, makes the chain itself wrong). A
// sample whose walk found the chain's frames and one more, the sampled frame's caller, matches as
// well where the chain skipped that caller by its own blind spot: the rule the walk took at the
// sampled pc says rbp still held the caller's value there (unwind::ChainSkipsCaller: a stub that
// builds no frame, a prologue before `mov rbp, rsp`, an epilogue after `pop rbp`), so the kernel
// read the caller's return address for the sampled frame's; those are counted apart. Prints
// one JSON object; with --list, each sample that does not match first, on stderr: its class, the
// walk's end, the registers, and the chain's and the walk's frames, named.
#include <asm/perf_regs.h>
#include <fmt/format.h>
#include <linux/perf_event.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "jitscope/session/samples_file.h"
#include "jitscope/symbolize/symbol_index.h"
#include "jitscope/unwind/frame_records.h"
#include "jitscope/walk/recording.h"
#include "jitscope/walk/sample_walker.h"

namespace jitscope::walk {
namespace {

struct Counts {
  uint64_t samples = 0;        // with user registers
  uint64_t in_jit = 0;         // taken in JIT code
  uint64_t match = 0;          // the walk found the chain's frames through the JIT part
  uint64_t chain_skipped = 0;  // ... of them, and the caller the chain's blind spot skipped
  uint64_t walk_stopped = 0;   // the walk agreed as far as it went, and stopped before
  uint64_t differ_in_jit = 0;  // the first difference is at a JIT frame or its caller
  uint64_t differ_native = 0;  // ... in native frames below the JIT part
};

// An address as the list names it: JIT code by its outermost frame, anything else by its mapping.
std::string Describe(uint64_t address, const symbolize::SymbolIndex& index, uint64_t jit_time,
                     const ProcessMaps& maps, uint32_t pid, uint64_t time_ns) {
  symbolize::Resolution resolution;
  if (index.Resolve(address, jit_time, resolution) && !resolution.frames.empty()) {
    return fmt::format("{:#x} {}+{:#x}", address, resolution.frames.back().name,
                       address - resolution.region.start);
  }
  if (const session::Mapping* mapping = maps.Find(pid, address, time_ns)) {
    return fmt::format("{:#x} {}@{:#x}", address, mapping->filename,
                       address - mapping->start + mapping->file_offset);
  }
  return fmt::format("{:#x} ?", address);
}

void List(const char* what, const session::Sample& sample, unwind::StopReason end,
          const std::vector<uint64_t>& chain, const std::vector<uint64_t>& walk,
          const symbolize::SymbolIndex& index, uint64_t jit_time, const ProcessMaps& maps) {
  const auto& regs = sample.regs.values;
  std::fprintf(stderr, "%s: pid %u tid %u time %llu, walk ended '%s', rsp %#llx rbp %#llx\n", what,
               sample.pid, sample.tid, static_cast<unsigned long long>(sample.time_ns),
               unwind::StopReasonName(end), static_cast<unsigned long long>(regs[PERF_REG_X86_SP]),
               static_cast<unsigned long long>(regs[PERF_REG_X86_BP]));
  const size_t frames = std::max(chain.size(), walk.size());
  for (size_t i = 0; i < frames; ++i) {
    auto name = [&](const std::vector<uint64_t>& stack) {
      if (i >= stack.size()) return std::string("-");
      return Describe(i == 0 ? stack[i] : stack[i] - 1, index, jit_time, maps, sample.pid,
                      sample.time_ns);
    };
    std::fprintf(stderr, "  %2zu  chain %-60s walk %s\n", i, name(chain).c_str(),
                 name(walk).c_str());
  }
}

// Whether `walk` is `chain` through `last` with one frame more, the sampled frame's caller, which
// the chain skipped by its own blind spot: the rule at the sampled pc (the walk's, looked up as
// the walk looks it up) says rbp still held the caller's value. The caller's return address may
// equal the chain's next one (HotSpot's interpreter returns every invoke of a kind to one entry),
// so the walk can agree with the chain beyond the sampled pc before it differs.
bool ChainSkippedCaller(const session::Sample& sample, const std::vector<uint64_t>& chain,
                        const std::vector<uint64_t>& walk, size_t last, SampleWalker& walker) {
  if (walk.size() < last + 2 || chain.size() < 2) return false;
  for (size_t i = 1; i <= last; ++i) {
    if (walk[i + 1] != chain[i]) return false;
  }
  unwind::ModuleAt at;
  walker.address_space().At(sample.pid, sample.time_ns, walker.JitTime(sample.time_ns));
  if (!walker.address_space().Find(chain[0], at) || at.interpreter) return false;
  const unwind::CfiRow* row = at.module != nullptr ? at.module->Find(chain[0] - at.bias) : nullptr;
  if (row == nullptr && at.derived != nullptr) row = at.derived->FindRow(chain[0]);
  if (row == nullptr) return false;
  const unwind::RegisterFile registers = unwind::RegisterFile::FromPerf(sample.regs);
  uint64_t sp = 0;
  registers.Get(registers.sp_register(), sp);
  return unwind::ChainSkipsCaller(*row, registers, unwind::StackMemory(sp, sample.stack));
}

int Compare(const std::string& directory, bool list) {
  auto recording = ReadRecording(directory);
  if (!recording.ok()) {
    std::fprintf(stderr, "unwind_oracle_compare: %s\n", recording.status().message().c_str());
    return 1;
  }
  const session::SampleData& data = recording->data;
  if ((data.format.layout.sample_type & PERF_SAMPLE_REGS_USER) == 0 || data.file == nullptr) {
    std::fprintf(stderr, "unwind_oracle_compare: %s: not a --keep-stacks dwarf session\n",
                 directory.c_str());
    return 1;
  }
  auto sources = OpenRecordingJitSources(*recording, {});
  if (!sources.ok()) {
    std::fprintf(stderr, "unwind_oracle_compare: %s\n", sources.status().message().c_str());
    return 1;
  }
  SampleWalker walker(data, *sources, recording->vdso_path, recording->latest_code);
  DescribeSessionFiles(*recording, walker.files());
  // JIT code is what the process's JIT files name (a perf map's entries too, whose code record
  // read from the running process).
  std::map<uint32_t, symbolize::SymbolIndex> indexes;
  symbolize::Resolution resolution;

  const std::string_view bytes = data.file->bytes();
  auto header = session::ReadSamplesHeader(bytes);
  if (!header.ok()) {
    std::fprintf(stderr, "unwind_oracle_compare: %s\n", header.status().message().c_str());
    return 1;
  }
  Counts counts;
  session::Sample sample;
  std::vector<StackAddress> walked;
  std::vector<uint64_t> chain, walk;
  for (size_t offset = header->size;;) {
    const auto record = session::RecordAt(bytes, offset);
    if (!record) break;
    offset += record->size();
    perf_event_header record_header{};
    std::memcpy(&record_header, record->data(), sizeof(record_header));
    if (record_header.type != PERF_RECORD_SAMPLE) continue;
    if (!session::ParseSampleRecord(*record, data.format.layout, sample).ok()) continue;
    ++counts.samples;
    chain.clear();
    for (const session::CallchainEntry& frame : sample.callchain) {
      if (!frame.kernel) chain.push_back(frame.ip);
    }
    auto index = indexes.find(sample.pid);
    if (index == indexes.end())
      index = indexes.emplace(sample.pid, sources->BuildIndex(sample.pid)).first;
    const uint64_t jit_time = walker.JitTime(sample.time_ns);
    auto is_jit = [&](uint64_t address) {
      return index->second.Resolve(address, jit_time, resolution);
    };
    // The outermost JIT frame of the chain (the sampled pc as it is, return addresses one back).
    size_t outermost_jit = chain.size();
    for (size_t i = 0; i < chain.size(); ++i) {
      if (is_jit(i == 0 ? chain[i] : chain[i] - 1)) outermost_jit = i;
    }
    if (outermost_jit == chain.size() || !is_jit(chain[0])) continue;
    ++counts.in_jit;
    const size_t last = std::min(outermost_jit + 1, chain.size() - 1);
    walker.Walk(sample, walked);
    walk.clear();
    for (const StackAddress& address : walked) {
      if (!address.kernel && !address.guessed) walk.push_back(address.pc);
    }
    size_t same = 0;
    while (same <= last && same < walk.size() && walk[same] == chain[same]) ++same;
    const char* what = nullptr;
    if (same > last) {
      ++counts.match;
    } else if (same >= 1 && ChainSkippedCaller(sample, chain, walk, last, walker)) {
      ++counts.match;
      ++counts.chain_skipped;
    } else if (same == walk.size()) {
      ++counts.walk_stopped;
      what = "walk stopped";
    } else if (same <= outermost_jit + 1) {
      ++counts.differ_in_jit;
      what = "differs in the JIT part";
    } else {
      ++counts.differ_native;
      what = "differs below the JIT part";
    }
    if (list && what != nullptr) {
      List(what, sample, walker.last_walk_end(), chain, walk, index->second, jit_time,
           walker.maps());
    }
  }
  std::printf(
      "{\"samples\": %llu, \"in_jit\": %llu, \"match\": %llu, \"chain_skipped\": %llu, "
      "\"walk_stopped\": %llu, \"differ_in_jit\": %llu, \"differ_native\": %llu}\n",
      static_cast<unsigned long long>(counts.samples),
      static_cast<unsigned long long>(counts.in_jit), static_cast<unsigned long long>(counts.match),
      static_cast<unsigned long long>(counts.chain_skipped),
      static_cast<unsigned long long>(counts.walk_stopped),
      static_cast<unsigned long long>(counts.differ_in_jit),
      static_cast<unsigned long long>(counts.differ_native));
  return 0;
}

}  // namespace
}  // namespace jitscope::walk

int main(int argc, char** argv) {
  const bool list = argc == 3 && std::strcmp(argv[1], "--list") == 0;
  if (argc != 2 && !list) {
    std::fprintf(stderr, "usage: unwind_oracle_compare [--list] SESSION\n");
    return 2;
  }
  return jitscope::walk::Compare(argv[argc - 1], list);
}
