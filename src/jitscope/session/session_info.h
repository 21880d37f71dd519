// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// `session.json` of a session directory: what was recorded, so a report can say it. Written by
// `jitscope record` before the command starts; a session without it (an older one, or one
// assembled by hand) is still reported, without a title.
//
//   {"command": ["jitvm", "hotspot.jv", "1000"], "pid": 1234, "frequency_hz": 1000,
//    "start_time_ns": 123456789, "end_time_ns": 0}
//
// "end_time_ns" is 0 while the recording goes on, and when the recording ends record writes the
// file again with the time it ended: a session whose end_time_ns stays 0 was cut short (its
// recorder was killed), unless a recorder still holds it (RecordingEndOf). Sessions from before
// it have no end_time_ns, and are taken as ended.
//
// A session of running processes (`record -p`) says so in "attached": each process's pid, its
// command line and where its collector writes its trace (JITSCOPE_OUTPUT_DIR, absolute; "" when
// the process was not started with the collector), which is outside the session directory. Its
// "command" is the one given after -- to time the recording (possibly none), "pid" that
// command's (0 without one):
//
//   {"command": ["sleep", "10"], "pid": 1300, "frequency_hz": 1000, "start_time_ns": 123456789,
//    "attached": [{"pid": 1234, "command": ["jitvm", "hotspot.jv"],
//                  "collector_output_dir": "/home/me/traces"}]}
//
// A session of the whole machine (`record -a`) has "system_wide": true, and in "attached" the
// processes that were running with the collector configured when it started, and those in other
// namespaces whose JIT files were copied.
//
// What record asked of the Java VMs among the processes: "jvm_perf_map": true (--jvm-perf-map:
// their perf maps are copied into the session), "jvm_agent": true (--jvm-agent: jitscope's JVMTI
// agent was loaded into them and wrote their traces into the session). Absent: false.
//
// A process in other namespaces than record's (a container, record/container_files.h) says how:
// "ns_pid", its pid in its own pid namespace, when that differs; "own_mounts" and "own_root" when
// its mount namespace or root directory are not record's (its paths are of its namespace); and
// "copied", the JIT files record copied into the session directory (relative paths). Files under
// a directory of the session that "copied" names are that process's, whatever pid their headers
// carry:
//
//    "attached": [{"pid": 4321, "command": ["node", "app.js"], "collector_output_dir": "",
//                  "ns_pid": 1, "own_mounts": true,
//                  "copied": ["perf-4321.map", "pid-4321/jit-1.dump"]}]
//
// A process with a root directory of its own ("own_root": a container's image) has the ELF files
// its samples touched copied too (record/container_files.h, CopyElfFiles), in "elf_copies": each
// file's path in its root and where its copy is, relative to the session directory. A copy is under
// pid-<pid>/root/ at that path, or, when a process listed before had a file of the same build id
// copied, that process's copy:
//
//    "elf_copies": [{"path": "/usr/bin/node", "copy": "pid-4321/root/usr/bin/node"},
//                   {"path": "/lib/libc.so.6", "copy": "pid-4300/root/lib/libc.so.6"}]
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jitscope/base/status.h"

namespace jitscope::session {

inline constexpr char kSessionInfoFileName[] = "session.json";

// An ELF file of a process with a root directory of its own, copied into the session.
struct ElfCopy {
  std::string path;  // as the process's mappings name it, in its root
  std::string copy;  // relative to the session directory
  bool operator==(const ElfCopy&) const = default;
};

struct AttachedProcess {
  uint32_t pid = 0;
  std::vector<std::string> command;
  std::string collector_output_dir;
  uint32_t ns_pid = 0;  // its pid in its own pid namespace; 0: the same as `pid`
  bool own_mounts = false;
  bool own_root = false;
  std::vector<std::string> copied = {};
  std::vector<ElfCopy> elf_copies = {};
  // Whether its paths and pids are not record's, so the files it names are not where report looks.
  bool Elsewhere() const { return own_mounts || (ns_pid != 0 && ns_pid != pid); }
  bool operator==(const AttachedProcess&) const = default;
};

struct SessionInfo {
  std::vector<std::string> command;
  uint32_t pid = 0;  // of the command
  uint64_t frequency_hz = 0;
  uint64_t start_time_ns = 0;                          // CLOCK_MONOTONIC
  std::optional<uint64_t> end_time_ns = std::nullopt;  // 0: not ended; absent: not said
  std::vector<AttachedProcess> attached;               // empty: the session recorded `command`
  bool system_wide = false;                            // record -a: every process on every CPU
  bool jvm_perf_map = false;                           // --jvm-perf-map
  bool jvm_agent = false;                              // --jvm-agent
  bool operator==(const SessionInfo&) const = default;
};

// The directories of session `directory` that hold copies of processes in other namespaces, each
// with its pid (for symbolize::SourceSet::Open). Only directories inside it: a "copied" path that
// is absolute or climbs out is passed over.
std::map<std::string, uint32_t> CopiesDirectories(const std::string& directory,
                                                  const SessionInfo& info);

// Whether `path` is relative and stays where it starts: no "." or ".." component, none empty.
// What a "copied" or "elf_copies" copy must be.
bool IsRelativeAndDescends(std::string_view path);

// Files of the recording machine that the session keeps, each under this directory of the
// session at its own path: files/<path> for the file at <path>. Record keeps there the JIT files
// its processes wrote outside the session (record/kept_files.h), so a session moved or copied
// elsewhere, or whose originals are gone, reports the same.
inline constexpr char kKeptFilesDirectory[] = "files";
// "files/<path>" for an absolute `path` that descends (IsRelativeAndDescends after its '/'), else
// "": the name of its copy, relative to the session directory.
std::string KeptFileName(std::string_view path);

// The ELF copies of session `directory`'s processes: (pid, path in its root) → the copy to read
// in its place. Only regular files inside the directory: an entry whose path is not absolute, or
// whose copy is absolute, has a "." or ".." component, or resolves (through symbolic links)
// outside the directory, is passed over.
std::map<std::pair<uint32_t, std::string>, std::string> ElfCopies(const std::string& directory,
                                                                  const SessionInfo& info);

// How the recording of a session ended.
enum class RecordingEnd {
  kEnded,           // as it should, or an older session that does not say
  kStillRecording,  // a recorder holds the directory (record/session.h, PrepareSessionDirectory)
  kCutShort,        // it never ended: its recorder was killed, or the machine went down
};
RecordingEnd RecordingEndOf(const std::string& directory, const SessionInfo& info);

// Writes it, or replaces an earlier version (record writes it again when it ends, with what it
// copied).
base::Status WriteSessionInfo(const std::string& directory, const SessionInfo& info);
// Fails when the file is missing or not a session.json this version understands.
base::StatusOr<SessionInfo> ReadSessionInfo(const std::string& directory);
// The same for the file's bytes (hostile input: any bytes give a value or an error).
base::StatusOr<SessionInfo> ParseSessionInfo(std::string_view bytes);

}  // namespace jitscope::session
