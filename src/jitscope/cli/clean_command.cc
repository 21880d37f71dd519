// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/cli/clean_command.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string_view>

#include <fmt/format.h>

#include "jitscope/base/files.h"
#include "jitscope/formats/jitdump_writer.h"
#include "jitscope/formats/perf_map_writer.h"
#include "jitscope/formats/pid_file_name.h"
#include "jitscope/trace/chain.h"
#include "jitscope/trace/reader.h"

namespace jitscope::cli {
namespace {

// The file at `path` as 8-byte words (records are 8-byte aligned), its tail padded with zeros;
// empty when it cannot be read.
std::vector<uint64_t> ReadWords(const std::string& path) {
  base::ScopedFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  struct stat st {};
  if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return {};
  std::vector<uint64_t> words((static_cast<size_t>(st.st_size) + 7) / 8);
  auto* bytes = reinterpret_cast<char*>(words.data());
  size_t done = 0;
  while (done < static_cast<size_t>(st.st_size)) {
    const ssize_t n = ::read(fd.get(), bytes + done, static_cast<size_t>(st.st_size) - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // cut meanwhile: what was read is parsed
    done += static_cast<size_t>(n);
  }
  words.resize((done + 7) / 8);
  return words;
}

// A process that started less than this after a file was last written may still be its writer:
// process start times are known to a clock tick and the wall clock may have been stepped.
constexpr uint64_t kStartTimeSlackNs = 2'000'000'000;

uint64_t ClockNs(clockid_t clock) {
  timespec ts{};
  ::clock_gettime(clock, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

ProcessTable::Process LookupSystemProcess(uint32_t pid) {
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) return {};
  // Field 22 of /proc/<pid>/stat is the start time in clock ticks after boot; the command name
  // (field 2) is parenthesised and may contain spaces, so parse after its closing parenthesis.
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t paren = text.rfind(')');
  if (paren == std::string::npos) return {ProcessTable::State::kRunning, 0};
  std::istringstream fields(text.substr(paren + 1));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i != 22) continue;
    const uint64_t ticks = std::strtoull(field.c_str(), nullptr, 10);
    const long hz = ::sysconf(_SC_CLK_TCK);
    if (hz <= 0) break;
    const uint64_t boot_realtime = ClockNs(CLOCK_REALTIME) - ClockNs(CLOCK_BOOTTIME);
    return {ProcessTable::State::kRunningSince,
            boot_realtime + ticks * (1'000'000'000u / static_cast<uint64_t>(hz))};
  }
  return {ProcessTable::State::kRunning, 0};
}

std::string DefaultFromEnvironment(const char* variable, std::string_view fallback) {
  const char* value = std::getenv(variable);
  return std::string(value != nullptr && *value != '\0' ? std::string_view(value) : fallback);
}

enum class Verdict { kRemove, kRunning, kOtherWriter, kNotOurs };

struct Tally {
  int removed = 0;
  int failed = 0;
  int running = 0;
  int other_writers = 0;
};

class Cleaner {
 public:
  Cleaner(const CleanOptions& options, const ProcessTable& processes, std::FILE* out,
          std::FILE* err)
      : options_(options), processes_(processes), out_(out), err_(err) {}

  // Looks at every entry of `dir` that `parse` accepts as a file of process <pid>.
  void Scan(const std::string& dir,
            const std::function<std::optional<uint32_t>(std::string_view)>& parse,
            bool fallback_directories) {
    for (const std::string& name : ListDirectory(dir)) {
      const std::string path = dir + "/" + name;
      if (const auto pid = parse(name)) {
        Consider(path, *pid);
      } else if (fallback_directories) {
        ScanFallbackDirectory(path, name);
      }
    }
  }

  // Removes the files of each trace chain in `dir` that come before its last complete snapshot
  // (trace/chain.h): the files from that snapshot on name all code the process can still run,
  // whether or not it is still running.
  void RemoveSupersededTraces(const std::string& dir) {
    struct Part {
      uint32_t pid = 0;
      trace::ChainPosition position;
    };
    std::map<std::string, Part> parts;  // by file name
    for (const std::string& name : ListDirectory(dir)) {
      if (!name.starts_with("jit-") || !name.ends_with(".jsc")) continue;
      // Read, not mapped: the collector may cut a file it is still writing (at its exit), and a
      // mapping of the cut-off pages would raise SIGBUS here.
      const std::vector<uint64_t> bytes = ReadWords(dir + "/" + name);
      auto parsed = trace::ParseTrace(
          {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size() * sizeof(uint64_t)});
      if (!parsed.ok()) continue;
      parts[name] = {parsed->header.pid, trace::ChainPositionOf(*parsed)};
    }
    std::set<std::string> superseded;
    for (const auto& [name, part] : parts) {
      if (!part.position.continues || !part.position.snapshot_complete) continue;
      // Each earlier file names the one before it; the walk stops at the chain's first file.
      for (const Part* later = &part; later->position.continues;) {
        auto earlier = parts.find(later->position.previous_name);
        if (earlier == parts.end() || earlier->second.pid != part.pid ||
            !superseded.insert(earlier->first).second) {
          break;
        }
        later = &earlier->second;
      }
    }
    for (const std::string& name : superseded) {
      const std::string path = dir + "/" + name;
      struct stat st {};
      if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::getuid()) {
        continue;
      }
      Remove(path, "a later file of its trace's chain holds its live code");
    }
  }

  int Finish() {
    const char* verb = options_.dry_run ? "would remove" : "removed";
    if (tally_.removed == 0 && tally_.running == 0 && tally_.other_writers == 0) {
      fmt::print(out_, "jitscope clean: nothing to remove\n");
    } else {
      std::string summary = fmt::format("jitscope clean: {} {} file{}", verb, tally_.removed,
                                        tally_.removed == 1 ? "" : "s");
      if (tally_.running != 0) {
        summary += fmt::format("; kept {} of running processes", tally_.running);
      }
      if (tally_.other_writers != 0) {
        summary += fmt::format("; kept {} written by other tools (--all-writers removes them)",
                               tally_.other_writers);
      }
      fmt::print(out_, "{}\n", summary);
    }
    return tally_.failed == 0 ? 0 : 1;
  }

 private:
  // The collector's fallback when jit-<pid>.dump was taken: jitscope-<pid>-XXXXXX/jit-<pid>.dump.
  void ScanFallbackDirectory(const std::string& path, const std::string& name) {
    const size_t dash = name.rfind('-');
    if (dash == std::string::npos) return;
    const auto pid =
        formats::ParsePidFileName(std::string_view(name).substr(0, dash + 1), "jitscope-", "-");
    struct stat st {};
    if (!pid || ::lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) ||
        st.st_uid != ::getuid()) {
      return;
    }
    const std::string dump = path + "/" + formats::JitdumpFileName(*pid);
    if (::lstat(dump.c_str(), &st) != 0) return;
    if (Consider(dump, *pid) && !options_.dry_run) {
      ::rmdir(path.c_str());  // only if empty: perf inject's jitted-*.so files stay with it
    }
  }

  Verdict Judge(const std::string& path, uint32_t pid) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::getuid()) {
      return Verdict::kNotOurs;
    }
    const ProcessTable::Process process = processes_.lookup(pid);
    const uint64_t modified = static_cast<uint64_t>(st.st_mtim.tv_sec) * 1'000'000'000u +
                              static_cast<uint64_t>(st.st_mtim.tv_nsec);
    const bool gone = process.state == ProcessTable::State::kGone ||
                      (process.state == ProcessTable::State::kRunningSince &&
                       process.start_realtime_ns > modified + kStartTimeSlackNs);
    if (!gone) return Verdict::kRunning;
    if (!options_.all_writers && !base::IsTaggedCreatedByJitscope(path)) {
      return Verdict::kOtherWriter;
    }
    return Verdict::kRemove;
  }

  // Returns true when the file was removed (or would be, in a dry run).
  bool Consider(const std::string& path, uint32_t pid) {
    switch (Judge(path, pid)) {
      case Verdict::kNotOurs:
        return false;
      case Verdict::kRunning:
        ++tally_.running;
        return false;
      case Verdict::kOtherWriter:
        ++tally_.other_writers;
        return false;
      case Verdict::kRemove:
        break;
    }
    return Remove(path, fmt::format("process {} is gone", pid));
  }

  // Returns true when the file was removed (or would be, in a dry run).
  bool Remove(const std::string& path, std::string_view why) {
    if (!options_.dry_run && ::unlink(path.c_str()) != 0) {
      fmt::print(err_, "jitscope clean: cannot remove {}: {}\n", path, std::strerror(errno));
      ++tally_.failed;
      return false;
    }
    fmt::print(out_, "{} {} ({})\n", options_.dry_run ? "would remove" : "removed", path, why);
    ++tally_.removed;
    return true;
  }

  // The names in `dir`, sorted; none (with a message) when it cannot be read.
  std::vector<std::string> ListDirectory(const std::string& dir) {
    std::vector<std::string> names;
    DIR* stream = ::opendir(dir.c_str());
    if (stream == nullptr) {
      if (errno != ENOENT)
        fmt::print(err_, "jitscope clean: cannot read {}: {}\n", dir, std::strerror(errno));
      return names;
    }
    while (const dirent* entry = ::readdir(stream)) names.emplace_back(entry->d_name);
    ::closedir(stream);
    std::sort(names.begin(), names.end());
    return names;
  }

  const CleanOptions& options_;
  const ProcessTable& processes_;
  std::FILE* out_;
  std::FILE* err_;
  Tally tally_;
};

}  // namespace

ProcessTable SystemProcessTable() { return ProcessTable{&LookupSystemProcess}; }

int RunClean(const CleanOptions& options, const ProcessTable& processes, std::FILE* out,
             std::FILE* err) {
  std::vector<std::string> output_dirs = options.output_dirs;
  if (output_dirs.empty())
    output_dirs.push_back(DefaultFromEnvironment("JITSCOPE_OUTPUT_DIR", "."));
  const std::string perf_map_dir =
      options.perf_map_dir.empty()
          ? DefaultFromEnvironment("JITSCOPE_PERF_MAP_DIR", formats::kPerfMapDirectory)
          : options.perf_map_dir;
  Cleaner cleaner(options, processes, out, err);
  cleaner.Scan(perf_map_dir, &formats::ParsePerfMapFileName, false);
  for (const std::string& dir : output_dirs) {
    cleaner.Scan(dir, &formats::ParseJitdumpFileName, true);
    cleaner.RemoveSupersededTraces(dir);
  }
  return cleaner.Finish();
}

}  // namespace jitscope::cli
