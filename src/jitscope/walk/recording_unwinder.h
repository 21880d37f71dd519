// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// `jitscope record --call-graph dwarf` unwinds while it records, so the stack copies never pile up
// on disk: the records the recorder drains are gathered into batches (kDefaultBatchBytes, or
// JITSCOPE_UNWIND_BATCH), and a thread of its own unwinds each batch while the next one fills,
// into the samples file, where each sample it could unwind takes a few dozen bytes
// (session::kRecordUnwoundSample) instead of its registers and stack copy. When the recording
// ends, UnwindSession (unwound_session.h) unwinds the samples left as recorded and turns the file
// into an unwound one.
//
// A batch is unwound as report would unwind it: a SampleWalker over every mapping the recording
// has seen so far (the batch's records after all the earlier records but samples, parsed as one
// samples file) and the JIT files as they stand. What those files do not hold yet is left for the
// end, the sample kept as recorded:
//  - a sample of a running process whose engine writes jitdumps through a stdio buffer (V8's),
//    taken after the last record they hold: code it loaded since may not be in the file yet
//    (symbolize::SourceSet::WholeUpTo). Jitdumps written record by record (LLVM's), the
//    collector's trace and the registered unwind tables are written as the events happen, and
//    the files of a process whose exit the recording has seen are whole;
//  - a sample of a process in other namespaces (a container, under -p or -a), or one it started:
//    its files reach the session when the recording ends;
//  - a sample whose walk found no rule (code no file describes yet).
//
// The samples file holds, at every batch's end, the records so far, each sample either unwound or
// as recorded: a recorder killed meanwhile leaves a session report reads as it is. What it loses
// is what was not unwound yet: a batch is handed over when it is full, and at every checkpoint
// (session::kCheckpointIntervalNs) when no other batch waits, so that is the samples of the last
// interval and of the batch being unwound (a few milliseconds' work, when the JIT files are not
// large). A batch is not handed over more often than the unwinding thread takes them: each one
// reads the JIT files anew, though into memory kept from the batch before (base::CopyBuffers),
// and takes the ELF files' modules opened by the batches before (ModuleCache).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "jitscope/base/files.h"
#include "jitscope/base/status.h"
#include "jitscope/session/samples_file.h"
#include "jitscope/unwind/unwinder.h"
#include "jitscope/walk/module_cache.h"

namespace jitscope::walk {

// What unwinding while recording did.
struct RecordingUnwinding {
  uint64_t batches = 0;
  uint64_t unwound = 0;       // samples unwound while recording
  uint64_t deferred = 0;      // samples left for the end
  unwind::UnwindStats stats;  // of the samples unwound while recording
};

class RecordingUnwinder : public session::RecordSink {
 public:
  // 32 MiB: thousands of samples, each with the stack in use (a few KiB), a few seconds of a busy
  // recording; at most three batches are in memory (one gathered, one waiting, one unwound).
  static constexpr uint64_t kDefaultBatchBytes = 32u << 20;
  // The batch size JITSCOPE_UNWIND_BATCH (bytes) asks for, else the default.
  static uint64_t BatchBytesFromEnvironment();

  // Creates the samples file in `directory` for samples of `format` (not unwound), with `flags`.
  // `done`, if given, is filled in when Flush() has unwound the last batch. The samples of the
  // processes `elsewhere` (in other namespaces: their files reach the session when the recording
  // ends) and of the processes they start wait for the end.
  static base::StatusOr<std::unique_ptr<RecordingUnwinder>> Create(
      const std::string& directory, uint64_t flags, const session::SamplesFormat& format,
      uint64_t batch_bytes, std::shared_ptr<RecordingUnwinding> done = nullptr,
      std::set<uint32_t> elsewhere = {});
  ~RecordingUnwinder() override;

  // The recorder's thread. Blocks while two batches wait for the unwinding thread.
  base::Status Append(std::string_view record) override;
  // Unwinds what is gathered, waits for every batch and flushes the file.
  base::Status Flush() override;
  // Hands what is gathered to the unwinding thread, unless a batch waits for it already.
  base::Status Checkpoint() override;
  uint64_t records_bytes() const override;

 private:
  RecordingUnwinder(std::string directory, uint64_t flags, const session::SamplesFormat& format,
                    uint64_t batch_bytes, session::SamplesWriter writer,
                    std::shared_ptr<RecordingUnwinding> done, std::set<uint32_t> elsewhere);
  // Hands `gathering_` to the unwinding thread, waiting while another batch waits.
  void HandOver();
  void Work();
  // Unwinds `batch` (whole records) into the file.
  base::Status Unwind(std::string batch);
  // Writes `batch`'s records to the file as they are.
  base::Status WriteAsRecorded(std::string_view batch);
  // Notes the processes that `records` (a batch) end or start.
  void NoteProcesses(std::string_view records);

  const std::string directory_;
  const std::string header_;  // of a samples file as recorded: what a batch is parsed behind
  const session::SampleLayout layout_;
  const uint64_t batch_bytes_;
  // The recorder's thread's.
  std::string gathering_;
  session::Sample cut_sample_;  // CutStackCopy's scratch
  std::string cut_;

  // Between the threads.
  std::mutex mutex_;
  std::condition_variable changed_;
  std::optional<std::string> waiting_;
  bool finishing_ = false;
  base::Status status_;  // the first failure to write; then every record is dropped

  // The unwinding thread's (and Flush()'s, once it has joined).
  session::SamplesWriter writer_;
  std::string context_;  // every record but samples so far: the mappings a batch is walked in
  // The processes that have exited: their engines flushed their files (stdio does at exit).
  std::set<uint32_t> ended_;
  // The processes in other namespaces, and those they started.
  std::set<uint32_t> elsewhere_;
  // What the JIT files are copied into, and the ELF files' modules, kept from batch to batch.
  base::CopyBuffers copy_buffers_;
  ModuleCache modules_;
  RecordingUnwinding counts_;
  std::shared_ptr<RecordingUnwinding> done_;
  std::thread thread_;
};

}  // namespace jitscope::walk
