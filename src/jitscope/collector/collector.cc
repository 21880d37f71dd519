// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/collector/collector.h"

#include <limits.h>
#include <pthread.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>

#include "jitscope/base/clock.h"
#include "jitscope/base/files.h"
#include "jitscope/base/thread_local.h"
#include "jitscope/collector/event_decoder.h"
#include "jitscope/collector/jitdump_sink.h"
#include "jitscope/collector/perf_map_sink.h"
#include "jitscope/collector/trace_sink.h"

namespace jitscope::collector {
namespace {

// The output directory, when the collector makes it: the owner's alone, like the files in it.
constexpr mode_t kOutputDirectoryMode = 0700;

// Bumped in every fork()ed child, so thread-local caches filled by the parent are refreshed.
std::atomic<uint32_t> fork_generation{1};
// Registered when the library is loaded, before any thread can report: a function-local static
// here would be a guard that a fork() in the middle of its initialisation leaves locked forever
// in the child.
[[maybe_unused]] const bool fork_generation_registered = [] {
  ::pthread_atfork(nullptr, nullptr,
                   [] { fork_generation.fetch_add(1, std::memory_order_relaxed); });
  return true;
}();

uint32_t CurrentThreadId() {
  // gettid() and getpid() are syscalls (glibc no longer caches the pid); cache the tid per
  // thread, and tell a cache inherited across fork() by the fork generation.
  JITSCOPE_THREAD_LOCAL uint32_t cached_generation = 0;
  JITSCOPE_THREAD_LOCAL uint32_t cached_tid = 0;
  const uint32_t generation = fork_generation.load(std::memory_order_relaxed);
  if (cached_generation != generation) {
    cached_tid = static_cast<uint32_t>(::syscall(SYS_gettid));
    cached_generation = generation;
  }
  return cached_tid;
}

uint64_t RealtimeNowNs() {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

std::string ExecutablePath() {
  char buffer[PATH_MAX];
  const ssize_t size = ::readlink("/proc/self/exe", buffer, sizeof(buffer));
  return size > 0 ? std::string(buffer, static_cast<size_t>(size)) : std::string();
}

// Which exec of the process this is (trace/format.h, ImageExtension): the 16 random bytes the
// kernel gives every exec (AT_RANDOM). Readers tell a re-exec'd program's trace from the one
// before by them, since the pid stays. Rejected: the executable's path and inode (a program that
// re-execs itself keeps both), the process's start time in /proc (that of its fork, not exec).
std::array<uint8_t, 16> ProgramImage() {
  std::array<uint8_t, 16> image{};
  if (const auto address = ::getauxval(AT_RANDOM); address != 0) {
    std::memcpy(image.data(), reinterpret_cast<const void*>(address), image.size());
  }
  return image;
}

bool IsTopLevelLoad(uint32_t api_event) {
  return api_event == trace::kEventMethodLoadFinished ||
         api_event == trace::kEventMethodLoadFinishedV2 ||
         api_event == trace::kEventMethodLoadFinishedV3;
}

}  // namespace

Environment SystemEnvironment() { return Environment{&base::MonotonicNowNs, &CurrentThreadId}; }

base::StatusOr<std::unique_ptr<Collector>> Collector::Create(const Config& config, Log log,
                                                             Environment environment) {
  if (config.formats & (kFormatTrace | kFormatJitdump)) {
    // Made if missing, as perf makes its own; refused if a link was planted on the way or
    // another user owns it (files.h).
    ASSIGN_OR_RETURN(base::ScopedFd output_dir,
                     base::OpenOrMakeOwnDirectory(config.output_dir, kOutputDirectoryMode));
  }
  std::vector<std::unique_ptr<EventSink>> sinks;
  if (config.formats & kFormatTrace) {
    trace::TraceIdentity identity{static_cast<uint32_t>(::getpid()), ExecutablePath(),
                                  environment.now_ns(), RealtimeNowNs(), ProgramImage()};
    const TraceSink::Options options{
        .code_bytes = config.code_bytes, .max_size = config.max_trace_size, .writer = {}};
    ASSIGN_OR_RETURN(auto sink, TraceSink::Create(config.output_dir, identity, options, log));
    log.Printf("recording JIT events to %s", sink->path().c_str());
    sinks.push_back(std::move(sink));
  }
  const auto pid = static_cast<uint32_t>(::getpid());
  if (config.formats & kFormatJitdump) {
    ASSIGN_OR_RETURN(auto sink,
                     JitdumpSink::Create(config.output_dir, pid, environment.now_ns(), log));
    log.Printf("writing a perf jitdump to %s", sink->path().c_str());
    sinks.push_back(std::move(sink));
  }
  if (config.formats & kFormatPerfMap) {
    auto sink = PerfMapSink::Create(config.perf_map_dir, pid);
    if (sink.ok()) {
      log.Printf("writing a perf map to %s", (*sink)->path().c_str());
      sinks.push_back(std::move(sink).value());
    } else {
      log.Printf("no perf map: %s", sink.status().message().c_str());
    }
  }
  if (sinks.empty()) return base::Status::Error("no output could be created");
  // The trace last (WriteAll): it then holds only what every other sink recorded too.
  if (config.formats & kFormatTrace) std::rotate(sinks.begin(), sinks.begin() + 1, sinks.end());
  return CreateForTesting(std::move(sinks), std::move(log), environment);
}

std::unique_ptr<Collector> Collector::CreateForTesting(
    std::vector<std::unique_ptr<EventSink>> sinks, Log log, Environment environment) {
  return std::unique_ptr<Collector>(new Collector(std::move(sinks), std::move(log), environment));
}

Collector::Collector(std::vector<std::unique_ptr<EventSink>> sinks, Log log,
                     Environment environment)
    : sinks_(std::move(sinks)), log_(std::move(log)), environment_(environment) {
  for (const auto& sink : sinks_) {
    if (sink->KeepsTimeline()) {
      timeline_ = sink.get();
      break;
    }
  }
}

std::string Collector::WriteErrors() const {
  std::string errors;
  for (const auto& sink : sinks_) {
    const base::Status error = sink->error();
    if (error.ok()) continue;
    if (!errors.empty()) errors += "; ";
    errors += error.message();
  }
  return errors.empty() ? std::string("no details") : errors;
}

void Collector::AtExit() {
  const uint64_t now = environment_.now_ns();
  for (const auto& sink : sinks_) sink->AtExit(now);
}

// The trace is the last sink (Create): an event it holds was written by every sink, so it holds
// exactly the events accepted. After a failure to write nothing is accepted, and so written,
// any more: an event accepted after a refused one would be a hole in what the files say.
EventSink::Result Collector::WriteAll(const trace::Record& record) {
  if (stopped_.load(std::memory_order_relaxed)) return EventSink::Result::kWriteFailed;
  for (const auto& sink : sinks_) {
    const EventSink::Result written = sink->Write(record);
    if (written == EventSink::Result::kWriteFailed) stopped_.store(true, std::memory_order_relaxed);
    if (written != EventSink::Result::kOk) return written;
  }
  return EventSink::Result::kOk;
}

int Collector::Reject(uint32_t event_type, trace::RejectReason reason, uint64_t timestamp,
                      uint32_t tid) {
  const uint64_t count =
      rejected_[static_cast<size_t>(reason)].fetch_add(1, std::memory_order_relaxed);
  if (count == 0 && reason == trace::RejectReason::kWriteFailed) {
    log_.Printf("cannot write the JIT events any more; further events are refused (%s)",
                WriteErrors().c_str());
  } else if (count == 0 && (trace::IsOprofileCall(event_type) || trace::IsIttCall(event_type))) {
    log_.Printf(
        "refused a %s call: %s; further refusals for this reason are counted in the "
        "trace, not logged",
        trace::ApiEventName(event_type), trace::RejectReasonName(reason));
  } else if (count == 0) {
    const char* name = trace::ApiEventName(event_type);
    log_.Printf(
        "rejected %s event (type %u): %s; further rejections for this reason are "
        "counted in the trace, not logged",
        name ? name : "an unknown", event_type, trace::RejectReasonName(reason));
  }
  // Best effort: if the trace itself is what failed, this write fails too and the counter above
  // is what remains.
  if (reason != trace::RejectReason::kWriteFailed) {
    WriteAll(trace::Record{timestamp, tid, trace::RejectedEvent{event_type, reason}});
  }
  return 0;
}

std::optional<trace::RejectReason> Collector::Submit(const trace::Event& event) {
  const uint64_t timestamp = environment_.now_ns();
  const uint32_t tid = environment_.thread_id();
  const uint32_t call = trace::CallOf(event);
  switch (WriteAll(trace::Record{timestamp, tid, event})) {
    case EventSink::Result::kOk:
      return std::nullopt;
    case EventSink::Result::kTooLarge:
      Reject(call, trace::RejectReason::kTooLarge, timestamp, tid);
      return trace::RejectReason::kTooLarge;
    case EventSink::Result::kWriteFailed:
      Reject(call, trace::RejectReason::kWriteFailed, timestamp, tid);
      return trace::RejectReason::kWriteFailed;
  }
  return trace::RejectReason::kWriteFailed;
}

bool Collector::Timeline(const trace::Event& event, uint64_t timestamp, uint32_t tid) {
  if (timeline_ == nullptr) return false;
  // As WriteAll: nothing is written after a failure to write.
  const EventSink::Result written = stopped_.load(std::memory_order_relaxed)
                                        ? EventSink::Result::kWriteFailed
                                        : timeline_->Write(trace::Record{timestamp, tid, event});
  if (written == EventSink::Result::kWriteFailed) stopped_.store(true, std::memory_order_relaxed);
  switch (written) {
    case EventSink::Result::kOk:
      return true;
    case EventSink::Result::kTooLarge:
      Reject(trace::CallOf(event), trace::RejectReason::kTooLarge, timestamp, tid);
      return false;
    case EventSink::Result::kWriteFailed:
      Reject(trace::CallOf(event), trace::RejectReason::kWriteFailed, timestamp, tid);
      return false;
  }
  return false;
}

void Collector::Refuse(uint32_t call, trace::RejectReason reason) {
  Reject(call, reason, environment_.now_ns(), environment_.thread_id());
}

int Collector::Notify(uint32_t event_type, const void* payload) {
  const uint64_t timestamp = environment_.now_ns();
  const uint32_t tid = environment_.thread_id();
  trace::Record record{timestamp, tid, trace::ShutdownEvent{}};
  if (const auto reason = DecodeEvent(event_type, payload, record.event);
      reason != trace::RejectReason::kNone) {
    return Reject(event_type, reason, timestamp, tid);
  }

  if (const auto* code = std::get_if<trace::CodeEvent>(&record.event)) {
    if (code->api_event == trace::kEventMethodInlineLoadFinished) {
      if (!inline_registry_.AddChild(code->parent_method_id, code->address, code->size)) {
        return Reject(event_type, trace::RejectReason::kInlineOverlap, timestamp, tid);
      }
    } else if (IsTopLevelLoad(code->api_event)) {
      inline_registry_.ForgetChildren(code->method_id);
    }
  } else if (const auto* unload = std::get_if<trace::UnloadEvent>(&record.event)) {
    inline_registry_.ForgetChildren(unload->method_id);
  }

  switch (WriteAll(record)) {
    case EventSink::Result::kOk:
      return 1;
    case EventSink::Result::kTooLarge:
      return Reject(event_type, trace::RejectReason::kTooLarge, timestamp, tid);
    case EventSink::Result::kWriteFailed:
      return Reject(event_type, trace::RejectReason::kWriteFailed, timestamp, tid);
  }
  return 0;
}

}  // namespace jitscope::collector
