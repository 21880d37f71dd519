// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/symbolize/source_set.h"

#include <fcntl.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <system_error>
#include <tuple>
#include <variant>

#include "jitscope/base/files.h"
#include "jitscope/formats/captured_code.h"
#include "jitscope/formats/perf_map_reader.h"
#include "jitscope/symbolize/importers.h"
#include "jitscope/trace/chain.h"
#include "jitscope/trace/reader.h"
#include "jitscope/trace/record_stream.h"

namespace jitscope::symbolize {

const char* SourceFormatName(SourceFormat format) {
  switch (format) {
    case SourceFormat::kTrace:
      return "jitscope trace";
    case SourceFormat::kJitdump:
      return "perf jitdump";
    case SourceFormat::kPerfMap:
      return "perf map";
    case SourceFormat::kOprofileDump:
      return "OProfile dump";
    case SourceFormat::kRegisteredFrames:
      return "registered unwind tables";
    case SourceFormat::kJvmTable:
      return "JVM table";
    case SourceFormat::kCapturedCode:
      return "code read from a running process";
  }
  return "?";
}

// A native trace. Its records are not held: they are read again, in time order, at each walk
// (trace/record_stream.h). A trace of a million methods held ~370 MB of records, twice the index.
struct StreamedTrace {
  trace::RecordStream stream;
  trace::TraceHeaderInfo header;
  // The file it continues is among the sources: the records repeating that file's are left out
  // (ResolveChains).
  bool drop_repeats = false;

  void ForEach(const RecordVisitor& visit) const {
    stream.ForEach([&](const trace::Record& record) {
      if (!(drop_repeats && record.snapshot)) visit(record);
    });
  }
  RecordWalk Walk() const {
    return [this](const RecordVisitor& visit) { ForEach(visit); };
  }
};

struct SourceSet::File {
  std::string path;
  std::string directory;                    // its directory, links resolved (RealDirectory)
  std::optional<base::MappedFile> mapping;  // what `parsed` points into
  std::optional<uint32_t> pid;
  std::variant<formats::ParsedJitdump, formats::ParsedPerfMap, formats::ParsedOprofileDump,
               formats::ParsedRegisteredFrames, formats::ParsedJvmTable,
               formats::ParsedCapturedCode, StreamedTrace>
      parsed;
};

SourceSet::SourceSet() = default;
SourceSet::SourceSet(SourceSet&&) noexcept = default;
SourceSet& SourceSet::operator=(SourceSet&&) noexcept = default;
SourceSet::~SourceSet() = default;

namespace {

std::optional<SourceFormat> Detect(std::span<const uint8_t> bytes) {
  if (trace::LooksLikeTrace(bytes)) return SourceFormat::kTrace;
  if (formats::LooksLikeJitdump(bytes)) return SourceFormat::kJitdump;
  if (formats::LooksLikeOprofileDump(bytes)) return SourceFormat::kOprofileDump;
  if (formats::LooksLikeRegisteredFrames(bytes)) return SourceFormat::kRegisteredFrames;
  if (formats::LooksLikeJvmTable(bytes)) return SourceFormat::kJvmTable;
  if (formats::LooksLikeCapturedCode(bytes)) return SourceFormat::kCapturedCode;
  if (formats::LooksLikePerfMap(bytes)) return SourceFormat::kPerfMap;
  return std::nullopt;
}

// How much of a file found in a directory is read to tell whether it is a JIT file, before it is
// copied whole: every format but the perf map is told by its first 8 bytes, a perf map by its first
// line.
constexpr size_t kDetectPrefix = 4096;

// Whether the file at `path` may be one Detect() knows, by its first bytes: false only when they
// show it is not (the first line is whole in them, or they are the whole file). A file that does
// not read says true: copying it reports why.
bool MayBeSource(const std::string& path) {
  const base::ScopedFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return true;
  std::array<char, kDetectPrefix> prefix;
  const base::StatusOr<size_t> read = base::ReadUpTo(fd.get(), prefix, path);
  if (!read.ok()) return true;
  const size_t size = *read;
  const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(prefix.data()), size);
  if (Detect(bytes)) return true;
  // Undecided: a first line longer than the prefix, which only the whole file can tell about.
  return size == prefix.size() && std::find(bytes.begin(), bytes.end(), '\n') == bytes.end();
}

std::string Directory(const std::string& path) {
  return std::filesystem::path(path).lexically_normal().parent_path().string();
}

// The directory of `path` with its links resolved and made absolute, so that two names of one
// directory are one: `report perf.data` finds the collector's trace as ./jit-<pid>.jsc and its
// jitdump by the absolute path perf recorded, and a trace supersedes the companions beside it.
std::string RealDirectory(const std::string& path) {
  const std::string lexical = Directory(path);
  const std::string real = base::RealPath(lexical.empty() ? "." : lexical);
  return real.empty() ? lexical : real;
}

}  // namespace

base::Status SourceSet::Add(const std::string& path, bool explicit_path,
                            const std::map<std::string, uint32_t>& directory_pids,
                            FileHolding holding, base::CopyBuffers* buffers) {
  // A copy is made only of what may be a JIT file: record's unwinding while it records reads its
  // session's directory, which holds the samples file it is writing (gigabytes, in the end).
  if (holding == FileHolding::kCopied && !explicit_path && !MayBeSource(path)) {
    return base::Status::Ok();
  }
  ASSIGN_OR_RETURN(base::MappedFile mapping, holding == FileHolding::kCopied
                                                 ? base::MappedFile::Copy(path, buffers)
                                                 : trace::HoldFile(path));
  const std::span<const uint8_t> bytes(mapping.data(), mapping.size());
  const auto format = Detect(bytes);
  if (!format) {
    if (!explicit_path) return base::Status::Ok();
    return base::Status::Error("%s: not a jitscope trace, perf jitdump, perf map or OProfile dump",
                               path.c_str());
  }
  auto file = std::make_unique<File>();
  file->path = path;
  file->directory = RealDirectory(path);
  base::Status damage;
  switch (*format) {
    case SourceFormat::kTrace: {
      ASSIGN_OR_RETURN(trace::RecordStream stream, trace::RecordStream::Open(bytes));
      file->pid = stream.header().pid;
      if (!stream.damage().ok()) {
        damage = base::Status::Error("%s: %s", path.c_str(), stream.damage().message().c_str());
      }
      const trace::TraceHeaderInfo header = stream.header();
      file->parsed = StreamedTrace{std::move(stream), header};
      break;
    }
    case SourceFormat::kJitdump: {
      ASSIGN_OR_RETURN(formats::ParsedJitdump parsed, formats::ParseJitdump(bytes, path));
      file->pid = parsed.header.pid;
      damage = parsed.error;
      file->parsed = std::move(parsed);
      break;
    }
    case SourceFormat::kPerfMap: {
      formats::ParsedPerfMap parsed = formats::ParsePerfMap(mapping.bytes(), path);
      file->pid = formats::PerfMapPid(path);
      damage = parsed.error;
      if (damage.ok() && parsed.torn_tail_bytes > 0) {
        damage = base::Status::Error(
            "%s: its last line (%llu bytes) has no newline: it was cut short while it was "
            "written, and is left out",
            path.c_str(), static_cast<unsigned long long>(parsed.torn_tail_bytes));
      }
      file->parsed = std::move(parsed);
      break;
    }
    case SourceFormat::kOprofileDump: {
      ASSIGN_OR_RETURN(formats::ParsedOprofileDump parsed, formats::ParseOprofileDump(bytes, path));
      file->pid = formats::OprofileDumpPid(path);
      damage = parsed.error;
      file->parsed = std::move(parsed);
      break;
    }
    case SourceFormat::kRegisteredFrames: {
      ASSIGN_OR_RETURN(formats::ParsedRegisteredFrames parsed,
                       formats::ParseRegisteredFrames(bytes, path));
      file->pid = parsed.pid;
      damage = parsed.error;
      file->parsed = std::move(parsed);
      break;
    }
    case SourceFormat::kJvmTable: {
      ASSIGN_OR_RETURN(formats::ParsedJvmTable parsed, formats::ParseJvmTable(bytes, path));
      file->pid = parsed.pid;
      damage = parsed.error;
      file->parsed = std::move(parsed);
      break;
    }
    case SourceFormat::kCapturedCode: {
      ASSIGN_OR_RETURN(formats::ParsedCapturedCode parsed, formats::ParseCapturedCode(bytes, path));
      file->pid = parsed.pid;
      damage = parsed.error;
      file->parsed = std::move(parsed);
      break;
    }
  }
  if (auto owner = directory_pids.find(Directory(path)); owner != directory_pids.end()) {
    file->pid = owner->second;
  }
  if (!damage.ok()) problems_.push_back(damage.message());
  file->mapping = std::move(mapping);
  files_.push_back(std::move(file));
  return base::Status::Ok();
}

base::StatusOr<SourceSet> SourceSet::Open(const std::vector<std::string>& paths,
                                          const std::map<std::string, uint32_t>& directory_pids,
                                          FileHolding holding, base::CopyBuffers* buffers) {
  std::map<std::string, uint32_t> normal_pids;
  for (const auto& [dir, pid] : directory_pids) {
    normal_pids.emplace(std::filesystem::path(dir).lexically_normal().string(), pid);
  }
  SourceSet set;
  for (const std::string& path : paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
      std::vector<std::string> found;
      auto options = std::filesystem::directory_options::skip_permission_denied;
      for (auto it = std::filesystem::recursive_directory_iterator(path, options, ec);
           !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_regular_file(ec)) found.push_back(it->path().string());
      }
      if (ec) return base::Status::Errno(ec.value(), "%s: cannot list the directory", path.c_str());
      std::sort(found.begin(), found.end());
      for (const std::string& file : found) {
        RETURN_IF_ERROR(set.Add(file, false, normal_pids, holding, buffers));
      }
    } else {
      RETURN_IF_ERROR(set.Add(path, true, normal_pids, holding, buffers));
    }
  }
  set.ResolveChains();
  return set;
}

// A later file of a chain repeats the live records of the files before it. With the file it
// continues among the sources, the repeats are dropped (that file, and those before it, hold the
// originals, with their true times and threads); without it they stand in for it.
void SourceSet::ResolveChains() {
  std::set<std::tuple<std::string, uint32_t, std::string>> traces;  // (directory, pid, name)
  for (const auto& file : files_) {
    if (std::holds_alternative<StreamedTrace>(file->parsed) && file->pid) {
      traces.emplace(file->directory, *file->pid,
                     std::filesystem::path(file->path).filename().string());
    }
  }
  for (const auto& file : files_) {
    auto* parsed = std::get_if<StreamedTrace>(&file->parsed);
    if (parsed == nullptr || !file->pid) continue;
    trace::ChainPosition position;
    parsed->ForEach(
        [&position](const trace::Record& record) { trace::NoteChainPosition(record, position); });
    if (!position.continues) continue;
    if (traces.contains({file->directory, *file->pid, position.previous_name})) {
      parsed->drop_repeats = true;
    } else if (!position.snapshot_complete) {
      problems_.push_back(
          base::Status::Error("%s: its snapshot of the live code is incomplete (the process died "
                              "while it was written) and %s, which it continues, is not among "
                              "the sources: code loaded before it may be unnamed",
                              file->path.c_str(), position.previous_name.c_str())
              .message());
    }
  }
}

std::set<uint32_t> SourceSet::pids() const {
  std::set<uint32_t> pids;
  for (const auto& file : files_) {
    if (file->pid && !std::holds_alternative<formats::ParsedCapturedCode>(file->parsed)) {
      pids.insert(*file->pid);
    }
  }
  return pids;
}

size_t SourceSet::file_count() const { return files_.size(); }

std::map<trace::RejectReason, uint64_t> SourceSet::RejectedEvents() const {
  std::map<trace::RejectReason, uint64_t> rejected;
  for (const auto& file : files_) {
    const auto* parsed = std::get_if<StreamedTrace>(&file->parsed);
    if (parsed == nullptr) continue;
    parsed->ForEach([&rejected](const trace::Record& record) {
      if (const auto* r = std::get_if<trace::RejectedEvent>(&record.event)) ++rejected[r->reason];
    });
  }
  return rejected;
}

std::vector<const SourceSet::File*> SourceSet::FilesOf(std::optional<uint32_t> pid) const {
  // A process's native trace supersedes the jitdump, perf map or OProfile dump of the same
  // process next to it (in the same directory): jitscope's collector writes those companions
  // from the very events the trace holds, so reading them too would report every load twice
  // and, lacking method ids and inline trees, override the trace's answers. The same process's
  // files elsewhere (another JIT engine's jitdump or perf map) are read as usual, and so are the
  // files that say what the trace does not (registered unwind tables, the JVM table).
  std::set<std::pair<std::string, uint32_t>> traced;  // (directory, pid)
  for (const auto& file : files_) {
    if (std::holds_alternative<StreamedTrace>(file->parsed) && file->pid) {
      traced.emplace(file->directory, *file->pid);
    }
  }
  std::vector<const File*> files;
  for (const auto& file : files_) {
    if (pid && file->pid && *file->pid != *pid) continue;
    const bool companion = std::holds_alternative<formats::ParsedJitdump>(file->parsed) ||
                           std::holds_alternative<formats::ParsedPerfMap>(file->parsed) ||
                           std::holds_alternative<formats::ParsedOprofileDump>(file->parsed);
    if (companion && file->pid && traced.contains({file->directory, *file->pid})) {
      continue;
    }
    files.push_back(file.get());
  }
  return files;
}

void SourceSet::NoteExecs(uint32_t pid, std::vector<uint64_t> times) {
  std::vector<uint64_t>& noted = noted_execs_[pid];
  noted.insert(noted.end(), times.begin(), times.end());
}

SourceSet::Images SourceSet::ImagesOf(std::optional<uint32_t> pid,
                                      const std::vector<const File*>& files) const {
  // An image is known by its pid and the id its traces' headers carry (all the files of a chain
  // carry their image's); traces without one (written before the header said) are one image.
  // Its start is its earliest trace's: the exec came before, as close before as can be known
  // without a recording's COMM records.
  std::map<std::pair<uint32_t, std::array<uint8_t, 16>>, uint64_t> starts;
  for (const File* file : files) {
    if (const auto* t = std::get_if<StreamedTrace>(&file->parsed)) {
      auto [it, inserted] =
          starts.try_emplace({t->header.pid, t->header.image}, t->header.start_monotonic_ns);
      if (!inserted) it->second = std::min(it->second, t->header.start_monotonic_ns);
    }
  }
  std::vector<std::pair<uint64_t, std::pair<uint32_t, std::array<uint8_t, 16>>>> by_start;
  for (const auto& [key, start] : starts) by_start.emplace_back(start, key);
  std::sort(by_start.begin(), by_start.end());
  Images images;
  images.count = static_cast<uint32_t>(by_start.size());
  std::set<uint32_t> pids;
  for (const auto& [start, key] : by_start) pids.insert(key.first);
  // Execs end code of one process only: of several processes together, none is applied.
  const std::optional<uint32_t> process = pid                ? pid
                                          : pids.size() == 1 ? std::optional(*pids.begin())
                                                             : std::nullopt;
  if (process) {
    std::set<uint32_t> seen;
    for (const auto& [start, key] : by_start) {
      if (!seen.insert(key.first).second) images.exec_times.push_back(start);
    }
    if (auto noted = noted_execs_.find(*process); noted != noted_execs_.end()) {
      images.exec_times.insert(images.exec_times.end(), noted->second.begin(), noted->second.end());
    }
    std::sort(images.exec_times.begin(), images.exec_times.end());
  }
  for (const File* file : files) {
    if (const auto* t = std::get_if<StreamedTrace>(&file->parsed)) {
      const auto key = std::make_pair(t->header.pid, t->header.image);
      const auto it = std::find_if(by_start.begin(), by_start.end(),
                                   [&](const auto& image) { return image.second == key; });
      images.image_of[file] = static_cast<uint32_t>(it - by_start.begin());
    }
  }
  return images;
}

SymbolIndex SourceSet::BuildIndex(std::optional<uint32_t> pid) const {
  CodeArch native = CodeArch::k64;
  for (const auto& file : files_) {
    if (const auto* t = std::get_if<StreamedTrace>(&file->parsed)) {
      native = NativeArch(t->header.pointer_size);
    }
  }
  IndexBuilder builder(native);
  const std::vector<const File*> files = FilesOf(pid);
  const Images images = ImagesOf(pid, files);
  // Before any load: a load at the very time of an exec is the new program's.
  for (uint64_t time : images.exec_times) builder.AddExec(time);
  // The first image keeps space 0, the Intel API's method ids of the process; the others, whose
  // ids start over, get their own.
  std::vector<uint32_t> id_spaces(images.count, 0);
  for (uint32_t image = 1; image < images.count; ++image) id_spaces[image] = builder.NewIdSpace();
  for (const File* file : files) {
    std::visit(
        [&](const auto& parsed) {
          using T = std::decay_t<decltype(parsed)>;
          if constexpr (std::is_same_v<T, StreamedTrace>) {
            ImportTrace(parsed.Walk(), parsed.stream.stats().records, builder,
                        id_spaces[images.image_of.at(file)]);
          } else if constexpr (std::is_same_v<T, formats::ParsedJitdump>) {
            ImportJitdump(parsed, builder);
          } else if constexpr (std::is_same_v<T, formats::ParsedPerfMap>) {
            ImportPerfMap(parsed, builder);
          } else if constexpr (std::is_same_v<T, formats::ParsedOprofileDump>) {
            ImportOprofileDump(parsed, builder);
          } else if constexpr (std::is_same_v<T, formats::ParsedJvmTable>) {
            // Method*s are the process's own addresses: a table's scopes are named from the
            // tables of its process only.
            if (file->pid) ImportJvmTable(parsed, JavaMethodsOf(*file->pid), builder);
          }  // registered unwind tables and code read from a process name nothing
        },
        file->parsed);
  }
  return std::move(builder).Build();
}

uint32_t SourceSet::PointerSize(uint32_t pid) const {
  for (const auto& file : files_) {
    const auto* t = std::get_if<StreamedTrace>(&file->parsed);
    if (t != nullptr && file->pid == pid) return t->header.pointer_size == 4 ? 4 : 8;
  }
  return 8;
}

namespace {

// The records of `traces` in time order (of equal times, in the order of the traces). One trace
// is walked as it is read; the records of several are gathered and sorted.
void WalkInTimeOrder(const std::vector<const StreamedTrace*>& traces,
                     const trace::RecordVisitor& visit) {
  if (traces.size() == 1) {
    traces.front()->ForEach(visit);
    return;
  }
  std::vector<trace::Record> records;
  for (const StreamedTrace* t : traces) {
    t->ForEach([&records](const trace::Record& record) { records.push_back(record); });
  }
  std::stable_sort(
      records.begin(), records.end(),
      [](const trace::Record& a, const trace::Record& b) { return a.timestamp < b.timestamp; });
  for (const trace::Record& record : records) visit(record);
}

}  // namespace

void SourceSet::ForEachTraceRecord(uint32_t pid, const trace::RecordVisitor& visit) const {
  // The native traces of one process (several when they are a chain) are one history: a method
  // loaded in one file may be unloaded, or get another region, in the next.
  std::vector<const StreamedTrace*> traces;
  for (const File* file : FilesOf(pid)) {
    if (const auto* t = std::get_if<StreamedTrace>(&file->parsed)) traces.push_back(t);
  }
  WalkInTimeOrder(traces, visit);
}

std::vector<const formats::JitdumpRecord*> SourceSet::JitdumpRecords(uint32_t pid) const {
  std::vector<const formats::JitdumpRecord*> records;
  for (const File* file : FilesOf(pid)) {
    if (const auto* d = std::get_if<formats::ParsedJitdump>(&file->parsed)) {
      for (const formats::JitdumpRecord& record : d->records) records.push_back(&record);
    }
  }
  return records;
}

CodeHistory SourceSet::BuildCodeHistory(uint32_t pid) const {
  CodeHistory history;
  // The native traces of one program image (several when they are a chain) are one history: a
  // method loaded in one file may be unloaded, or get another region, in the next. Another image
  // (after an exec) numbers its methods anew: a history of its own.
  const std::vector<const File*> files = FilesOf(pid);
  const Images images = ImagesOf(pid, files);
  std::vector<std::vector<const StreamedTrace*>> traces(images.count);
  std::vector<formats::CodeRange> functions;  // the perf maps', in file order
  for (const File* file : files) {
    if (const auto* t = std::get_if<StreamedTrace>(&file->parsed)) {
      traces[images.image_of.at(file)].push_back(t);
    }
    if (const auto* d = std::get_if<formats::ParsedJitdump>(&file->parsed)) history.Add(*d);
    if (const auto* o = std::get_if<formats::ParsedOprofileDump>(&file->parsed)) history.Add(*o);
    if (const auto* m = std::get_if<formats::ParsedPerfMap>(&file->parsed)) {
      for (const formats::PerfMapEntry& entry : m->entries) {
        if (entry.start + entry.size > entry.start) {
          functions.push_back({entry.start, entry.start + entry.size});
        }
      }
    }
  }
  for (const std::vector<const StreamedTrace*>& image : traces) {
    history.Add([&image](const trace::RecordVisitor& visit) { WalkInTimeOrder(image, visit); });
  }
  for (uint64_t time : images.exec_times) history.AddExec(time);
  // After AddExec: a captured version's time bounds come from the reads themselves.
  // Not FilesOf: a native trace beside them supersedes nothing of theirs.
  std::vector<formats::CodeRead> reads;
  for (const auto& file : files_) {
    const auto* captured = std::get_if<formats::ParsedCapturedCode>(&file->parsed);
    if (captured == nullptr || file->pid != pid) continue;
    reads.insert(reads.end(), captured->reads.begin(), captured->reads.end());
  }
  if (!reads.empty() && !functions.empty()) history.AddCaptured(functions, reads);
  return history;
}

namespace {

// glibc flushes a stdio stream's buffer whole, and writes what overflows it in whole buffers; a
// buffer's size is a multiple of this (st_blksize, or the engine's own: V8's is megabytes).
constexpr uint64_t kStdioBlock = 4096;

// Whether the engine writes `jitdump` (`size` bytes) record by record, each as it loads the code
// (LLVM's listener flushes after each object): then the file ends where a record ends, and a
// multiple of a stdio block only by chance. A file flushed a block at a time ends at such a
// multiple, mostly inside a record, and holds back what its buffer holds.
bool WrittenRecordByRecord(const formats::ParsedJitdump& jitdump, uint64_t size) {
  return jitdump.error.ok() && jitdump.records_end == size && size % kStdioBlock != 0;
}

}  // namespace

std::optional<uint64_t> SourceSet::WholeUpTo(uint32_t pid) const {
  std::optional<uint64_t> whole;
  for (const auto& file : files_) {
    if (file->pid != pid) continue;
    if (const auto* d = std::get_if<formats::ParsedJitdump>(&file->parsed)) {
      if (WrittenRecordByRecord(*d, file->mapping->size())) continue;
      uint64_t latest = 0;
      for (const formats::JitdumpRecord& record : d->records) {
        latest = std::max(latest, record.timestamp);
      }
      whole = std::min(whole.value_or(UINT64_MAX), latest);
    } else if (std::holds_alternative<formats::ParsedOprofileDump>(file->parsed)) {
      whole = 0;
    }
  }
  return whole;
}

std::vector<const formats::FrameRegistration*> SourceSet::RegisteredFrames(uint32_t pid) const {
  std::vector<const formats::FrameRegistration*> registrations;
  // Not FilesOf: a native trace beside them supersedes nothing of theirs.
  for (const auto& file : files_) {
    const auto* parsed = std::get_if<formats::ParsedRegisteredFrames>(&file->parsed);
    if (parsed == nullptr || file->pid != pid) continue;
    for (const formats::FrameRegistration& registration : parsed->registrations) {
      registrations.push_back(&registration);
    }
  }
  return registrations;
}

CodeStore SourceSet::BuildCodeStore(std::optional<uint32_t> pid) const {
  CodeStore store;
  for (const File* file : FilesOf(pid)) {
    std::visit(
        [&](const auto& parsed) {
          using T = std::decay_t<decltype(parsed)>;
          if constexpr (std::is_same_v<T, StreamedTrace>) {
            ImportCode(parsed.Walk(), store);
          } else if constexpr (!std::is_same_v<T, formats::ParsedPerfMap> &&
                               !std::is_same_v<T, formats::ParsedRegisteredFrames> &&
                               !std::is_same_v<T, formats::ParsedJvmTable> &&
                               !std::is_same_v<T, formats::ParsedCapturedCode>) {
            ImportCode(parsed, store);
          }
        },
        file->parsed);
  }
  // Not FilesOf, as for the history.
  for (const auto& file : files_) {
    const auto* captured = std::get_if<formats::ParsedCapturedCode>(&file->parsed);
    if (captured == nullptr || (pid && file->pid != pid)) continue;
    for (const formats::CodeRead& read : captured->reads) {
      store.Add(read.time_ns, read.address, read.bytes);
    }
  }
  return store;
}

JavaMethods SourceSet::JavaMethodsOf(uint32_t pid) const {
  JavaMethods methods;
  for (const auto& file : files_) {
    const auto* parsed = std::get_if<formats::ParsedJvmTable>(&file->parsed);
    if (parsed != nullptr && file->pid == pid) methods.Add(*parsed);
  }
  return methods;
}

namespace {

// HotSpot's name for its template interpreter's code (JvmtiExport::post_dynamic_code_generated
// for the interpreter's StubQueue; CodeCache's perf map line of its BufferBlob).
constexpr std::string_view kInterpreterName = "Interpreter";

}  // namespace

std::vector<SourceSet::CodeRange> SourceSet::InterpreterCode(uint32_t pid) const {
  std::vector<CodeRange> ranges;
  for (const auto& file : files_) {
    if (file->pid != pid) continue;
    if (const auto* t = std::get_if<StreamedTrace>(&file->parsed)) {
      t->ForEach([&ranges](const trace::Record& record) {
        if (const auto* load = std::get_if<trace::OprofileCodeLoadEvent>(&record.event)) {
          if (load->name == kInterpreterName) {
            ranges.push_back({load->address, load->size});
          }
        } else if (const auto* code = std::get_if<trace::CodeEvent>(&record.event)) {
          if (code->name == kInterpreterName) {
            ranges.push_back({code->address, code->size});
          }
        }
      });
    } else if (const auto* d = std::get_if<formats::ParsedJitdump>(&file->parsed)) {
      for (const formats::JitdumpRecord& record : d->records) {
        if (record.kind == formats::JitdumpRecordKind::kCodeLoad &&
            record.name == kInterpreterName) {
          ranges.push_back({record.code_addr, record.code_size});
        }
      }
    } else if (const auto* m = std::get_if<formats::ParsedPerfMap>(&file->parsed)) {
      for (const formats::PerfMapEntry& entry : m->entries) {
        if (entry.name == kInterpreterName) ranges.push_back({entry.start, entry.size});
      }
    }
  }
  return ranges;
}

}  // namespace jitscope::symbolize
