// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Decodes one kernel perf record (linux/perf_event.h, perf_event_open(2) "MMAP layout"): samples
// and MMAP/MMAP2, COMM, FORK/EXIT, SWITCH(_CPU_WIDE), LOST and THROTTLE/UNTHROTTLE records with
// their sample_id_all trailer. A session's samples file holds the layouts `jitscope record` asks
// the kernel for (IP|TID|TIME|CALLCHAIN, kSampleType, `--call-graph fp`, plus REGS_USER|STACK_USER,
// kDwarfSampleType, `--call-graph dwarf`); a perf.data file holds whatever `perf record` asked
// for, so the decoder follows any sample_type through STACK_USER, the last field a report needs.
// Every length is checked against the record's size before use; a malformed record is an error
// value, never a crash (docs/reliability.md).
#pragma once

#include <linux/perf_event.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "jitscope/base/status.h"

namespace jitscope::session {

// What every sample of a session carries, in perf_event_open(2)'s field order
// ("PERF_RECORD_SAMPLE"). The sampler asks for it, the samples file records it in its header.
inline constexpr uint64_t kSampleType =
    PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN;
// With the user registers and a copy of the top of the user stack, for unwinding afterwards.
inline constexpr uint64_t kDwarfSampleType =
    kSampleType | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;

// The largest stack copy the kernel takes: sample_stack_user must be below USHRT_MAX and
// 8-aligned.
inline constexpr uint32_t kMaxStackCopySize = 65528;
// perf_event_x86_regs (asm/perf_regs.h): AX … R15, 24 registers.
inline constexpr int kPerfRegisterCount = 24;
// Every general-purpose register of x86-64, as perf asks for them: all 24 but DS, ES, FS and GS,
// which the kernel refuses (perf_reg_validate). An i386 process's registers are the low halves of
// the same slots (the sample's abi says which); R8–R15 mean nothing there.
inline constexpr uint64_t kX86_64RegsMask = 0xff0fff;

// What decides a record's layout: the attr's sample_type, sample_regs_user, read_format (the
// READ field), branch_sample_type (the BRANCH_STACK field) and sample_id_all (the trailer).
struct SampleLayout {
  uint64_t sample_type = kSampleType;
  uint64_t regs_mask = 0;
  uint64_t read_format = 0;
  uint64_t branch_sample_type = 0;
  bool sample_id_all = true;
  // Samples `jitscope record` unwound itself (samples_file.h's kFlagUnwound): kSampleType, whose
  // call chains carry the markers below.
  bool unwound = false;
  bool operator==(const SampleLayout&) const = default;
};

// The call-chain markers of unwound samples, in the range the kernel reserves for context
// markers (the top 4095 values) but never writes. Each comes before what it says:
//  - kContextNotAfterCall: the next frame's pc is exact (the sampled instruction, or one a signal
//    interrupted), not a return address to look up one byte back;
//  - kContextWalkEnd + r, the last entry: the unwinder's StopReason r, why the walk ended;
//  - kContextGuessed: the frames after it are not the walk's but the kernel's frame-pointer
//    chain, spliced in where the walk stopped (walk/sample_walker.h);
//  - kContextInterpreter, then two words: the next frame is a HotSpot interpreter frame, whose
//    Method* and bytecode pointer slots (unwind/hotspot_interpreter.h) are the two words.
//  - kContextCapturedCode, before the walk's end: the walk took a step by rules derived from
//    code record read from the running process (record/code_capture.h).
// A file not flagged as unwound (a kernel's records) gives them no meaning.
inline constexpr uint64_t kContextNotAfterCall = static_cast<uint64_t>(-3584);
inline constexpr uint64_t kContextWalkEnd = static_cast<uint64_t>(-3840);
inline constexpr uint64_t kContextGuessed = static_cast<uint64_t>(-3328);
inline constexpr uint64_t kContextInterpreter = static_cast<uint64_t>(-3072);
inline constexpr uint64_t kContextCapturedCode = static_cast<uint64_t>(-2816);
inline constexpr uint64_t kMaxWalkEnd = 255;

// A record type of jitscope's own, far from the kernel's (below 64) and perf's (from 64): in a
// --call-graph dwarf samples file, a sample `jitscope record` unwound while it recorded, in the
// unwound layout (UnwoundSampleLayout(): its call chain with the markers above, its walk's end);
// the file's other samples are as the kernel wrote them, to be unwound later
// (walk/recording_unwinder.h). Decoding one gives the sample as an unwound file's.
inline constexpr uint32_t kRecordUnwoundSample = 0x4a530001;

// A bit of a sample's header.misc that the kernel leaves clear (it uses bits 0-2 and 12-15): in a
// samples file of `jitscope record --off-cpu`, the sample was taken as its thread was switched
// out of its CPU (a context-switches event, record/event_config.h), not by the sampling clock. Its
// stack is where the thread stopped running; the switch records say for how long, and why.
inline constexpr uint16_t kMiscOffCpu = 1 << 8;

// Why a thread switched out of its CPU gave it up, as `record --off-cpu` tells from the kernel's
// part of the switch's call chain (record/off_cpu_reason.h), in the three bits of misc above
// kMiscOffCpu; kUnknown where it could not tell (no kernel symbols, or another wait).
enum class OffCpuReason : uint8_t {
  kUnknown = 0,
  kSleep = 1,  // nanosleep, clock_nanosleep: a sleep it asked for
  kLock = 2,   // a futex: a lock, a condition variable, a semaphore, a join
  kIo = 3,     // a read, a write, an fsync...: waiting for a file, a pipe, a socket or a disk
  kPoll = 4,   // poll, select, epoll_wait: waiting for any of several events
};
inline constexpr int kMiscOffCpuReasonShift = 9;
inline constexpr uint16_t kMiscOffCpuReasonMask = 7 << kMiscOffCpuReasonShift;

// The layout of an unwound file's samples, and of kRecordUnwoundSample records.
inline SampleLayout UnwoundSampleLayout() {
  SampleLayout layout;
  layout.unwound = true;
  return layout;
}

// The header of `record`, which holds at least one (what RecordAt and a ring's reader give).
inline perf_event_header RecordHeader(std::string_view record) {
  perf_event_header header{};
  std::memcpy(&header, record.data(), sizeof(header));
  return header;
}

// Whether a session's samples file may hold `layout`: one of the two sample types, registers
// exactly when REGS_USER is set, only of the mask above, and the trailer {pid, tid, time}.
bool IsSupportedLayout(const SampleLayout& layout);

// One frame of a call chain. The kernel separates the kernel and user parts of a chain with
// PERF_CONTEXT_* markers; we turn the markers into this flag and drop them.
struct CallchainEntry {
  uint64_t ip = 0;
  bool kernel = false;
  // An unwound sample's frame whose pc is exact, not a return address (kContextNotAfterCall).
  bool exact = false;
  // An unwound sample's frame taken from the frame-pointer chain (kContextGuessed).
  bool guessed = false;
  // An unwound sample's HotSpot interpreter frame (kContextInterpreter): its Method* and bcp
  // slots, raw words of the stack.
  bool interpreter = false;
  uint64_t method = 0;
  uint64_t bcp = 0;
  bool operator==(const CallchainEntry&) const = default;
};

// PERF_SAMPLE_REGS_USER: the user-space registers when the sample was taken (the interrupted
// user state for a sample in the kernel).
struct UserRegs {
  uint64_t abi = PERF_SAMPLE_REGS_ABI_NONE;  // NONE (no user state: a kernel thread), 32 or 64
  uint64_t mask = 0;                         // which of `values` the record held
  std::array<uint64_t, kPerfRegisterCount> values{};  // by perf_event_x86_regs index
};

struct Sample {
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint64_t time_ns = 0;
  uint64_t ip = 0;
  std::vector<CallchainEntry> callchain;  // leaf first, as the kernel writes it
  // An unwound sample's walk's end (kContextWalkEnd): an unwind::StopReason, unchecked.
  std::optional<uint8_t> walk_end;
  // An unwound sample whose walk took a step by rules derived from code read from the running
  // process (kContextCapturedCode).
  bool on_captured_code = false;
  UserRegs regs;
  // Taken as the thread left its CPU (kMiscOffCpu), not by the sampling clock.
  bool off_cpu = false;
  OffCpuReason off_cpu_reason = OffCpuReason::kUnknown;  // of an off-CPU sample
  // PERF_SAMPLE_STACK_USER: the valid bytes (dyn_size) of the copy of the user stack, starting
  // at the stack pointer in `regs`. A view into the bytes the record was parsed from.
  std::string_view stack;
};

// An executable mapping (MMAP or MMAP2).
struct Mapping {
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint64_t time_ns = 0;
  uint64_t start = 0;
  uint64_t length = 0;
  uint64_t file_offset = 0;
  std::string filename;  // "//anon", "[vdso]", a path, ...
  // The file's build id (lowercase hex) when the recording says it (an MMAP2 with
  // PERF_RECORD_MISC_MMAP_BUILD_ID, or a perf.data's build-id table); "" when unknown.
  std::string build_id;
};

// Whether a mapping's name is a kernel pseudo-name for memory that no file backs — anonymous
// memory ("//anon" in perf's records, "[anon:NAME]" named by prctl, "[heap]", "[stack]"), a
// memfd ("memfd:NAME", "/memfd:NAME (deleted)"), shared anonymous memory ("/dev/zero (deleted)",
// "/SYSV...", "/anon_hugepage") or an anon inode — rather than a path to read symbols from.
// Executable memory of this kind holds generated code: JIT code no JIT file describes.
bool IsAnonymousMemory(std::string_view mapping_name);

// A build id as Mapping::build_id spells it (and perf, and the file's name under .build-id/).
std::string BuildIdHex(std::span<const uint8_t> bytes);

struct Comm {
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint64_t time_ns = 0;
  bool exec = false;  // PERF_RECORD_MISC_COMM_EXEC: the name changed because of an exec
  std::string name;
};

// FORK or EXIT of a thread or process.
struct Task {
  bool exit = false;
  uint32_t pid = 0;
  uint32_t ppid = 0;
  uint32_t tid = 0;
  uint32_t ptid = 0;
  uint64_t time_ns = 0;
};

// PERF_RECORD_SWITCH (a task's own event) or PERF_RECORD_SWITCH_CPU_WIDE (a CPU's, record -a):
// thread `tid` was switched out of its CPU, or back in (attr.context_switch; perf record
// --switch-events).
struct Switch {
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint64_t time_ns = 0;
  bool out = false;
  // PERF_RECORD_MISC_SWITCH_OUT_PREEMPT (Linux 4.17): switched out while still runnable, its CPU
  // taken, rather than to wait (sleep, I/O, a lock).
  bool preempted = false;
};

struct Lost {
  uint64_t count = 0;
};

// PERF_RECORD_THROTTLE / UNTHROTTLE: the kernel stopped (or resumed) sampling an event that
// interrupted too often (kernel.perf_cpu_time_max_percent); samples were not taken meanwhile.
struct Throttle {
  bool unthrottle = false;
};

// A record type we do not ask for: kept so the caller can count it.
struct Other {
  uint32_t type = 0;
};

using PerfRecord = std::variant<Sample, Mapping, Comm, Task, Switch, Lost, Throttle, Other>;

// Decodes `bytes`, which must hold exactly one record (its header's size equals bytes.size()),
// of `layout`. A Sample's `stack` points into `bytes`. Without TID the pid and tid are 0; without
// TIME (or, for records other than samples, without sample_id_all) the time is 0.
base::StatusOr<PerfRecord> ParsePerfRecord(std::string_view bytes, const SampleLayout& layout = {});

// Decodes `bytes`, one PERF_RECORD_SAMPLE of `layout` as ParsePerfRecord does, into `out`, whose
// call chain's capacity is reused: what a reader that decodes each sample again when it is used
// calls, so a pass over a million samples allocates nothing per sample. A kRecordUnwoundSample
// record is decoded in UnwoundSampleLayout(), whatever `layout`.
base::Status ParseSampleRecord(std::string_view bytes, const SampleLayout& layout, Sample& out);

// The PERF_RECORD_SAMPLE of an unwound samples file (SampleLayout::unwound) for `sample`'s pid,
// tid, time and ip, with `frames` as its call chain (leaf first; `exact` is written for every
// frame but the first, whose pc is always exact; `guessed` from the first guessed frame on) and
// the walk's end, into `out`, with kContextCapturedCode when `on_captured_code`. The header's
// misc is `misc`, its type `type` (kRecordUnwoundSample in a file of samples not unwound). Fails,
// writing nothing, when the record would pass the 64 KiB a record's size can say.
bool EncodeUnwoundSample(const Sample& sample, std::span<const CallchainEntry> frames,
                         uint8_t walk_end, uint16_t misc, std::string& out,
                         uint32_t type = PERF_RECORD_SAMPLE, bool on_captured_code = false);

// `bytes`, one PERF_RECORD_SAMPLE of `layout` with a copy of the user stack, with the copy cut
// to the bytes the kernel filled (dyn_size, rounded up to 8), written into `out`: the same
// sample, in the format the kernel uses when it shrinks a copy to fit a record. Returns `bytes`
// itself when there is nothing to cut or it does not decode as such a sample.
std::string_view CutStackCopy(std::string_view bytes, const SampleLayout& layout, Sample& scratch,
                              std::string& out);

// The event id a record carries (PERF_SAMPLE_IDENTIFIER, else PERF_SAMPLE_ID, where `sample_type`
// puts it: in a sample, or in another record's sample_id_all trailer), which tells a file with
// several events which one wrote it. nullopt when the record carries none or is too short.
std::optional<uint64_t> PerfRecordId(std::string_view bytes, uint64_t sample_type,
                                     bool sample_id_all);

}  // namespace jitscope::session
