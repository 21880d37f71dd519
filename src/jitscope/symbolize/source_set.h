// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The files a symbol index is built from. Each SOURCE is a file of any supported format — the
// native trace (jit-<pid>.jsc), a perf jitdump, a perf map, an OProfile dump, the unwind tables a
// process registered (frames-<pid>.jsf, which name nothing: the unwinder reads them), the JVM
// table of jitscope's JVMTI agent (jvm-<pid>.jsm: Java methods by Method*, compiled code's inline
// scopes), the code record read from a running process (captured-<pid>.jsr: bytes for the
// functions its perf maps name, which name nothing either) —
// recognised by its content, never its name, or a directory, searched recursively for such files
// (anything else in it, like perf inject's jitted-*.so, is passed over).
//
// Each file belongs to a process: the pid in its header (trace, jitdump) or its name
// (perf-<pid>.map, <pid>.dump). The index is per process; files whose pid is unknown join any.
//
// The files of a chain (jit-<pid>.jsc, jit-<pid>.1.jsc, ...: a trace bounded by
// JITSCOPE_MAX_SIZE) are read together; any later part of a chain stands alone too, its snapshot
// naming the code that was live when it began (trace/chain.h).
//
// A damaged file contributes what was readable before the damage; the damage is reported in
// `problems()` with the file name and offset.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "jitscope/base/files.h"
#include "jitscope/base/status.h"
#include "jitscope/formats/registered_frames.h"
#include "jitscope/symbolize/code_history.h"
#include "jitscope/symbolize/code_store.h"
#include "jitscope/symbolize/java_methods.h"
#include "jitscope/symbolize/symbol_index.h"
#include "jitscope/trace/event.h"
#include "jitscope/trace/record_stream.h"

namespace jitscope::symbolize {

enum class SourceFormat {
  kTrace,
  kJitdump,
  kPerfMap,
  kOprofileDump,
  kRegisteredFrames,
  kJvmTable,
  kCapturedCode
};
const char* SourceFormatName(SourceFormat format);

// How a set holds its files' bytes: mapped (but the trace of a process that still runs copied,
// trace::HoldFile), or all copied into memory while their writers run (record's unwinding while
// it records, which opens them as they are written): the collector cuts its trace short at exit,
// and reading a mapping's cut-off pages would raise SIGBUS.
enum class FileHolding { kMapped, kCopied };

class SourceSet {
 public:
  // Opens and parses every source. Fails when a path does not exist, or a file named
  // explicitly is of no supported format or cannot be parsed at all. A file found in a directory
  // of `directory_pids` belongs to that pid, whatever its header or name says: the copies record
  // keeps of a process in another pid namespace carry its pid there (record/container_files.h).
  // Copies (kCopied) are read into `buffers`' memory, when given.
  static base::StatusOr<SourceSet> Open(const std::vector<std::string>& paths,
                                        const std::map<std::string, uint32_t>& directory_pids = {},
                                        FileHolding holding = FileHolding::kMapped,
                                        base::CopyBuffers* buffers = nullptr);

  SourceSet(SourceSet&&) noexcept;
  SourceSet& operator=(SourceSet&&) noexcept;
  ~SourceSet();

  // The pids whose code the sources name (files with no known pid are not counted, nor the code
  // record read from a process, which names nothing: its perf map does).
  std::set<uint32_t> pids() const;
  size_t file_count() const;
  // "FILE: offset N: ..." for every damaged source, in the order the files were read.
  const std::vector<std::string>& problems() const { return problems_; }

  // The events the collector refused (the REJECTED records of every native trace), by reason.
  std::map<trace::RejectReason, uint64_t> RejectedEvents() const;

  // Times at which process `pid` exec'd (a recording's COMM records of an exec). An exec ends
  // the process's JIT history: no code reported before it names code after it.
  void NoteExecs(uint32_t pid, std::vector<uint64_t> times);

  // The index of process `pid` (nullopt: all sources together). A process that exec'd into
  // another program that reports JIT code too has native traces of several program images (the
  // trace header says which); each image's method ids are its own, and the start of each image's
  // trace, and each exec noted, ends the code before it.
  SymbolIndex BuildIndex(std::optional<uint32_t> pid) const;
  // The size of a pointer in process `pid`, 4 or 8, as its native trace says; 8 without one
  // (jitdumps, perf maps and OProfile dumps are read as x86-64).
  uint32_t PointerSize(uint32_t pid) const;
  // The code bytes of process `pid` (nullopt: all sources), from the same files as its index and
  // the code record read from it. The store points into this set's files.
  CodeStore BuildCodeStore(std::optional<uint32_t> pid) const;
  // Which regions make up each version of process `pid`'s JIT code, over time, from its native
  // traces and jitdumps among the same files, and from the code record read from it for the
  // functions its perf maps name (CodeHistory::AddCaptured).
  CodeHistory BuildCodeHistory(uint32_t pid) const;
  // The records of process `pid`'s native traces among the same files (a chain's files together),
  // in time order, views into this set's files. Walking them holds none when the process has one
  // trace (they are read again from it); the files of a chain are merged in memory.
  void ForEachTraceRecord(uint32_t pid, const trace::RecordVisitor& visit) const;
  // The CODE_LOAD and CODE_MOVE records of process `pid`'s jitdumps among the same files, in the
  // order of the files and, in each, of the records.
  std::vector<const formats::JitdumpRecord*> JitdumpRecords(uint32_t pid) const;
  // While process `pid` still runs: the time up to which the JIT files its engine writes are known
  // to be whole; nullopt when they are whole as they stand. The collector's trace and the
  // registered unwind tables are written as the events happen, and so is a jitdump its engine
  // writes record by record (LLVM's listener flushes each object's): such a file ends where a
  // record ends, at no multiple of 4 KiB. A jitdump written through a stdio buffer (V8's) is
  // flushed a block at a time, so it ends at a multiple of 4 KiB, mostly inside a record, and
  // code its engine loaded since may not be in it yet: it is whole up to its latest record. An
  // OProfile dump's times are whole seconds of another clock: 0.
  std::optional<uint64_t> WholeUpTo(uint32_t pid) const;
  // The unwind tables process `pid` registered with __register_frame (files of
  // formats/registered_frames.h), in the order of its files and, in each, of registration. They
  // point into this set's files.
  std::vector<const formats::FrameRegistration*> RegisteredFrames(uint32_t pid) const;
  // The Java methods of process `pid`'s JVM tables, for naming its interpreter frames. Points
  // into this set's files.
  JavaMethods JavaMethodsOf(uint32_t pid) const;

  // Where process `pid` had HotSpot's template interpreter: the code its JIT files name exactly
  // `Interpreter` (the JVMTI agent's DynamicCodeGenerated event, as any agent's jitdump or trace
  // reports it, and HotSpot's own perf map line). The interpreter is generated once, as the JVM
  // starts, and never moves or ends: so it is the interpreter's from the JVM's start, not only
  // from the time a file reported it (the agent's report comes at VMInit, after the interpreter
  // ran the JDK's own start-up code).
  struct CodeRange {
    uint64_t start = 0;
    uint64_t size = 0;
  };
  std::vector<CodeRange> InterpreterCode(uint32_t pid) const;

 private:
  struct File;
  SourceSet();
  base::Status Add(const std::string& path, bool explicit_path,
                   const std::map<std::string, uint32_t>& directory_pids, FileHolding holding,
                   base::CopyBuffers* buffers);
  void ResolveChains();
  // The files an index of `pid` reads, in order.
  std::vector<const File*> FilesOf(std::optional<uint32_t> pid) const;
  // The program images of the native traces among `files`, oldest first, and when the process
  // exec'd (the start of each image's traces but the first, and the execs noted).
  struct Images {
    std::map<const File*, uint32_t> image_of;  // trace → its image
    uint32_t count = 0;
    std::vector<uint64_t> exec_times;
  };
  Images ImagesOf(std::optional<uint32_t> pid, const std::vector<const File*>& files) const;

  std::vector<std::unique_ptr<File>> files_;
  std::vector<std::string> problems_;
  std::map<uint32_t, std::vector<uint64_t>> noted_execs_;  // pid → exec times
};

}  // namespace jitscope::symbolize
