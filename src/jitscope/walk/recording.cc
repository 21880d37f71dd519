// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/walk/recording.h"

#include <dirent.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "jitscope/base/files.h"
#include "jitscope/formats/perf_map_writer.h"
#include "jitscope/formats/pid_file_name.h"
#include "jitscope/session/perf_data_reader.h"
#include "jitscope/session/samples_file.h"
#include "jitscope/session/session_info.h"

namespace jitscope::walk {
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

// The pids of the processes with samples.
std::set<uint32_t> SampledProcesses(const session::SampleData& data) {
  return {data.samples.pids().begin(), data.samples.pids().end()};
}

// `file`: what the records were read from ("the samples file", "perf.data").
void AddSampleWarnings(const session::SampleData& data, std::string_view file,
                       std::vector<std::string>& warnings) {
  const session::SampleCounters& c = data.counters;
  if (c.lost_samples > 0) {
    warnings.push_back(fmt::format(
        "the kernel lost {} samples (its ring buffer was full); try a lower -F", c.lost_samples));
  }
  if (c.throttled > 0) {
    warnings.push_back(
        fmt::format("the kernel throttled sampling {} times (it took too much CPU time, "
                    "kernel.perf_cpu_time_max_percent); samples are missing there; try a lower -F",
                    c.throttled));
  }
  if (c.malformed_records > 0) {
    warnings.push_back(
        fmt::format("{} malformed records in {} were skipped", c.malformed_records, file));
  }
  if (c.torn_tail_bytes > 0) {
    warnings.push_back(
        fmt::format("{} ends in a torn record ({} bytes): the recorder was stopped while writing",
                    file, c.torn_tail_bytes));
  }
}

}  // namespace

std::vector<std::string> FindForeignJitFiles(const std::string& session_directory,
                                             const std::vector<session::Mapping>& mappings,
                                             const std::vector<uint32_t>& pids_without_files,
                                             const std::set<uint32_t>& elsewhere,
                                             std::vector<std::string>* missing) {
  const std::string session =
      session_directory.empty() ? std::string() : RealPath(session_directory) + "/";
  std::set<std::string> found;
  std::set<std::string> gone;
  for (const session::Mapping& mapping : mappings) {
    if (!IsJitdumpName(mapping.filename) || elsewhere.contains(mapping.pid)) continue;
    // Kept in the session when the recording ended: read there, as one of its own files.
    const std::string kept = session::KeptFileName(mapping.filename);
    if (!session.empty() && !kept.empty() && IsRegularFile(session + kept)) continue;
    const std::string path = RealPath(mapping.filename);
    if (path.empty() || !IsRegularFile(path)) {
      gone.insert(mapping.filename);
    } else if (session.empty() || !path.starts_with(session)) {
      found.insert(path);
    }
  }
  if (missing != nullptr) missing->assign(gone.begin(), gone.end());
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
      std::optional<uint32_t> pid = formats::ParseChainFileName(name, "jit-", ".jsc");
      if (!pid) pid = formats::ParseChainFileName(name, "frames-", ".jsf");
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
                                                    std::vector<std::string>& warnings,
                                                    std::vector<std::string>* missing) {
  const session::SampleData& data = recording.data;
  auto open = [&recording](const std::vector<std::string>& paths) {
    return symbolize::SourceSet::Open(paths, recording.copies_of, recording.jit_files,
                                      recording.copy_buffers);
  };
  std::optional<symbolize::SourceSet> sources;
  ASSIGN_OR_RETURN(sources, open(own_paths));
  const std::set<uint32_t> sampled = SampledProcesses(data);
  std::vector<uint32_t> without_files;
  const std::set<uint32_t> described = sources->pids();
  std::set_difference(sampled.begin(), sampled.end(), described.begin(), described.end(),
                      std::back_inserter(without_files));
  std::vector<std::string> paths = own_paths;
  for (std::string& foreign : FindForeignJitFiles(recording.session_directory, data.mappings,
                                                  without_files, recording.elsewhere, missing)) {
    paths.push_back(std::move(foreign));
  }
  for (std::string& trace : FindAttachedTraces(recording.collector_dirs, without_files)) {
    paths.push_back(std::move(trace));
  }
  if (paths.size() > own_paths.size()) {
    // The session's own files are read again with the others, once the first reading of them is
    // let go: a trace of a million methods held twice took its size again at the peak.
    sources.reset();
    base::StatusOr<symbolize::SourceSet> all = open(paths);
    if (all.ok()) {
      sources = std::move(all).value();
    } else {
      // A foreign file we cannot read must not cost the session's own JIT names.
      warnings.push_back(all.status().message());
      ASSIGN_OR_RETURN(sources, open(own_paths));
    }
  }
  for (const std::string& problem : sources->problems()) {
    warnings.push_back(problem + " (used what was readable before it)");
  }
  if (std::string refused = DescribeRejectedEvents(sources->RejectedEvents()); !refused.empty()) {
    warnings.push_back(std::move(refused));
  }
  return std::move(*sources);
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
  recording.sample_period_ns = 1'000'000;  // `jitscope record`'s default, 1 kHz
  if (auto info = session::ReadSessionInfo(session_directory); info.ok()) {
    recording.command = fmt::format("{}", fmt::join(info->command, " "));
    if (!info->command.empty()) recording.program = info->command.front();
    recording.start_time_ns = info->start_time_ns;
    recording.of_processes = info->system_wide || info->attached.size() > 1;
    if (info->system_wide) {
      // record -a: the machine is the subject; a command only timed the recording.
      for (const session::AttachedProcess& process : info->attached) {
        if (!process.collector_output_dir.empty() && !process.Elsewhere()) {
          recording.collector_dirs.push_back(process.collector_output_dir);
        }
      }
      recording.command = info->command.empty()
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
      recording.command = fmt::format("attached to {}", fmt::join(processes, ", "));
      const std::vector<std::string>& first = info->attached.front().command;
      recording.program = first.empty() ? std::string() : first.front();
    }
    NoteNamespaces(*info, session_directory, recording);
    if (info->frequency_hz > 0) recording.sample_period_ns = 1'000'000'000 / info->frequency_hz;
    recording.end = session::RecordingEndOf(session_directory, *info);
    if (recording.end == session::RecordingEnd::kCutShort) {
      recording.warnings.push_back(
          "the recording was cut short: jitscope record was killed before it ended, and the "
          "samples of its last moments are missing");
    } else if (recording.end == session::RecordingEnd::kStillRecording) {
      recording.warnings.push_back(
          "jitscope record is still recording this session: what it has written so far is "
          "shown");
    }
  } else {
    recording.warnings.push_back(info.status().message() + "; assuming 1000 Hz");
  }
}

namespace {

base::StatusOr<Recording> ReadSession(const std::string& session_directory) {
  Recording recording;
  ASSIGN_OR_RETURN(recording.data,
                   session::ReadSamplesFile(session_directory + "/" + session::kSamplesFileName));
  recording.session_directory = session_directory;
  ReadSessionDescription(recording);
  AddSampleWarnings(recording.data, "the samples file", recording.warnings);
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
  recording.command = fmt::format("{}", fmt::join(perf.command_line, " "));
  const perf_event_attr& attr = perf.attrs[perf.sampled_attr].attr;
  recording.sample_period_ns = SamplePeriodNs(attr);
  if (recording.sample_period_ns == 0) recording.sample_period_ns = 1'000'000;
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
  for (const std::string& note : perf.notes) recording.warnings.push_back(note);
  if (!perf.damage.empty()) {
    recording.warnings.push_back(perf.damage + " (used the records before it)");
  }
  if (perf.other_event_samples > 0) {
    const std::string& name = perf.attrs[perf.sampled_attr].name;
    recording.warnings.push_back(fmt::format(
        "{} samples of the recording's other events are left out: this report is of its first "
        "event, {}",
        perf.other_event_samples,
        name.empty() ? fmt::format("perf_event_attr type {}, config {:#x}", attr.type, attr.config)
                     : name));
  }
  if (perf.unknown_id_records > 0) {
    recording.warnings.push_back(
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
    recording.warnings.push_back(
        fmt::format("{} records of types jitscope does not know were "
                    "skipped ({})",
                    count, fmt::join(types, ", ")));
  }
  AddSampleWarnings(perf.data, path, recording.warnings);
  recording.data = std::move(perf.data);
  return recording;
}

}  // namespace

std::string DescribeRejectedEvents(const std::map<trace::RejectReason, uint64_t>& rejected) {
  uint64_t total = 0;
  std::string reasons;
  for (const auto& [reason, count] : rejected) {
    if (count == 0) continue;
    total += count;
    reasons += fmt::format("{}{}: {}", reasons.empty() ? "" : ", ", trace::RejectReasonName(reason),
                           count);
  }
  if (total == 0) return "";
  return fmt::format(
      "the collector refused {} event{} the JIT reported ({}); 'jitscope dump' "
      "lists them",
      total, total == 1 ? "" : "s", reasons);
}

void DescribeSessionFiles(const Recording& recording, FileIdentity& files) {
  files.SetOtherRoots(recording.other_roots);
  files.SetCopies(recording.elf_copies);
  files.SetArchive(recording.session_directory);
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
  std::vector<std::string>& warnings = recording.warnings;
  ASSIGN_OR_RETURN(symbolize::SourceSet sources,
                   OpenJitSources(own_paths, recording, warnings, &recording.missing_jit_files));
  // An exec ends the process's JIT code, when the recording's times are the JIT files' clock.
  if (!recording.latest_code) {
    for (const session::Comm& comm : data.comms) {
      if (comm.exec) sources.NoteExecs(comm.pid, {comm.time_ns});
    }
  }
  if (recording.latest_code && sources.file_count() > 0 && !data.samples.empty()) {
    warnings.push_back(
        "the recording's times are not CLOCK_MONOTONIC, the clock of JIT files (perf record "
        "without -k 1): JIT code is named by the last code loaded at its address; record with "
        "'perf record -k 1' to name it as of each sample");
  }
  return sources;
}

}  // namespace jitscope::walk
