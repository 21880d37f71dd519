// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/walk/recording_unwinder.h"

#include <linux/perf_event.h>

#include <cstdlib>
#include <map>
#include <utility>
#include <variant>

#include "jitscope/walk/recording.h"
#include "jitscope/walk/sample_walker.h"
#include "jitscope/walk/unwound_session.h"

namespace jitscope::walk {

uint64_t RecordingUnwinder::BatchBytesFromEnvironment() {
  const char* text = std::getenv("JITSCOPE_UNWIND_BATCH");
  if (text == nullptr || *text == '\0') return kDefaultBatchBytes;
  char* end = nullptr;
  const unsigned long long bytes = std::strtoull(text, &end, 10);
  return *end == '\0' && bytes > 0 ? bytes : kDefaultBatchBytes;
}

base::StatusOr<std::unique_ptr<RecordingUnwinder>> RecordingUnwinder::Create(
    const std::string& directory, uint64_t flags, const session::SamplesFormat& format,
    uint64_t batch_bytes, std::shared_ptr<RecordingUnwinding> done, std::set<uint32_t> elsewhere) {
  if (format.layout.unwound || (format.layout.sample_type & PERF_SAMPLE_REGS_USER) == 0) {
    return base::Status::Error("only samples with registers and stack copies are unwound");
  }
  ASSIGN_OR_RETURN(session::SamplesWriter writer,
                   session::SamplesWriter::Create(directory, flags, format));
  return std::unique_ptr<RecordingUnwinder>(
      new RecordingUnwinder(directory, flags, format, batch_bytes, std::move(writer),
                            std::move(done), std::move(elsewhere)));
}

RecordingUnwinder::RecordingUnwinder(std::string directory, uint64_t flags,
                                     const session::SamplesFormat& format, uint64_t batch_bytes,
                                     session::SamplesWriter writer,
                                     std::shared_ptr<RecordingUnwinding> done,
                                     std::set<uint32_t> elsewhere)
    : directory_(std::move(directory)),
      header_(session::EncodeSamplesHeader(flags, format)),
      layout_(format.layout),
      batch_bytes_(batch_bytes),
      writer_(std::move(writer)),
      elsewhere_(std::move(elsewhere)),
      done_(std::move(done)),
      thread_([this] { Work(); }) {}

RecordingUnwinder::~RecordingUnwinder() {
  if (thread_.joinable()) (void)Flush();
}

base::Status RecordingUnwinder::Append(std::string_view record) {
  // Room for a whole batch: growing by doubling would copy megabytes on the recorder's thread,
  // time in which the kernel's rings fill (its pages are touched only as they are written).
  if (gathering_.capacity() < batch_bytes_) gathering_.reserve(batch_bytes_ + UINT16_MAX);
  // Only the stack in use: a record carries the whole copy asked for (32 KiB) where the thread's
  // stack may hold a few hundred bytes, and copying the rest costs the recorder's thread more than
  // cutting it off.
  gathering_.append(session::CutStackCopy(record, layout_, cut_sample_, cut_));
  if (gathering_.size() >= batch_bytes_) HandOver();
  std::lock_guard lock(mutex_);
  return status_;
}

void RecordingUnwinder::HandOver() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return !waiting_.has_value(); });
  waiting_ = std::move(gathering_);
  gathering_.clear();
  changed_.notify_all();
}

base::Status RecordingUnwinder::Flush() {
  if (thread_.joinable()) {
    if (!gathering_.empty()) HandOver();
    {
      std::lock_guard lock(mutex_);
      finishing_ = true;
    }
    changed_.notify_all();
    thread_.join();
    if (done_) *done_ = counts_;
  }
  std::lock_guard lock(mutex_);
  if (status_.ok()) status_ = writer_.Flush();
  return status_;
}

base::Status RecordingUnwinder::Checkpoint() {
  std::lock_guard lock(mutex_);
  if (!gathering_.empty() && !waiting_.has_value()) {
    waiting_ = std::move(gathering_);
    gathering_.clear();
    changed_.notify_all();
  }
  return status_;
}

uint64_t RecordingUnwinder::records_bytes() const { return writer_.records_bytes(); }

void RecordingUnwinder::Work() {
  for (;;) {
    std::string batch;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [this] { return waiting_.has_value() || finishing_; });
      if (!waiting_) return;
      batch = std::move(*waiting_);
      waiting_.reset();
    }
    changed_.notify_all();
    base::Status written = Unwind(std::move(batch));
    if (written.ok()) written = writer_.Flush();
    std::lock_guard lock(mutex_);
    if (status_.ok()) status_ = written;
  }
}

base::Status RecordingUnwinder::WriteAsRecorded(std::string_view batch) {
  size_t offset = 0;
  while (const std::optional<std::string_view> record = session::RecordAt(batch, offset)) {
    offset += record->size();
    RETURN_IF_ERROR(writer_.Append(*record));
    if (session::RecordHeader(*record).type == PERF_RECORD_SAMPLE) {
      ++counts_.deferred;
    } else {
      context_.append(*record);
    }
  }
  return base::Status::Ok();
}

void RecordingUnwinder::NoteProcesses(std::string_view records) {
  size_t offset = 0;
  while (const std::optional<std::string_view> record = session::RecordAt(records, offset)) {
    offset += record->size();
    const uint32_t type = session::RecordHeader(*record).type;
    if (type != PERF_RECORD_EXIT && type != PERF_RECORD_FORK) continue;
    const base::StatusOr<session::PerfRecord> parsed = session::ParsePerfRecord(*record, layout_);
    const auto* task = parsed.ok() ? std::get_if<session::Task>(&*parsed) : nullptr;
    // A thread's own exit or start (tid != pid) ends or begins no process.
    if (task == nullptr || task->pid != task->tid) continue;
    if (task->exit) {
      ended_.insert(task->pid);
      continue;
    }
    ended_.erase(task->pid);  // its pid, recycled
    if (elsewhere_.contains(task->ppid)) {
      elsewhere_.insert(task->pid);
    } else {
      elsewhere_.erase(task->pid);
    }
  }
}

base::Status RecordingUnwinder::Unwind(std::string batch) {
  ++counts_.batches;
  // The batch behind every earlier record but samples: one samples file, whose mappings are all
  // the recording has seen up to the batch's end. The batch's records are then read from it.
  const size_t batch_start = header_.size() + context_.size();
  std::string file = header_ + context_;
  file += batch;
  batch = std::string();
  base::StatusOr<session::SampleData> data = session::ParseOwnedSamples(std::move(file));
  if (!data.ok()) return base::Status::Error("%s", data.status().message().c_str());
  Recording recording;
  recording.data = std::move(*data);
  recording.session_directory = directory_;
  ReadSessionDescription(recording);  // record -p: where the processes' collectors write
  recording.jit_files = symbolize::FileHolding::kCopied;  // their writers run
  recording.copy_buffers = &copy_buffers_;
  const std::string_view records = std::string_view(*recording.data.copy).substr(batch_start);
  NoteProcesses(records);  // whatever becomes of this batch: the later ones need to know
  base::StatusOr<symbolize::SourceSet> sources = OpenRecordingJitSources(recording, {});
  if (!sources.ok()) return WriteAsRecorded(records);
  SampleWalker walker(recording.data, *sources, recording.vdso_path, /*latest_code=*/false);
  walker.address_space().ShareModules(&modules_);
  // The files as report reads them: a session unwound again (an archived one, say) reads its
  // archive's copies.
  DescribeSessionFiles(recording, walker.files());
  SampleUnwinder unwinder(walker);
  std::map<uint32_t, std::optional<uint64_t>> whole_up_to;  // by pid

  session::Sample sample;
  std::string encoded;
  size_t offset = 0;
  while (const std::optional<std::string_view> record = session::RecordAt(records, offset)) {
    offset += record->size();
    if (session::RecordHeader(*record).type != PERF_RECORD_SAMPLE) {
      context_.append(*record);
      RETURN_IF_ERROR(writer_.Append(*record));
      continue;
    }
    bool unwound = session::ParseSampleRecord(*record, layout_, sample).ok() &&
                   !elsewhere_.contains(sample.pid);
    if (unwound) {
      auto [it, inserted] = whole_up_to.try_emplace(sample.pid);
      if (inserted && !ended_.contains(sample.pid)) it->second = sources->WholeUpTo(sample.pid);
      unwound = !it->second || sample.time_ns <= *it->second;
    }
    if (unwound) {
      const unwind::UnwindStats before = walker.unwind_stats();
      const unwind::StopReason end = unwinder.Walk(sample);
      unwound = end != unwind::StopReason::kNoRule &&
                unwinder.Encode(sample, session::RecordHeader(*record).misc,
                                session::kRecordUnwoundSample, encoded);
      if (unwound) {
        counts_.stats.Count(end);
        for (size_t i = 0; i < unwind::kRuleSourceCount; ++i) {
          counts_.stats.steps[i] += walker.unwind_stats().steps[i] - before.steps[i];
        }
        counts_.stats.walks_on_captured +=
            walker.unwind_stats().walks_on_captured - before.walks_on_captured;
      }
    }
    if (unwound) {
      ++counts_.unwound;
      RETURN_IF_ERROR(writer_.Append(encoded));
    } else {
      ++counts_.deferred;
      RETURN_IF_ERROR(writer_.Append(*record));
    }
  }
  return base::Status::Ok();
}

}  // namespace jitscope::walk
