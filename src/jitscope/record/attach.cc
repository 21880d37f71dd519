// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/record/attach.h"

#include <linux/perf_event.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include "jitscope/record/proc_files.h"

namespace jitscope::record {
namespace {

// Generous bounds for a hostile or enormous process: a JIT may have many thousands of mappings
// (~100 bytes a line); an environment is limited by the kernel's argument space.
constexpr size_t kMaxMapsBytes = size_t{256} << 20;
constexpr size_t kMaxEnvironBytes = size_t{16} << 20;
constexpr size_t kMaxCommBytes = 4096;

base::Status Refused(const PermissionFacts& facts, pid_t pid, const base::Status& status,
                     const std::string& path) {
  if (status.errno_value() == 0) return status;
  return base::Status::Error("%s", ProcRefusal(facts, pid, path, status.errno_value()).c_str());
}

template <typename T>
void Put(std::string& bytes, const T& value) {
  bytes.append(reinterpret_cast<const char*>(&value), sizeof(value));
}

// The name NUL-terminated and padded to 8 bytes, as the kernel does, then the sample_id_all
// trailer of the session's sample_type {pid, tid, time}; the header's size is set last.
void FinishRecord(std::string& bytes, std::string_view name, uint32_t pid, uint32_t tid,
                  uint64_t time_ns) {
  bytes.append(name);
  bytes.append(8 - name.size() % 8, '\0');
  Put(bytes, pid);
  Put(bytes, tid);
  Put(bytes, time_ns);
  const uint16_t size = static_cast<uint16_t>(bytes.size());
  std::memcpy(bytes.data() + offsetof(perf_event_header, size), &size, sizeof(size));
}

// A record's size is a u16: a name longer than what fits is cut (the kernel cuts at PATH_MAX).
std::string_view FittingName(std::string_view name) {
  return name.substr(0, std::min<size_t>(name.size(), PATH_MAX - 1));
}

}  // namespace

std::string CollectorOutputDir(std::string_view environ, std::string_view working_directory) {
  if (!FindEnvironmentValue(environ, "INTEL_JIT_PROFILER64") &&
      !FindEnvironmentValue(environ, "INTEL_LIBITTNOTIFY64")) {
    return "";
  }
  std::string dir = FindEnvironmentValue(environ, "JITSCOPE_OUTPUT_DIR").value_or("");
  if (dir.empty()) dir = ".";  // the collector's default (collector/config.h)
  if (dir.starts_with('/')) return dir;
  if (working_directory.empty()) return "";
  std::string absolute(working_directory);
  if (dir == ".") return absolute;
  if (!absolute.ends_with('/')) absolute += '/';
  return absolute + dir;
}

base::StatusOr<AttachTarget> InspectProcess(pid_t pid, const PermissionFacts& facts) {
  AttachTarget target;
  target.pid = pid;
  const std::string task = ProcPath(pid, "task");
  base::StatusOr<std::vector<pid_t>> threads = ListThreads(pid);
  if (!threads.ok()) return Refused(facts, pid, threads.status(), task);
  target.threads = std::move(*threads);
  // The environment is readable only with ptrace read access, like the maps and the events:
  // reading it first turns a refusal into /proc's explanation before perf_event_open's.
  const std::string environ_path = ProcPath(pid, "environ");
  base::StatusOr<std::string> environ = ReadProcFile(environ_path, kMaxEnvironBytes);
  if (!environ.ok()) return Refused(facts, pid, environ.status(), environ_path);
  if (base::StatusOr<std::string> cmdline =
          ReadProcFile(ProcPath(pid, "cmdline"), kMaxEnvironBytes);
      cmdline.ok()) {
    target.command = SplitNulSeparated(*cmdline);
  }
  const std::string root_path = ProcPath(pid, "root");
  base::StatusOr<ProcessNamespaces> namespaces = ReadNamespaces(pid);
  if (!namespaces.ok()) return Refused(facts, pid, namespaces.status(), root_path);
  target.namespaces = *namespaces;
  char cwd[PATH_MAX];
  const ssize_t n = ::readlink(ProcPath(pid, "cwd").c_str(), cwd, sizeof(cwd) - 1);
  target.collector_output_dir = CollectorOutputDir(
      *environ, n > 0 ? std::string_view(cwd, static_cast<size_t>(n)) : std::string_view());
  return target;
}

base::StatusOr<std::vector<ProcMapping>> ReadMappings(pid_t pid, const PermissionFacts& facts) {
  const std::string maps_path = ProcPath(pid, "maps");
  base::StatusOr<std::string> maps = ReadProcFile(maps_path, kMaxMapsBytes);
  if (!maps.ok()) return Refused(facts, pid, maps.status(), maps_path);
  return std::move(ParseProcMaps(*maps).mappings);
}

base::StatusOr<std::vector<std::string>> SynthesizeExisting(pid_t pid, uint64_t time_ns,
                                                            const PermissionFacts& facts) {
  ASSIGN_OR_RETURN(std::vector<ProcMapping> mappings, ReadMappings(pid, facts));
  std::vector<std::string> records;
  const uint32_t upid = static_cast<uint32_t>(pid);
  for (const ProcMapping& mapping : mappings) {
    // The kernel reports only executable mappings to an event without mmap_data.
    if (mapping.executable) records.push_back(MakeMmap2Record(upid, upid, time_ns, mapping));
  }
  ASSIGN_OR_RETURN(std::vector<std::string> names, SynthesizeNames(pid, time_ns, facts));
  records.insert(records.end(), names.begin(), names.end());
  return records;
}

base::StatusOr<std::vector<std::string>> SynthesizeNames(pid_t pid, uint64_t time_ns,
                                                         const PermissionFacts& facts) {
  std::vector<std::string> records;
  const uint32_t upid = static_cast<uint32_t>(pid);
  base::StatusOr<std::vector<pid_t>> threads = ListThreads(pid);
  if (!threads.ok()) return Refused(facts, pid, threads.status(), ProcPath(pid, "task"));
  for (pid_t tid : *threads) {
    // A thread that ended since it was listed has no name to give.
    base::StatusOr<std::string> comm =
        ReadProcFile(ProcPath(pid, "task/" + std::to_string(tid) + "/comm"), kMaxCommBytes);
    if (!comm.ok()) continue;
    std::string_view name = *comm;
    if (name.ends_with('\n')) name.remove_suffix(1);
    records.push_back(MakeCommRecord(upid, static_cast<uint32_t>(tid), time_ns, name));
  }
  return records;
}

std::string MakeMmap2Record(uint32_t pid, uint32_t tid, uint64_t time_ns,
                            const ProcMapping& mapping) {
  std::string bytes;
  Put(bytes, perf_event_header{PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, 0});
  Put(bytes, pid);
  Put(bytes, tid);
  Put(bytes, mapping.start);
  Put(bytes, mapping.end - mapping.start);
  Put(bytes, mapping.offset);
  Put(bytes, mapping.major);
  Put(bytes, mapping.minor);
  Put(bytes, mapping.inode);
  Put(bytes, uint64_t{0});  // ino_generation: not in /proc/PID/maps
  Put(bytes, uint32_t{PROT_READ | PROT_EXEC});
  Put(bytes, uint32_t{MAP_PRIVATE});
  FinishRecord(bytes, mapping.name.empty() ? "//anon" : FittingName(mapping.name), pid, tid,
               time_ns);
  return bytes;
}

std::string MakeCommRecord(uint32_t pid, uint32_t tid, uint64_t time_ns, std::string_view name) {
  std::string bytes;
  Put(bytes, perf_event_header{PERF_RECORD_COMM, 0, 0});
  Put(bytes, pid);
  Put(bytes, tid);
  FinishRecord(bytes, FittingName(name), pid, tid, time_ns);
  return bytes;
}

}  // namespace jitscope::record
