// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/record/kept_files.h"

#include <dirent.h>
#include <linux/perf_event.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <variant>

#include "jitscope/base/files.h"
#include "jitscope/formats/jitdump_writer.h"
#include "jitscope/formats/perf_map_writer.h"
#include "jitscope/formats/pid_file_name.h"
#include "jitscope/record/file_copies.h"
#include "jitscope/session/session_info.h"

namespace jitscope::record {
namespace {

std::string_view BaseName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// The names in directory `dir`, sorted; empty when it cannot be listed (it is gone, say).
std::vector<std::string> ListDirectory(const std::string& dir) {
  std::vector<std::string> names;
  DIR* listing = ::opendir(dir.c_str());
  if (listing == nullptr) return names;
  while (const dirent* entry = ::readdir(listing)) names.emplace_back(entry->d_name);
  ::closedir(listing);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

JitFileWatch::JitFileWatch(const std::string& session_dir, const session::SampleLayout& layout)
    : session_(base::RealPath(session_dir)), layout_(layout) {}

void JitFileWatch::Observe(std::string_view record) {
  if (record.size() < sizeof(perf_event_header)) return;
  perf_event_header header{};
  std::memcpy(&header, record.data(), sizeof(header));
  if (header.type != PERF_RECORD_MMAP && header.type != PERF_RECORD_MMAP2) return;
  base::StatusOr<session::PerfRecord> parsed = session::ParsePerfRecord(record, layout_);
  if (!parsed.ok()) return;
  const auto* mapping = std::get_if<session::Mapping>(&*parsed);
  if (mapping == nullptr) return;
  pids_.insert(mapping->pid);
  if (formats::ParseJitdumpFileName(BaseName(mapping->filename))) {
    jitdumps_.emplace(mapping->pid, mapping->filename);
  }
}

JitFileWatch::Kept JitFileWatch::Keep(const std::vector<std::string>& collector_dirs,
                                      const std::set<uint32_t>& elsewhere) const {
  std::set<uint32_t> pids;
  std::set_difference(pids_.begin(), pids_.end(), elsewhere.begin(), elsewhere.end(),
                      std::inserter(pids, pids.end()));
  std::set<std::string> originals;
  for (const auto& [pid, path] : jitdumps_) {
    if (pids.contains(pid)) originals.insert(path);
  }
  for (uint32_t pid : pids) {
    // Not of a process whose trace the session holds, which names its code (report reads a perf
    // map only of a process no other file describes), nor one the session holds already
    // (--jvm-perf-map asked a JVM for it).
    if (!base::IsRegularFile(session_ + "/" + formats::PidFileName("jit-", pid, ".jsc")) &&
        !base::IsRegularFile(session_ + "/" + formats::PerfMapFileName(pid))) {
      originals.insert(formats::PerfMapPath(pid));
    }
  }
  for (const std::string& dir : collector_dirs) {
    for (const std::string& name : ListDirectory(dir)) {
      std::optional<uint32_t> pid = formats::ParseChainFileName(name, "jit-", ".jsc");
      if (!pid) pid = formats::ParseChainFileName(name, "frames-", ".jsf");
      if (pid && pids.contains(*pid)) originals.insert(dir + "/" + name);
    }
  }
  Kept kept;
  for (const std::string& original : originals) {
    // A file the session holds already: the collector's own jitdump, say.
    if (base::RealPath(original).starts_with(session_ + "/")) continue;
    const std::string copy = session::KeptFileName(original);
    if (copy.empty()) {
      kept.problems.push_back(original + ": not a plain absolute path");
      continue;
    }
    base::StatusOr<base::ScopedFd> source = OpenRegularFileAt(AT_FDCWD, original);
    if (!source.ok()) {
      // Most processes write no perf map; a file gone since it was mapped is said.
      if (source.status().errno_value() != ENOENT || !original.starts_with("/tmp/perf-")) {
        kept.problems.push_back(source.status().message());
      }
      continue;
    }
    const size_t slash = copy.rfind('/');
    base::StatusOr<std::string> to_dir = MakeDirectories(session_, copy.substr(0, slash));
    base::StatusOr<uint64_t> bytes =
        to_dir.ok() ? CopyOpenFile(source->get(), original, *to_dir, copy.substr(slash + 1))
                    : base::StatusOr<uint64_t>(to_dir.status());
    if (!bytes.ok()) {
      kept.problems.push_back(original + ": " + bytes.status().message());
      continue;
    }
    kept.files.push_back(original);
    kept.bytes += *bytes;
  }
  return kept;
}

}  // namespace jitscope::record
