// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/record/perf_map_tail.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string_view>

#include "jitscope/formats/perf_map_reader.h"
#include "jitscope/record/container_files.h"

namespace jitscope::record {
namespace {

// What one Poll() reads at most: a map grows by a line per function, a few MB in all.
constexpr uint64_t kMaxPollBytes = 16u << 20;

}  // namespace

std::vector<formats::CodeRange> ParsePerfMapLines(std::string_view text, uint64_t& consumed,
                                                  uint64_t& malformed) {
  std::vector<formats::CodeRange> ranges;
  const size_t end = text.rfind('\n');
  consumed = end == std::string_view::npos ? 0 : end + 1;
  for (size_t at = 0; at < consumed;) {
    const size_t newline = text.find('\n', at);
    const std::string_view line = text.substr(at, newline + 1 - at);
    at = newline + 1;
    if (line.find_first_not_of(" \t\r\n") == std::string_view::npos) continue;
    const formats::ParsedPerfMap parsed = formats::ParsePerfMap(line, "perf map");
    if (!parsed.error.ok()) {
      ++malformed;
      continue;
    }
    for (const formats::PerfMapEntry& entry : parsed.entries) {
      if (entry.name == "Interpreter" || entry.start + entry.size < entry.start) continue;
      ranges.push_back({entry.start, entry.start + entry.size});
    }
  }
  return ranges;
}

bool PerfMapTail::Open() {
  // Opened again at each poll: an engine may replace the file (write another and rename it), so
  // the name, not the first file it named, is what to follow.
  const std::string root_path = "/proc/" + std::to_string(pid_) + "/root";
  const base::ScopedFd root(::open(root_path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root) return false;
  base::StatusOr<base::ScopedFd> file =
      OpenInRoot(root.get(), "/tmp/perf-" + std::to_string(ns_pid_) + ".map",
                 O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
  if (!file.ok()) return false;
  struct stat st {};
  if (::fstat(file->get(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  if (!file_ || st.st_ino != inode_) offset_ = 0;  // another file: read it from the start
  file_ = std::move(*file);
  inode_ = st.st_ino;
  return true;
}

std::vector<formats::CodeRange> PerfMapTail::Poll() {
  if (!Open()) return {};
  struct stat st {};
  if (::fstat(file_.get(), &st) != 0) return {};
  // Rewritten from the start (HotSpot's map on each request): read again from the start.
  if (static_cast<uint64_t>(st.st_size) < offset_) offset_ = 0;
  if (static_cast<uint64_t>(st.st_size) == offset_) return {};
  std::string text(std::min<uint64_t>(static_cast<uint64_t>(st.st_size) - offset_, kMaxPollBytes),
                   '\0');
  const ssize_t read = ::pread(file_.get(), text.data(), text.size(), static_cast<off_t>(offset_));
  if (read <= 0) return {};
  text.resize(static_cast<size_t>(read));
  uint64_t consumed = 0;
  std::vector<formats::CodeRange> ranges = ParsePerfMapLines(text, consumed, malformed_lines_);
  if (consumed == 0 && text.size() == kMaxPollBytes) consumed = text.size();  // no line ends
  offset_ += consumed;
  return ranges;
}

}  // namespace jitscope::record
