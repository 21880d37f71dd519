// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/record/proc_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>

#include "jitscope/base/scoped_resource.h"

namespace jitscope::record {
namespace {

// Takes the next field of `line` up to `separator` (or the end) and parses it as a number in
// `base`; the whole field must be digits.
template <typename T>
bool TakeNumber(std::string_view& line, char separator, int base, T& value) {
  const size_t end = std::min(line.find(separator), line.size());
  const std::string_view field = line.substr(0, end);
  const auto [ptr, error] = std::from_chars(field.data(), field.data() + field.size(), value, base);
  if (field.empty() || error != std::errc() || ptr != field.data() + field.size()) return false;
  line.remove_prefix(end == line.size() ? end : end + 1);
  return true;
}

std::string_view TakeField(std::string_view& line) {
  const size_t end = std::min(line.find(' '), line.size());
  const std::string_view field = line.substr(0, end);
  line.remove_prefix(end == line.size() ? end : end + 1);
  return field;
}

std::optional<ProcMapping> ParseMapsLine(std::string_view line) {
  ProcMapping mapping;
  if (!TakeNumber(line, '-', 16, mapping.start) || !TakeNumber(line, ' ', 16, mapping.end) ||
      mapping.end < mapping.start) {
    return std::nullopt;
  }
  const std::string_view perms = TakeField(line);
  if (perms.size() != 4) return std::nullopt;
  mapping.executable = perms[2] == 'x';
  if (!TakeNumber(line, ' ', 16, mapping.offset) || !TakeNumber(line, ':', 16, mapping.major) ||
      !TakeNumber(line, ' ', 16, mapping.minor) || !TakeNumber(line, ' ', 10, mapping.inode)) {
    return std::nullopt;
  }
  // The kernel pads the name's column with spaces; a name of its own may start with spaces only
  // in theory (paths are absolute, pseudo-names start with '['), so the padding is all dropped.
  const size_t name = line.find_first_not_of(' ');
  if (name != std::string_view::npos) mapping.name = std::string(line.substr(name));
  return mapping;
}

}  // namespace

ProcMaps ParseProcMaps(std::string_view text) {
  ProcMaps maps;
  while (!text.empty()) {
    const size_t end = std::min(text.find('\n'), text.size());
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(end == text.size() ? end : end + 1);
    if (line.empty()) continue;
    if (std::optional<ProcMapping> mapping = ParseMapsLine(line)) {
      maps.mappings.push_back(std::move(*mapping));
    } else {
      ++maps.malformed_lines;
    }
  }
  return maps;
}

std::vector<std::string> SplitNulSeparated(std::string_view bytes) {
  std::vector<std::string> strings;
  while (!bytes.empty()) {
    const size_t end = std::min(bytes.find('\0'), bytes.size());
    strings.emplace_back(bytes.substr(0, end));
    bytes.remove_prefix(end == bytes.size() ? end : end + 1);
  }
  return strings;
}

std::optional<std::string> FindEnvironmentValue(std::string_view environ, std::string_view name) {
  while (!environ.empty()) {
    const size_t end = std::min(environ.find('\0'), environ.size());
    const std::string_view entry = environ.substr(0, end);
    environ.remove_prefix(end == environ.size() ? end : end + 1);
    if (entry.size() > name.size() && entry.starts_with(name) && entry[name.size()] == '=') {
      return std::string(entry.substr(name.size() + 1));
    }
  }
  return std::nullopt;
}

std::optional<std::string> FindStatusField(std::string_view status, std::string_view key) {
  while (!status.empty()) {
    const size_t end = std::min(status.find('\n'), status.size());
    std::string_view line = status.substr(0, end);
    status.remove_prefix(end == status.size() ? end : end + 1);
    if (line.size() <= key.size() || !line.starts_with(key) || line[key.size()] != ':') continue;
    line.remove_prefix(key.size() + 1);
    const size_t value = line.find_first_not_of(" \t");
    return std::string(value == std::string_view::npos ? std::string_view() : line.substr(value));
  }
  return std::nullopt;
}

std::optional<uint32_t> StatusRealUid(std::string_view status) {
  const std::optional<std::string> field = FindStatusField(status, "Uid");
  if (!field) return std::nullopt;
  std::string_view rest = *field;
  uint32_t uid = 0;
  if (!TakeNumber(rest, '\t', 10, uid)) return std::nullopt;
  return uid;
}

std::optional<uint64_t> StatusEffectiveCapabilities(std::string_view status) {
  const std::optional<std::string> field = FindStatusField(status, "CapEff");
  if (!field) return std::nullopt;
  std::string_view rest = *field;
  uint64_t caps = 0;
  if (!TakeNumber(rest, '\n', 16, caps) || !rest.empty()) return std::nullopt;
  return caps;
}

std::optional<pid_t> StatusNamespacePid(std::string_view status) {
  const std::optional<std::string> field = FindStatusField(status, "NSpid");
  if (!field) return std::nullopt;
  std::string_view rest = *field;
  std::optional<pid_t> last;
  while (!rest.empty()) {
    pid_t pid = 0;
    if (!TakeNumber(rest, '\t', 10, pid) || pid <= 0) return std::nullopt;
    last = pid;
  }
  return last;
}

std::optional<pid_t> ParseTaskId(std::string_view name) {
  pid_t tid = 0;
  if (name.starts_with('0') || !TakeNumber(name, '\0', 10, tid) || tid <= 0) return std::nullopt;
  return tid;
}

base::StatusOr<std::string> ReadProcFile(const std::string& path, size_t limit) {
  base::ScopedFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return base::Status::Errno(errno, "%s", path.c_str());
  std::string text;
  char buffer[16384];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return base::Status::Errno(errno, "%s", path.c_str());
    if (n == 0) break;
    if (text.size() + static_cast<size_t>(n) > limit) {
      return base::Status::Error("%s: longer than %zu bytes", path.c_str(), limit);
    }
    text.append(buffer, static_cast<size_t>(n));
  }
  return text;
}

namespace {

// The numeric entries of the /proc directory `path` (tasks, or processes), sorted.
base::StatusOr<std::vector<pid_t>> ListIds(const std::string& path) {
  DIR* dir = ::opendir(path.c_str());
  if (dir == nullptr) return base::Status::Errno(errno, "%s", path.c_str());
  std::vector<pid_t> tids;
  errno = 0;
  while (const dirent* entry = ::readdir(dir)) {
    if (std::optional<pid_t> tid = ParseTaskId(entry->d_name)) tids.push_back(*tid);
  }
  const int error = errno;
  ::closedir(dir);
  if (error != 0) return base::Status::Errno(error, "%s", path.c_str());
  std::sort(tids.begin(), tids.end());
  return tids;
}

}  // namespace

std::string ProcPath(pid_t pid, std::string_view file) {
  return "/proc/" + std::to_string(pid) + "/" + std::string(file);
}

base::StatusOr<std::vector<pid_t>> ListThreads(pid_t pid) { return ListIds(ProcPath(pid, "task")); }

base::StatusOr<std::vector<pid_t>> ListProcesses() { return ListIds("/proc"); }

}  // namespace jitscope::record
