// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/walk/unwound_session.h"

#include <linux/perf_event.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>
#include <vector>

#include "jitscope/session/samples_file.h"
#include "jitscope/walk/recording.h"
#include "jitscope/walk/sample_walker.h"

namespace jitscope::walk {

unwind::StopReason SampleUnwinder::Walk(const session::Sample& sample) {
  walker_.Walk(sample, stack_);
  return walker_.last_walk_end();
}

bool SampleUnwinder::Encode(const session::Sample& sample, uint16_t misc, uint32_t type,
                            std::string& out) {
  frames_.clear();
  for (const StackAddress& address : stack_) {
    frames_.push_back({address.pc, address.kernel, !address.returns, address.guessed});
    session::CallchainEntry& frame = frames_.back();
    if (address.interpreter) {
      frame.interpreter = true;
      frame.method = address.interpreter->method;
      frame.bcp = address.interpreter->bcp;
    }
  }
  return session::EncodeUnwoundSample(sample, frames_,
                                      static_cast<uint8_t>(walker_.last_walk_end()), misc, out,
                                      type, walker_.last_walk_on_captured());
}

namespace {

// How often a long unwinding asks whether to stop: a few milliseconds of walks.
constexpr uint64_t kSamplesPerCancelCheck = 1024;

// Writes the records of `data`'s file to `writer` in the order they were recorded, each sample
// unwound by `walker` (nullptr when every sample was unwound while recording), counting into
// `result`. Every record but a sample is copied as it is
// (its sample_id_all trailer has the same fields in both layouts).
// Whether any sample of `samples` is as recorded, not unwound already.
bool HasSamplesToWalk(const session::SampleList& samples) {
  for (size_t i = 0; i < samples.size(); ++i) {
    if (session::RecordHeader(samples.record(i)).type == PERF_RECORD_SAMPLE) return true;
  }
  return false;
}

base::Status UnwindInto(const session::SampleData& data, SampleWalker* walker,
                        const std::function<bool()>& cancelled, session::SamplesWriter& writer,
                        SessionUnwinding& result) {
  const std::string_view bytes = data.file->bytes();
  result.bytes_before = bytes.size();
  ASSIGN_OR_RETURN(const session::SamplesHeader header, session::ReadSamplesHeader(bytes));
  result.bytes_after = header.size;  // and the records the writer writes
  session::Sample sample;
  std::optional<SampleUnwinder> unwinder;
  if (walker != nullptr) unwinder.emplace(*walker);
  std::string encoded;
  size_t offset = header.size;
  size_t evicted = offset;
  while (const std::optional<std::string_view> record = session::RecordAt(bytes, offset)) {
    offset += record->size();
    if (offset - evicted >= base::MappedFile::kEvictEvery) {
      data.file->Evict(evicted, offset);
      evicted = offset;
    }
    perf_event_header record_header = session::RecordHeader(*record);
    if (record_header.type == session::kRecordUnwoundSample) {
      // Unwound while recording: the record an unwound file holds, but for its type.
      if (!session::ParseSampleRecord(*record, data.format.layout, sample).ok()) {
        ++result.dropped;
        continue;
      }
      encoded.assign(*record);
      record_header.type = PERF_RECORD_SAMPLE;
      std::memcpy(encoded.data(), &record_header, sizeof(record_header));
      if (sample.walk_end && *sample.walk_end < unwind::kStopReasonCount) {
        result.stats.Count(static_cast<unwind::StopReason>(*sample.walk_end));
      }
      if (sample.on_captured_code) ++result.stats.walks_on_captured;
      ++result.samples;
      RETURN_IF_ERROR(writer.Append(encoded));
      continue;
    }
    if (record_header.type != PERF_RECORD_SAMPLE) {
      RETURN_IF_ERROR(writer.Append(*record));
      continue;
    }
    if (cancelled && (result.samples + result.dropped) % kSamplesPerCancelCheck == 0 &&
        cancelled()) {
      return base::Status::Error("interrupted");
    }
    if (!unwinder || !session::ParseSampleRecord(*record, data.format.layout, sample).ok()) {
      ++result.dropped;
      continue;
    }
    const unwind::StopReason end = unwinder->Walk(sample);
    if (!unwinder->Encode(sample, record_header.misc, PERF_RECORD_SAMPLE, encoded)) {
      ++result.dropped;
      continue;
    }
    result.stats.Count(end);
    ++result.samples;
    RETURN_IF_ERROR(writer.Append(encoded));
  }
  return base::Status::Ok();
}

}  // namespace

base::StatusOr<SessionUnwinding> UnwindSession(const std::string& directory,
                                               const std::function<bool()>& cancelled) {
  ASSIGN_OR_RETURN(Recording recording, ReadRecording(directory));
  const session::SampleData& data = recording.data;
  if (data.format.layout.unwound) {
    return base::Status::Error("%s: its samples are unwound already", directory.c_str());
  }
  if ((data.format.layout.sample_type & PERF_SAMPLE_REGS_USER) == 0 || data.file == nullptr) {
    return base::Status::Error("%s: not a --call-graph dwarf session", directory.c_str());
  }
  // A session record unwound while recording may have no sample left to walk: then the JIT
  // files need not be read again.
  std::optional<symbolize::SourceSet> sources;
  std::optional<SampleWalker> walker;
  if (HasSamplesToWalk(data.samples)) {
    ASSIGN_OR_RETURN(sources, OpenRecordingJitSources(recording, {}));
    walker.emplace(data, *sources, recording.vdso_path, recording.latest_code);
    DescribeSessionFiles(recording, walker->files());
  }

  const std::string unwinding_path = directory + "/" + kUnwindingFileName;
  if (::unlink(unwinding_path.c_str()) != 0 && errno != ENOENT) {
    return base::Status::Errno(errno, "%s", unwinding_path.c_str());
  }
  session::SamplesFormat format;
  format.layout.unwound = true;
  format.stack_size = data.format.stack_size;
  ASSIGN_OR_RETURN(
      session::SamplesWriter writer,
      session::SamplesWriter::Create(directory, data.flags, format, kUnwindingFileName));

  SessionUnwinding result;
  base::Status written = UnwindInto(data, walker ? &*walker : nullptr, cancelled, writer, result);
  if (written.ok()) written = writer.Flush();
  if (!written.ok()) {
    // The session stays as recorded; a part of its unwinding would only take disk space.
    ::unlink(unwinding_path.c_str());
    return written;
  }
  result.bytes_after += writer.records_bytes();
  if (walker) {
    result.stats.steps = walker->unwind_stats().steps;
    result.stats.walks_on_captured += walker->unwind_stats().walks_on_captured;
  }
  const std::string samples_path = directory + "/" + session::kSamplesFileName;
  if (std::rename(unwinding_path.c_str(), samples_path.c_str()) != 0) {
    return base::Status::Errno(errno, "renaming %s to %s", unwinding_path.c_str(),
                               samples_path.c_str());
  }
  return result;
}

}  // namespace jitscope::walk
