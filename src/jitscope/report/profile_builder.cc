// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/report/profile_builder.h"

#include <dirent.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "jitscope/base/files.h"
#include "jitscope/formats/perf_map_writer.h"
#include "jitscope/formats/pid_file_name.h"
#include "jitscope/report/jit_advice.h"
#include "jitscope/report/native_symbolizer.h"
#include "jitscope/report/process_maps.h"
#include "jitscope/report/process_names.h"
#include "jitscope/report/sample_walker.h"
#include "jitscope/session/perf_data_reader.h"
#include "jitscope/session/samples_file.h"
#include "jitscope/session/session_info.h"
#include "jitscope/symbolize/source_set.h"

namespace jitscope::report {
namespace {

using base::IsRegularFile;
using base::RealPath;

// "jit-<digits>.dump", the name perf's jitdump convention gives the file.
bool IsJitdumpName(std::string_view path) {
  const size_t slash = path.rfind('/');
  std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (!name.starts_with("jit-") || !name.ends_with(".dump")) return false;
  name = name.substr(4, name.size() - 9);
  return !name.empty() &&
         std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

struct LocationHash {
  size_t operator()(const Location& l) const {
    std::hash<std::string_view> h;
    return h(l.function) ^ (h(l.module) * 31) ^ (h(l.file) * 131) ^ (size_t{l.line} << 7) ^
           (static_cast<size_t>(l.kind) << 3) ^ (l.inlined ? 1 : 0);
  }
};

struct StackHash {
  size_t operator()(const std::vector<uint32_t>& frames) const {
    size_t h = frames.size();
    for (uint32_t f : frames) h = h * 1000003u ^ f;
    return h;
  }
};

// What names the code at a user address (Builder::AppendUserFrames): for JIT code, the process,
// the region's start and load time, and the address; for other code, kNotJit, the mapping, 0 and
// the address.
struct AddressKey {
  uint64_t process = 0;
  uint64_t region = 0;
  uint64_t loaded = 0;
  uint64_t address = 0;
  bool operator==(const AddressKey&) const = default;
};
constexpr uint64_t kNotJit = uint64_t{1} << 32;  // above every pid

struct AddressKeyHash {
  size_t operator()(const AddressKey& k) const {
    size_t h = k.address;
    for (uint64_t part : {k.process, k.region, k.loaded}) {
      h = h * 1000003u ^ std::hash<uint64_t>{}(part);
    }
    return h;
  }
};

class Builder {
 public:
  Builder(const BuildOptions& options, const session::SampleData& data,
          const symbolize::SourceSet& sources, const std::string& vdso_path, bool latest_code,
          bool of_processes, const Recording& recording)
      : options_(options),
        of_processes_(of_processes),
        data_(data),
        sources_(sources),
        walker_(data, sources, vdso_path, latest_code),
        names_(data.comms, data.tasks) {
    DescribeOtherRoots(recording, walker_.files());
  }

  Profile Build() && {
    // One pass over the samples, decoding one at a time (SampleData::ForEachSample): it walks and
    // names each sample's stack and merges it with the identical ones, so nothing per sample is
    // kept, only each distinct stack. Whether stacks get a process root is decided before it.
    const uint64_t total = data_.samples.size();
    std::map<uint32_t, ProcessShare> processes;
    std::map<uint32_t, uint64_t> last_time;  // of each process's last sample
    uint64_t kept = 0;
    const bool roots = options_.process_roots && of_processes_ && WantedProcesses() > 1;
    std::vector<uint32_t> frames;
    uint64_t done = 0;
    data_.ForEachSample([&](const session::Sample& sample) {
      if (!Wanted(sample)) return;
      if (kept++ == 0) profile_.start_time_ns = sample.time_ns;
      profile_.end_time_ns = sample.time_ns;  // samples are in time order
      ProcessShare& process = processes[sample.pid];
      process.pid = sample.pid;
      ++process.samples;
      last_time[sample.pid] = sample.time_ns;
      frames.clear();
      AppendStack(sample, frames);
      if (roots) frames.push_back(ProcessRoot(sample));
      auto [it, inserted] = stack_ids_.try_emplace(frames, profile_.stacks.size());
      if (inserted) profile_.stacks.push_back(Stack{frames, 0, sample.time_ns, sample.time_ns});
      Stack& stack = profile_.stacks[it->second];
      ++stack.samples;
      stack.last_time_ns = sample.time_ns;  // samples are in time order
      if (options_.progress && ++done % 4096 == 0) options_.progress(done, total);
    });
    NameProcesses(processes, last_time);
    if (options_.progress) options_.progress(total, total);
    for (auto& [pid, process] : processes) profile_.processes.push_back(std::move(process));
    std::stable_sort(
        profile_.processes.begin(), profile_.processes.end(),
        [](const ProcessShare& a, const ProcessShare& b) { return a.samples > b.samples; });
    // Heaviest first; stable, so equal stacks keep the order they were first seen in.
    std::stable_sort(profile_.stacks.begin(), profile_.stacks.end(),
                     [](const Stack& a, const Stack& b) { return a.samples > b.samples; });
    profile_.total_samples = kept;
    profile_.filtered_out = total - kept;
    if (walker_.unwinding()) {
      profile_.unwind_stops = walker_.unwind_stats().Ends();
      profile_.guessed_walks = walker_.guessed_walks();
    }
    for (const FileIdentity::Replaced& file : walker_.files().replaced()) {
      profile_.warnings.push_back(fmt::format(
          "{}: replaced since the recording (build id {} then, {} now): its frames are left "
          "unnamed",
          file.path, file.recorded, file.now.empty() ? "none" : file.now));
    }
    if (const std::vector<std::string>& unchecked = walker_.files().unchecked();
        !unchecked.empty()) {
      profile_.warnings.push_back(fmt::format(
          "{} native files of processes that ran in a root directory of their own (a container) "
          "were not copied into the session and have no build id in the recording to show that "
          "the file at that path here is the one they ran; their frames are left unnamed "
          "(FILE+0xOFFSET): {}{}",
          unchecked.size(),
          fmt::join(unchecked.begin(), unchecked.begin() + std::min<size_t>(unchecked.size(), 3),
                    ", "),
          unchecked.size() > 3 ? ", ..." : ""));
    }
    for (const std::string& file : native_.unreadable_files()) {
      profile_.warnings.push_back(
          fmt::format("{}: not readable as ELF; its frames are unnamed", file));
    }
    for (const auto& [pid, index] : indexes_) {
      if (index->warning_count() > 0) {
        profile_.warnings.push_back(fmt::format(
            "process {}: {} notes about its JIT reports (see 'jitscope resolve'), first: {}", pid,
            index->warning_count(), index->warnings().front()));
      }
    }
    return std::move(profile_);
  }

 private:
  // How many processes have samples the report keeps. Without a --comm filter the samples'
  // processes say (SampleList::pids); with one, whether a sample is kept depends on its process's
  // name when it was taken, so each is looked at.
  size_t WantedProcesses() const {
    std::set<uint32_t> wanted;
    if (options_.comms.empty()) {
      for (const uint32_t pid : data_.samples.pids()) {
        if (options_.pids.empty() ||
            std::find(options_.pids.begin(), options_.pids.end(), pid) != options_.pids.end()) {
          wanted.insert(pid);
        }
      }
      return wanted.size();
    }
    data_.ForEachSample([&](const session::Sample& sample) {
      if (Wanted(sample)) wanted.insert(sample.pid);
    });
    return wanted.size();
  }

  bool Wanted(const session::Sample& sample) const {
    if (!options_.pids.empty() &&
        std::find(options_.pids.begin(), options_.pids.end(), sample.pid) == options_.pids.end()) {
      return false;
    }
    return options_.comms.empty() ||
           std::find(options_.comms.begin(), options_.comms.end(),
                     names_.NameAt(sample.pid, sample.time_ns)) != options_.comms.end();
  }

  // Each process by its name at its last sample, or if it had none then, at the latest sample
  // at which it had one.
  void NameProcesses(std::map<uint32_t, ProcessShare>& processes,
                     const std::map<uint32_t, uint64_t>& last_time) const {
    std::set<uint32_t> unnamed;
    for (auto& [pid, process] : processes) {
      process.name = names_.NameAt(pid, last_time.at(pid));
      if (process.name.empty()) unnamed.insert(pid);
    }
    if (unnamed.empty()) return;
    // A name is "" only for a process with no COMM before that sample (or an empty one), which
    // is rare: only then are the samples gone through again, the latest name found winning.
    data_.ForEachSample([&](const session::Sample& sample) {
      if (!unnamed.contains(sample.pid) || !Wanted(sample)) return;
      if (std::string name = names_.NameAt(sample.pid, sample.time_ns); !name.empty()) {
        processes[sample.pid].name = std::move(name);
      }
    });
  }

  uint32_t ProcessRoot(const session::Sample& sample) {
    const std::string name = names_.NameAt(sample.pid, sample.time_ns);
    return Intern(
        Location{.function = fmt::format("{} (pid {})", name.empty() ? "?" : name, sample.pid),
                 .module = "",
                 .file = "",
                 .line = 0,
                 .kind = FrameKind::kProcess,
                 .inlined = false});
  }

  void AppendStack(const session::Sample& sample, std::vector<uint32_t>& frames) {
    walker_.Walk(sample, addresses_);
    bool in_kernel = false;
    bool guessing = false;
    for (const StackAddress& address : addresses_) {
      if (address.kernel) {
        if (!in_kernel) {
          frames.push_back(
              MarkerLocation(kernel_location_, "[kernel]", "[kernel]", FrameKind::kKernel));
        }
        in_kernel = true;
        continue;
      }
      in_kernel = false;
      if (address.guessed && !guessing) {
        frames.push_back(
            MarkerLocation(guessed_location_, "[frame-pointer chain]", "", FrameKind::kGuessed));
        guessing = true;
      }
      AppendUserFrames(sample.pid, address.Lookup(), sample.time_ns, frames);
    }
  }

  // The one Location of a frame that marks a run of others ([kernel], [frame-pointer chain]),
  // interned into `id` the first time.
  uint32_t MarkerLocation(std::optional<uint32_t>& id, const char* function, const char* module,
                          FrameKind kind) {
    if (!id) id = Intern(Location{function, module, "", 0, kind, false});
    return *id;
  }

  // Appends the frames of the code at user `address`: named the first time, and copied from
  // then on, for every sample of a hot loop is at one of a few addresses and building and
  // interning their Locations again was most of a report's time (its strings hashed and
  // compared). What decides the names is the key: for JIT code, the region of code the address
  // is in (its start and load time: code loaded there later is another key) and the address;
  // for other code, the mapping and the address.
  void AppendUserFrames(uint32_t pid, uint64_t address, uint64_t time,
                        std::vector<uint32_t>& frames) {
    const session::Mapping* mapping = nullptr;
    AddressKey key;
    const bool jit = IndexFor(pid).Resolve(address, walker_.JitTime(time), resolution_);
    if (jit) {
      key = {pid, resolution_.region.start, resolution_.region.loaded, address};
    } else {
      mapping = walker_.maps().Find(pid, address, time);
      // A sample in the kernel's exec, before exec returned to the new image (it maps it, then
      // sets the registers last): the user registers are still the replaced image's, in no
      // recorded mapping. Such a frame says nothing of this process; "[unknown]" would say a
      // step went wrong. Exec has returned once a frame of the process is in its new mappings.
      const uint64_t image_mapped = walker_.maps().ImageMappedTime(pid);
      if (mapping == nullptr && (time < image_mapped || !runs_its_image_.contains(pid))) return;
      if (mapping != nullptr && time >= image_mapped) runs_its_image_.insert(pid);
      key = {kNotJit, reinterpret_cast<uintptr_t>(mapping), 0, address};
    }
    auto [it, inserted] = named_.try_emplace(key);
    if (!inserted) {
      const auto first = named_frames_.begin() + it->second.first;
      frames.insert(frames.end(), first, first + it->second.count);
      return;
    }
    const size_t before = frames.size();
    if (jit) {
      AppendJitFrames(frames);
    } else {
      AppendMappedFrames(mapping, address, frames);
    }
    it->second = {static_cast<uint32_t>(named_frames_.size()),
                  static_cast<uint32_t>(frames.size() - before)};
    named_frames_.insert(named_frames_.end(), frames.begin() + static_cast<ptrdiff_t>(before),
                         frames.end());
  }

  // The frames of the JIT code Resolve just found (resolution_).
  void AppendJitFrames(std::vector<uint32_t>& frames) {
    for (const symbolize::Frame& f : resolution_.frames) {
      if (f.inlined && !options_.inline_frames) continue;
      frames.push_back(Intern(Location{
          .function = f.name.empty() ? fmt::format("[jit 0x{:x}]", resolution_.region.start)
                                     : std::string(f.name),
          // A jitdump or perf map names no module: say at least that this is JIT code.
          .module = f.module.empty() ? std::string("[jit]") : std::string(f.module),
          .file = std::string(f.file),
          .line = f.line,
          .kind = FrameKind::kJit,
          .inlined = f.inlined}));
    }
  }

  // The frames of code that is not JIT code, at `address` in `mapping` (null: in no mapping).
  void AppendMappedFrames(const session::Mapping* mapping, uint64_t address,
                          std::vector<uint32_t>& frames) {
    if (mapping == nullptr) {
      frames.push_back(Intern(Location{"[unknown]", "", "", 0, FrameKind::kUnknown, false}));
      return;
    }
    if (IsAnonymousMemory(mapping->filename)) {
      // Not a file: there are no symbols to read, and nothing to warn about.
      frames.push_back(
          Intern(Location{"[anonymous]", mapping->filename, "", 0, FrameKind::kAnonymous, false}));
      return;
    }
    const std::string* read =
        mapping->filename.starts_with("/") ? walker_.files().FileOf(*mapping) : nullptr;
    if (read != nullptr) {
      const auto& native =
          native_.Symbolize(*read, address - mapping->start + mapping->file_offset);
      bool any = false;
      for (const Location& location : native) {
        if (location.inlined && !options_.inline_frames) continue;
        if (read == &mapping->filename) {
          frames.push_back(Intern(location));
        } else {
          // Read from a copy in the session: named by the file the process mapped.
          Location named = location;
          named.module = mapping->filename;
          frames.push_back(Intern(std::move(named)));
        }
        any = true;
      }
      if (any) return;
    }
    // "[vdso]" names itself. Code of a file that has no symbol there (a stripped program or
    // library) is named by its file offset, what `addr2line -e FILE` takes, so it stays apart
    // from other code of the file and can be looked up; "[unknown]" is kept for addresses in no
    // mapping at all, where it always means a wrong or lost step.
    if (mapping->filename == "[vdso]") {
      frames.push_back(
          Intern(Location{"[vdso]", mapping->filename, "", 0, FrameKind::kNative, false}));
      return;
    }
    const uint64_t offset = address - mapping->start + mapping->file_offset;
    const std::string_view file = mapping->filename;
    const std::string_view base = file.substr(file.rfind('/') + 1);
    frames.push_back(Intern(Location{fmt::format("{}+{:#x}", base, offset), mapping->filename, "",
                                     0, FrameKind::kNative, false}));
  }

  const symbolize::SymbolIndex& IndexFor(uint32_t pid) {
    auto [it, inserted] = indexes_.try_emplace(pid);
    if (inserted) it->second = std::make_unique<symbolize::SymbolIndex>(sources_.BuildIndex(pid));
    return *it->second;
  }

  uint32_t Intern(Location location) {
    auto [it, inserted] = location_ids_.try_emplace(location, profile_.locations.size());
    if (inserted) profile_.locations.push_back(std::move(location));
    return it->second;
  }

  const BuildOptions& options_;
  const bool of_processes_;
  const session::SampleData& data_;
  const symbolize::SourceSet& sources_;
  SampleWalker walker_;
  ProcessNames names_;
  std::vector<StackAddress> addresses_;
  NativeSymbolizer native_;
  std::map<uint32_t, std::unique_ptr<symbolize::SymbolIndex>> indexes_;
  symbolize::Resolution resolution_;
  std::unordered_map<Location, uint32_t, LocationHash> location_ids_;
  std::unordered_map<std::vector<uint32_t>, size_t, StackHash> stack_ids_;
  std::optional<uint32_t> kernel_location_;
  std::optional<uint32_t> guessed_location_;
  // The frames each user address was named with (AppendUserFrames): a run of named_frames_.
  struct Named {
    uint32_t first = 0;
    uint32_t count = 0;
  };
  std::unordered_map<AddressKey, Named, AddressKeyHash> named_;
  std::unordered_set<uint32_t> runs_its_image_;  // processes a frame was found in the image of
  std::vector<uint32_t> named_frames_;
  Profile profile_;
};

// The pids of the processes with samples.
std::set<uint32_t> SampledProcesses(const session::SampleData& data) {
  return {data.samples.pids().begin(), data.samples.pids().end()};
}

// `file`: what the records were read from ("the samples file", "perf.data").
void AddSampleWarnings(const session::SampleData& data, std::string_view file, Profile& profile) {
  const session::SampleCounters& c = data.counters;
  if (c.lost_samples > 0) {
    profile.warnings.push_back(fmt::format(
        "the kernel lost {} samples (its ring buffer was full); try a lower -F", c.lost_samples));
  }
  if (c.throttled > 0) {
    profile.warnings.push_back(
        fmt::format("the kernel throttled sampling {} times (it took too much CPU time, "
                    "kernel.perf_cpu_time_max_percent); samples are missing there; try a lower -F",
                    c.throttled));
  }
  if (c.malformed_records > 0) {
    profile.warnings.push_back(
        fmt::format("{} malformed records in {} were skipped", c.malformed_records, file));
  }
  if (c.torn_tail_bytes > 0) {
    profile.warnings.push_back(
        fmt::format("{} ends in a torn record ({} bytes): the recorder was stopped while writing",
                    file, c.torn_tail_bytes));
  }
}

}  // namespace

std::vector<std::string> FindForeignJitFiles(const std::string& session_directory,
                                             const std::vector<session::Mapping>& mappings,
                                             const std::vector<uint32_t>& pids_without_files,
                                             const std::set<uint32_t>& elsewhere) {
  const std::string session =
      session_directory.empty() ? std::string() : RealPath(session_directory) + "/";
  std::set<std::string> found;
  for (const session::Mapping& mapping : mappings) {
    if (!IsJitdumpName(mapping.filename) || elsewhere.contains(mapping.pid)) continue;
    const std::string path = RealPath(mapping.filename);
    if (!path.empty() && (session.empty() || !path.starts_with(session)) && IsRegularFile(path)) {
      found.insert(path);
    }
  }
  for (uint32_t pid : pids_without_files) {
    if (elsewhere.contains(pid)) continue;
    const std::string map = formats::PerfMapPath(pid);
    if (IsRegularFile(map)) found.insert(map);
  }
  return {found.begin(), found.end()};
}

std::vector<std::string> FindAttachedTraces(const std::vector<std::string>& collector_dirs,
                                            const std::vector<uint32_t>& pids) {
  std::set<std::string> found;
  for (const std::string& dir : collector_dirs) {
    DIR* listing = ::opendir(dir.c_str());
    if (listing == nullptr) continue;
    while (const dirent* entry = ::readdir(listing)) {
      std::string_view name = entry->d_name;
      // The collector's traces and the unwind tables libjitscope-frames.so keeps (jit-<pid>.jsc,
      // frames-<pid>.jsf; jit-<pid>.<n>.jsc when the name was taken).
      const char* prefix = name.starts_with("jit-") && name.ends_with(".jsc")      ? "jit-"
                           : name.starts_with("frames-") && name.ends_with(".jsf") ? "frames-"
                                                                                   : nullptr;
      if (prefix == nullptr) continue;
      const size_t dot = name.find('.');
      const std::optional<uint32_t> pid =
          formats::ParsePidFileName(name.substr(0, dot), prefix, "");
      if (!pid || std::find(pids.begin(), pids.end(), *pid) == pids.end()) continue;
      const std::string path = dir + "/" + std::string(name);
      if (IsRegularFile(path)) found.insert(path);
    }
    ::closedir(listing);
  }
  return {found.begin(), found.end()};
}

base::StatusOr<symbolize::SourceSet> OpenJitSources(const std::vector<std::string>& own_paths,
                                                    const Recording& recording,
                                                    std::vector<std::string>& warnings) {
  const session::SampleData& data = recording.data;
  ASSIGN_OR_RETURN(symbolize::SourceSet own,
                   symbolize::SourceSet::Open(own_paths, recording.copies_of, recording.jit_files));
  const std::set<uint32_t> sampled = SampledProcesses(data);
  std::vector<uint32_t> without_files;
  const std::set<uint32_t> described = own.pids();
  std::set_difference(sampled.begin(), sampled.end(), described.begin(), described.end(),
                      std::back_inserter(without_files));
  std::vector<std::string> paths = own_paths;
  for (std::string& foreign : FindForeignJitFiles(recording.session_directory, data.mappings,
                                                  without_files, recording.elsewhere)) {
    paths.push_back(std::move(foreign));
  }
  for (std::string& trace : FindAttachedTraces(recording.collector_dirs, without_files)) {
    paths.push_back(std::move(trace));
  }
  base::StatusOr<symbolize::SourceSet> sources =
      symbolize::SourceSet::Open(paths, recording.copies_of, recording.jit_files);
  if (!sources.ok()) {
    // A foreign file we cannot read must not cost the session's own JIT names.
    warnings.push_back(sources.status().message());
    sources = std::move(own);
  }
  for (const std::string& problem : sources->problems()) {
    warnings.push_back(problem + " (used what was readable before it)");
  }
  if (std::string refused = DescribeRejectedEvents(sources->RejectedEvents()); !refused.empty()) {
    warnings.push_back(std::move(refused));
  }
  return sources;
}

namespace {

// The processes that ran in other namespaces, and the directories of the session that hold
// their copies.
void NoteNamespaces(const session::SessionInfo& info, const std::string& session_directory,
                    Recording& recording) {
  for (const session::AttachedProcess& process : info.attached) {
    if (process.Elsewhere()) recording.elsewhere.insert(process.pid);
    if (process.own_root) recording.other_roots.insert(process.pid);
  }
  recording.copies_of = session::CopiesDirectories(session_directory, info);
  recording.elf_copies = session::ElfCopies(session_directory, info);
}

}  // namespace

void ReadSessionDescription(Recording& recording) {
  const std::string& session_directory = recording.session_directory;
  recording.vdso_path = session_directory + "/" + session::kVdsoFileName;
  Profile& profile = recording.profile;
  profile.sample_period_ns = 1'000'000;  // `jitscope record`'s default, 1 kHz
  if (auto info = session::ReadSessionInfo(session_directory); info.ok()) {
    profile.command = fmt::format("{}", fmt::join(info->command, " "));
    if (!info->command.empty()) recording.program = info->command.front();
    recording.of_processes = info->system_wide || info->attached.size() > 1;
    if (info->system_wide) {
      // record -a: the machine is the subject; a command only timed the recording.
      for (const session::AttachedProcess& process : info->attached) {
        if (!process.collector_output_dir.empty() && !process.Elsewhere()) {
          recording.collector_dirs.push_back(process.collector_output_dir);
        }
      }
      profile.command = info->command.empty()
                            ? std::string("every process (record -a)")
                            : fmt::format("every process (record -a), while {} ran",
                                          fmt::join(info->command, " "));
      recording.program.clear();
    } else if (!info->attached.empty()) {
      // record -p: the processes are the subject; a command only timed the recording.
      std::vector<std::string> processes;
      for (const session::AttachedProcess& process : info->attached) {
        processes.push_back(fmt::format("{} ({})", process.pid, fmt::join(process.command, " ")));
        if (!process.collector_output_dir.empty() && !process.Elsewhere()) {
          recording.collector_dirs.push_back(process.collector_output_dir);
        }
      }
      profile.command = fmt::format("attached to {}", fmt::join(processes, ", "));
      const std::vector<std::string>& first = info->attached.front().command;
      recording.program = first.empty() ? std::string() : first.front();
    }
    NoteNamespaces(*info, session_directory, recording);
    if (info->frequency_hz > 0) profile.sample_period_ns = 1'000'000'000 / info->frequency_hz;
  } else {
    profile.warnings.push_back(info.status().message() + "; assuming 1000 Hz");
  }
}

namespace {

base::StatusOr<Recording> ReadSession(const std::string& session_directory) {
  Recording recording;
  ASSIGN_OR_RETURN(recording.data,
                   session::ReadSamplesFile(session_directory + "/" + session::kSamplesFileName));
  recording.session_directory = session_directory;
  ReadSessionDescription(recording);
  AddSampleWarnings(recording.data, "the samples file", recording.profile);
  return recording;
}

// The time one sample stands for: 1e9 / frequency, or the period of a clock event (in ns).
uint64_t SamplePeriodNs(const perf_event_attr& attr) {
  if (attr.freq != 0) return attr.sample_freq > 0 ? 1'000'000'000 / attr.sample_freq : 0;
  const bool clock = attr.type == PERF_TYPE_SOFTWARE && (attr.config == PERF_COUNT_SW_CPU_CLOCK ||
                                                         attr.config == PERF_COUNT_SW_TASK_CLOCK);
  return clock ? attr.sample_period : 0;
}

// The vDSO image perf kept in its build-id cache (~/.debug/[vdso]/<build id>/vdso, which `perf
// record` fills unless told not to), found by the build id the recording lists for "[vdso]": its
// CFI is what unwinding out of clock_gettime needs. "" when the recording lists none (`-z` files
// lack the build-id table) or the cache does not hold it.
std::string CachedVdso(const session::PerfData& perf) {
  const char* home = std::getenv("HOME");
  if (home == nullptr) return {};
  for (const session::PerfDataBuildId& entry : perf.build_ids) {
    if (entry.filename != "[vdso]") continue;
    const std::string path = fmt::format("{}/.debug/[vdso]/{}/vdso", home, entry.build_id);
    if (IsRegularFile(path)) return path;
  }
  return {};
}

// Whether perf record was run on processes rather than one command: -a, or -p with several.
bool OfProcesses(const std::vector<std::string>& command_line) {
  for (size_t i = 0; i < command_line.size(); ++i) {
    const std::string& word = command_line[i];
    if (word == "-a" || word == "--all-cpus") return true;
    const bool pid_option = word == "-p" || word == "--pid";
    if (pid_option && i + 1 < command_line.size() &&
        command_line[i + 1].find(',') != std::string::npos) {
      return true;
    }
    if (word.starts_with("--pid=") && word.find(',') != std::string::npos) return true;
  }
  return false;
}

base::StatusOr<Recording> ReadPerfData(const std::string& path) {
  ASSIGN_OR_RETURN(session::PerfData perf, session::ReadPerfDataFile(path));
  const bool x86 =
      perf.arch.empty() || perf.arch == "x86_64" || perf.arch == "i386" || perf.arch == "i686";
  if (!x86 && (perf.data.format.layout.sample_type & PERF_SAMPLE_REGS_USER) != 0) {
    return base::Status::Error(
        "%s: recorded on %s with --call-graph dwarf; jitscope unwinds x86 registers only",
        path.c_str(), perf.arch.c_str());
  }
  Recording recording;
  Profile& profile = recording.profile;
  profile.command = fmt::format("{}", fmt::join(perf.command_line, " "));
  const perf_event_attr& attr = perf.attrs[perf.sampled_attr].attr;
  profile.sample_period_ns = SamplePeriodNs(attr);
  if (profile.sample_period_ns == 0) profile.sample_period_ns = 1'000'000;
  // The first program an exec started: what perf record ran.
  for (const session::Comm& comm : perf.data.comms) {
    if (comm.exec) {
      recording.program = comm.name;
      break;
    }
  }
  recording.latest_code = !perf.monotonic_clock;
  recording.of_processes = OfProcesses(perf.command_line);
  recording.vdso_path = CachedVdso(perf);
  // The build ids perf saw for the files with samples, so a file replaced since is caught.
  std::map<std::string, std::string> build_ids;
  for (const session::PerfDataBuildId& entry : perf.build_ids) {
    if (entry.pid != -1) build_ids.emplace(entry.filename, entry.build_id);
  }
  for (session::Mapping& mapping : perf.data.mappings) {
    if (!mapping.build_id.empty()) continue;
    if (auto it = build_ids.find(mapping.filename); it != build_ids.end()) {
      mapping.build_id = it->second;
    }
  }
  const size_t slash = path.rfind('/');
  recording.beside = slash == std::string::npos ? "." : path.substr(0, std::max<size_t>(slash, 1));
  for (const std::string& note : perf.notes) profile.warnings.push_back(note);
  if (!perf.damage.empty()) {
    profile.warnings.push_back(perf.damage + " (used the records before it)");
  }
  if (perf.other_event_samples > 0) {
    const std::string& name = perf.attrs[perf.sampled_attr].name;
    profile.warnings.push_back(fmt::format(
        "{} samples of the recording's other events are left out: this report is of its first "
        "event, {}",
        perf.other_event_samples,
        name.empty() ? fmt::format("perf_event_attr type {}, config {:#x}", attr.type, attr.config)
                     : name));
  }
  if (perf.unknown_id_records > 0) {
    profile.warnings.push_back(
        fmt::format("{} samples carry an event id no attr of the file lists; skipped",
                    perf.unknown_id_records));
  }
  if (!perf.unknown_types.empty()) {
    std::vector<std::string> types;
    uint64_t count = 0;
    for (const auto& [type, n] : perf.unknown_types) {
      types.push_back(fmt::format("type {}: {}", type, n));
      count += n;
    }
    profile.warnings.push_back(
        fmt::format("{} records of types jitscope does not know were "
                    "skipped ({})",
                    count, fmt::join(types, ", ")));
  }
  AddSampleWarnings(perf.data, path, profile);
  recording.data = std::move(perf.data);
  return recording;
}

// What to do when walks ran out of stack copy: a warning saying how many did and how to record
// more of each stack, or "" when few did (under 2%) or the copies were as large as they can be.
std::string StackCopyAdvice(const Profile& profile, uint64_t stack_size, bool perf_data) {
  uint64_t walks = 0, short_copies = 0;
  for (const auto& [reason, count] : profile.unwind_stops) {
    walks += count;
    if (reason == unwind::StopReasonName(unwind::StopReason::kStackCopyTooShort)) {
      short_copies = count;
    }
  }
  if (short_copies == 0 || short_copies * 50 < walks || stack_size >= session::kMaxStackCopySize) {
    return "";
  }
  // perf keeps every copy whole; jitscope record only those it cannot unwind while it records
  // (report/recording_unwinder.h), and of those the stack in use.
  const std::string cost =
      perf_data
          ? fmt::format(
                "every sample then takes up to {} times the disk while recording",
                stack_size == 0 ? 1 : (session::kMaxStackCopySize + stack_size - 1) / stack_size)
          : "the samples it cannot unwind while it records keep the stack in use, up to "
            "that size, on disk until it ends";
  return fmt::format(
      "{} of {} walks ({:.1f}%) ran out of the {}-byte stack copies before the thread's entry: "
      "'{} --call-graph dwarf,{}' copies more of each stack ({})",
      short_copies, walks, 100.0 * static_cast<double>(short_copies) / static_cast<double>(walks),
      stack_size, perf_data ? "perf record" : "jitscope record", session::kMaxStackCopySize, cost);
}

base::StatusOr<Profile> Build(Recording recording, const BuildOptions& options) {
  Profile& profile = recording.profile;
  const session::SampleData& data = recording.data;
  ASSIGN_OR_RETURN(symbolize::SourceSet sources,
                   OpenRecordingJitSources(recording, options.jit_sources));

  Profile built = Builder(options, data, sources, recording.vdso_path, recording.latest_code,
                          recording.of_processes, recording)
                      .Build();
  uint64_t anonymous = 0;
  for (const Stack& stack : built.stacks) {
    if (!stack.frames.empty() &&
        built.locations[stack.frames.front()].kind == FrameKind::kAnonymous) {
      anonymous += stack.samples;
    }
  }
  if (std::string unnamed =
          DescribeUnnamedJitCode(anonymous, built.total_samples, recording.program, data.mappings);
      !unnamed.empty()) {
    built.warnings.push_back(std::move(unnamed));
  }
  if (std::string advice =
          StackCopyAdvice(built, data.format.stack_size, recording.session_directory.empty());
      !advice.empty()) {
    built.warnings.push_back(std::move(advice));
  }
  built.command = std::move(profile.command);
  built.sample_period_ns = profile.sample_period_ns;
  profile.warnings.insert(profile.warnings.end(), built.warnings.begin(), built.warnings.end());
  built.warnings = std::move(profile.warnings);
  return built;
}

}  // namespace

void DescribeOtherRoots(const Recording& recording, FileIdentity& files) {
  files.SetOtherRoots(recording.other_roots);
  files.SetCopies(recording.elf_copies);
}

base::StatusOr<Recording> ReadRecording(const std::string& input) {
  if (IsRegularFile(input) && !session::LooksLikePerfData(input)) {
    return base::Status::Error(
        "%s: neither a session directory (jitscope record) nor a perf.data file (perf record)",
        input.c_str());
  }
  return IsRegularFile(input) ? ReadPerfData(input) : ReadSession(input);
}

base::StatusOr<symbolize::SourceSet> OpenRecordingJitSources(
    Recording& recording, const std::vector<std::string>& extra_paths) {
  const session::SampleData& data = recording.data;
  std::vector<std::string> own_paths = extra_paths;
  if (!recording.session_directory.empty()) {
    own_paths.insert(own_paths.begin(), recording.session_directory);
  } else {
    // A collector started without JITSCOPE_OUTPUT_DIR writes its trace into the working
    // directory, which is where perf record leaves perf.data too (with the later files of a
    // bounded trace's chain).
    const std::set<uint32_t> sampled = SampledProcesses(data);
    for (std::string& trace :
         FindAttachedTraces({recording.beside}, {sampled.begin(), sampled.end()})) {
      own_paths.push_back(std::move(trace));
    }
  }
  std::vector<std::string>& warnings = recording.profile.warnings;
  ASSIGN_OR_RETURN(symbolize::SourceSet sources, OpenJitSources(own_paths, recording, warnings));
  if (recording.latest_code && sources.file_count() > 0 && !data.samples.empty()) {
    warnings.push_back(
        "the recording's times are not CLOCK_MONOTONIC, the clock of JIT files (perf record "
        "without -k 1): JIT code is named by the last code loaded at its address; record with "
        "'perf record -k 1' to name it as of each sample");
  }
  return sources;
}

base::StatusOr<Profile> BuildProfile(const std::string& input, const BuildOptions& options) {
  ASSIGN_OR_RETURN(Recording recording, ReadRecording(input));
  return Build(std::move(recording), options);
}

}  // namespace jitscope::report
