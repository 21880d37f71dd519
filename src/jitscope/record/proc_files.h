// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Readers of a running process's /proc files, for `record -p`: its threads
// (/proc/PID/task), its mappings (/proc/PID/maps), its environment and command line
// (/proc/PID/environ, /proc/PID/cmdline) and its status (/proc/PID/status).
//
// The contents come from another process and the kernel's formatting of it: a mapped file's
// name is any bytes the process chose (spaces, newlines — the kernel escapes only '\n' as
// "\012"), an environment is whatever the process wrote over its own stack. Every parser here
// takes the bytes as hostile: any input gives a value, a malformed line is skipped and counted,
// never a crash (fuzz/proc_files_fuzzer.cc).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jitscope/base/status.h"

namespace jitscope::record {

// One line of /proc/PID/maps: "start-end perms offset major:minor inode   name".
struct ProcMapping {
  uint64_t start = 0;
  uint64_t end = 0;
  uint64_t offset = 0;
  bool executable = false;  // perms has 'x'
  uint32_t major = 0;
  uint32_t minor = 0;
  uint64_t inode = 0;
  std::string name;  // "" for anonymous memory; "[vdso]", "[heap]", a path, "… (deleted)"
  bool operator==(const ProcMapping&) const = default;
};

struct ProcMaps {
  std::vector<ProcMapping> mappings;
  size_t malformed_lines = 0;  // lines that were not of the shape above
};

ProcMaps ParseProcMaps(std::string_view text);

// The strings of a NUL-separated list (/proc/PID/environ, /proc/PID/cmdline); a last string
// without its NUL (a process that overwrote its own) counts too.
std::vector<std::string> SplitNulSeparated(std::string_view bytes);

// The value of `name` in an environment block ("NAME=value\0..."), the first one as getenv
// finds it, or nullopt.
std::optional<std::string> FindEnvironmentValue(std::string_view environ, std::string_view name);

// The value of a "Key:\tvalue" line of /proc/PID/status (leading blanks removed), or nullopt.
std::optional<std::string> FindStatusField(std::string_view status, std::string_view key);

// The real uid of a status file's "Uid:" line, or nullopt.
std::optional<uint32_t> StatusRealUid(std::string_view status);

// The effective capability set of a status file's "CapEff:" line (hex), or nullopt.
std::optional<uint64_t> StatusEffectiveCapabilities(std::string_view status);

// The pid of a status file's process in its own pid namespace: the last of the "NSpid:" line's
// pids (the kernel lists one per namespace level, the reader's own first, since Linux 4.1), or
// nullopt when the line is missing or any of its fields is not a pid.
std::optional<pid_t> StatusNamespacePid(std::string_view status);

// A thread id from a /proc/PID/task entry name (decimal, positive, fits pid_t), or nullopt
// ("." and "..").
std::optional<pid_t> ParseTaskId(std::string_view name);

// "/proc/PID/FILE".
std::string ProcPath(pid_t pid, std::string_view file);

// Reads a whole /proc file (whose stat size is 0) up to `limit` bytes; a longer one is an error.
base::StatusOr<std::string> ReadProcFile(const std::string& path, size_t limit);

// The threads of process `pid`, sorted. The errno of a failure is kept (ENOENT: no such
// process; EACCES: not permitted).
base::StatusOr<std::vector<pid_t>> ListThreads(pid_t pid);

// The processes now running (the numeric entries of /proc), sorted.
base::StatusOr<std::vector<pid_t>> ListProcesses();

}  // namespace jitscope::record
