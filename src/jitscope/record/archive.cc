// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/record/archive.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "jitscope/base/files.h"
#include "jitscope/record/file_copies.h"
#include "jitscope/record/touched_files.h"
#include "jitscope/session/elf_build_id.h"
#include "jitscope/session/samples_file.h"
#include "jitscope/session/session_info.h"

namespace jitscope::record {
namespace {

constexpr char kDebugRoot[] = "/usr/lib/debug";

std::string ParentDirectory(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == 0 ? "/" : path.substr(0, slash);
}

bool IsElf(int fd) {
  char magic[SELFMAG] = {};
  return ::pread(fd, magic, sizeof(magic), 0) == SELFMAG &&
         std::memcmp(magic, ELFMAG, SELFMAG) == 0;
}

std::string Size(uint64_t bytes) {
  if (bytes < 1024) return fmt::format("{} bytes", bytes);
  if (bytes < 1024 * 1024) return fmt::format("{:.1f} KiB", static_cast<double>(bytes) / 1024);
  return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1024 * 1024));
}

class Archiver {
 public:
  Archiver(std::string session, const ArchiveOptions& options)
      : session_(std::move(session)), options_(options) {}

  // Archives the host's file at `path`, which the recording saw with `recorded` (its build id,
  // "" when unknown). A write error is the whole archive's.
  base::Status Archive(const std::string& path, const std::string& recorded) {
    const std::string copy = session::KeptFileName(path);
    if (copy.empty()) {
      result_.refused.push_back(path + ": not a plain absolute path");
      return base::Status::Ok();
    }
    const std::string copy_path = session_ + "/" + copy;
    // There already, and the recorded build: archiving again adds nothing.
    if (base::IsRegularFile(copy_path) &&
        (recorded.empty() || session::BuildIdOfFile(copy_path) == recorded)) {
      AddFile(path, copy, FileSize(copy_path), /*added=*/false, recorded.empty());
      return ArchiveDebugFileOf(path, copy_path);
    }
    base::StatusOr<base::ScopedFd> source = OpenRegularFileAt(AT_FDCWD, path);
    if (!source.ok()) {
      result_.refused.push_back(
          source.status().errno_value() == ENOENT
              ? path +
                    ": not on this machine any more (deleted since the recording, or the "
                    "session was recorded elsewhere)"
              : source.status().message());
      return base::Status::Ok();
    }
    if (!IsElf(source->get())) return base::Status::Ok();  // a jitdump it mapped, say
    const std::string now = session::BuildIdOfFd(source->get());
    if (!recorded.empty() && now != recorded) {
      result_.refused.push_back(fmt::format(
          "{}: changed since the recording (build id {} then, {} now): not archived, a copy "
          "would name other code",
          path, recorded, now.empty() ? "none" : now));
      return base::Status::Ok();
    }
    ASSIGN_OR_RETURN(const uint64_t bytes, Copy(source->get(), path, copy, path));
    AddFile(path, copy, bytes, /*added=*/true, recorded.empty());
    return ArchiveDebugFileOf(path, copy_path);
  }

  // A container's file the recording copied already: checked by build id like the others.
  void Copied(uint32_t pid, const std::string& path, const std::string& copy,
              const std::string& recorded) {
    const std::string copy_path = session_ + "/" + copy;
    if (!recorded.empty() && session::BuildIdOfFile(copy_path) != recorded) {
      result_.refused.push_back(
          fmt::format("{} (pid {}): its copy {} is not the build the recording saw ({}): not used",
                      path, pid, copy, recorded));
      return;
    }
    if (!std::any_of(result_.files.begin(), result_.files.end(),
                     [&](const ArchiveResult::File& f) { return f.copy == copy; })) {
      AddFile(path, copy, FileSize(copy_path), /*added=*/false, recorded.empty());
    }
  }

  ArchiveResult Take() && { return std::move(result_); }
  ArchiveResult& result() { return result_; }

 private:
  void AddFile(const std::string& path, const std::string& copy, uint64_t bytes, bool added,
               bool unchecked) {
    result_.files.push_back({path, copy, bytes, added, unchecked});
    if (added) result_.bytes_added += bytes;
  }

  static uint64_t FileSize(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  }

  // Copies the file open as `fd` (`path`) to the session's `copy`, whole or compact: as the
  // session reads the file `of` (`path` itself, or the file whose debug file it is).
  base::StatusOr<uint64_t> Copy(int fd, const std::string& path, const std::string& copy,
                                const std::string& of) {
    const size_t slash = copy.rfind('/');
    base::StatusOr<std::string> to_dir = MakeDirectories(session_, copy.substr(0, slash));
    if (!to_dir.ok()) {
      return base::Status::Error("cannot write into the session %s: %s; it is as it was",
                                 session_.c_str(), to_dir.status().message().c_str());
    }
    base::StatusOr<uint64_t> bytes =
        options_.compact ? CompactCopy(fd, path, of, *to_dir, copy.substr(slash + 1))
                         : CopyOpenFile(fd, path, *to_dir, copy.substr(slash + 1));
    if (!bytes.ok()) {
      return base::Status::Error(
          "cannot copy %s into the session: %s; what was archived before "
          "stays",
          path.c_str(), bytes.status().message().c_str());
    }
    return bytes;
  }

  // Writes the compact copy of the file open as `fd` (`path`) to `to_dir`/`to_name`, whole or
  // not at all; its size.
  base::StatusOr<uint64_t> CompactCopy(int fd, const std::string& path, const std::string& of,
                                       const std::string& to_dir, const std::string& to_name) {
    static const SessionParts kNone;
    const auto parts = options_.parts.find(of);
    base::ScopedFd file;  // a debug file's file, as archived: its program headers as they were
    if (of != path) {
      ASSIGN_OR_RETURN(file, OpenRegularFileAt(AT_FDCWD, debug_file_of_));
    }
    uint64_t bytes = 0;
    RETURN_IF_ERROR(base::ReplaceFile(to_dir, to_name, [&](int out) -> base::Status {
      RETURN_IF_ERROR(WriteCompactCopy(fd, path,
                                       parts == options_.parts.end() ? kNone : parts->second, out,
                                       file ? file.get() : fd));
      struct stat st {};
      if (::fstat(out, &st) != 0) return base::Status::Errno(errno, "%s", to_name.c_str());
      bytes = static_cast<uint64_t>(st.st_size);
      return base::Status::Ok();
    }));
    return bytes;
  }

  // The separate debug file of `path` (its copy at `copy_path`), where the readers look for it:
  // by .gnu_debuglink beside it, in its .debug/ and under /usr/lib/debug at its directory, else
  // by build id under /usr/lib/debug/.build-id.
  base::Status ArchiveDebugFileOf(const std::string& path, const std::string& copy_path) {
    std::vector<std::string> candidates;
    debug_file_of_ = copy_path;
    const base::ScopedFd fd(::open(copy_path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd) return base::Status::Ok();
    const std::string dir = ParentDirectory(path);
    const std::string base = dir == "/" ? "" : dir;
    if (const std::string link = session::DebugLinkOfFd(fd.get()); !link.empty()) {
      candidates = {base + "/" + link, base + "/.debug/" + link,
                    std::string(kDebugRoot) + base + "/" + link};
    }
    if (const std::string id = session::BuildIdOfFd(fd.get()); id.size() > 2) {
      candidates.push_back(
          fmt::format("{}/.build-id/{}/{}.debug", kDebugRoot, id.substr(0, 2), id.substr(2)));
    }
    for (const std::string& candidate : candidates) {
      if (candidate == path || !base::IsRegularFile(candidate)) continue;
      const std::string copy = session::KeptFileName(candidate);
      if (copy.empty()) continue;
      if (base::IsRegularFile(session_ + "/" + copy)) {
        AddFile(candidate, copy, FileSize(session_ + "/" + copy), /*added=*/false, false);
        return base::Status::Ok();
      }
      base::StatusOr<base::ScopedFd> source = OpenRegularFileAt(AT_FDCWD, candidate);
      if (!source.ok()) continue;
      ASSIGN_OR_RETURN(const uint64_t bytes, Copy(source->get(), candidate, copy, path));
      AddFile(candidate, copy, bytes, /*added=*/true, false);
      return base::Status::Ok();
    }
    return base::Status::Ok();
  }

  std::string session_;
  const ArchiveOptions& options_;
  std::string debug_file_of_;  // the archived copy of the file whose debug file is looked for
  ArchiveResult result_;
};

}  // namespace

base::StatusOr<ArchiveResult> ArchiveSession(const std::string& session_dir,
                                             const ArchiveOptions& options) {
  struct stat st {};
  if (::stat(session_dir.c_str(), &st) != 0) {
    return base::Status::Errno(errno, "%s", session_dir.c_str());
  }
  if (!S_ISDIR(st.st_mode)) {
    return base::Status::Error(
        "%s: not a session directory (jitscope record); a perf.data's files are perf archive's",
        session_dir.c_str());
  }
  ASSIGN_OR_RETURN(session::SampleData data,
                   session::ReadSamplesFile(session_dir + "/" + session::kSamplesFileName));
  // A session without session.json (an old one, one assembled by hand) has no containers.
  base::StatusOr<session::SessionInfo> info = session::ReadSessionInfo(session_dir);
  std::set<uint32_t> own_roots;
  std::map<std::pair<uint32_t, std::string>, std::string> container_copies;
  if (info.ok()) {
    for (const session::AttachedProcess& process : info->attached) {
      if (process.own_root) own_roots.insert(process.pid);
      for (const session::ElfCopy& copy : process.elf_copies) {
        container_copies.emplace(std::pair{process.pid, copy.path}, copy.copy);
      }
    }
  }
  std::set<uint32_t> pids;
  data.ForEachSample([&](const session::Sample& sample) { pids.insert(sample.pid); });
  const std::map<uint32_t, std::set<std::string>> touched = TouchedFiles(data, pids);

  // The build id each file had when mapped (the first of a path that two builds had in turn).
  std::map<std::pair<uint32_t, std::string>, std::string> recorded;
  for (const session::Mapping& mapping : data.mappings) {
    if (!mapping.build_id.empty()) {
      recorded.emplace(std::pair{mapping.pid, mapping.filename}, mapping.build_id);
    }
  }
  auto recorded_id = [&](uint32_t pid, const std::string& path) {
    auto it = recorded.find({pid, path});
    return it == recorded.end() ? std::string() : it->second;
  };

  Archiver archiver(session_dir, options);
  std::set<std::string> touched_paths;
  std::map<std::string, std::string> host_files;  // path → its recorded build id
  for (const auto& [pid, paths] : touched) {
    for (const std::string& path : paths) {
      touched_paths.insert(path);
      if (!own_roots.contains(pid)) {
        host_files.emplace(path, recorded_id(pid, path));
        continue;
      }
      if (auto copy = container_copies.find({pid, path}); copy != container_copies.end()) {
        archiver.Copied(pid, path, copy->second, recorded_id(pid, path));
      } else {
        archiver.result().refused.push_back(fmt::format(
            "{} (pid {}, in a root directory of its own): its copy was not made when the "
            "recording ended, and its path names nothing here",
            path, pid));
      }
    }
  }
  for (const auto& [path, build_id] : host_files) {
    RETURN_IF_ERROR(archiver.Archive(path, build_id));
  }
  ArchiveResult result = std::move(archiver).Take();
  result.touched.assign(touched_paths.begin(), touched_paths.end());
  return result;
}

std::vector<std::string> DescribeArchive(const std::string& session_dir,
                                         const ArchiveResult& result) {
  std::vector<std::string> lines;
  if (result.touched.empty()) {
    lines.push_back("no file to archive: none of " + session_dir +
                    "'s samples is in a program or library (its vDSO is in it already)");
    return lines;
  }
  size_t added = 0, kept = 0;
  uint64_t kept_bytes = 0;
  for (const ArchiveResult::File& file : result.files) {
    added += file.added ? 1 : 0;
    kept += file.added ? 0 : 1;
    kept_bytes += file.added ? 0 : file.bytes;
  }
  lines.push_back(fmt::format(
      "archived {} file{} the samples touched in {}/{}: {} added ({}), {} there already ({})",
      result.files.size(), result.files.size() == 1 ? "" : "s", session_dir,
      session::kKeptFilesDirectory, added, Size(result.bytes_added), kept, Size(kept_bytes)));
  for (const ArchiveResult::File& file : result.files) {
    if (file.unchecked) {
      lines.push_back(file.path +
                      ": archived unchecked: the recording has no build id for it (mapped "
                      "before record -p attached), so it may have changed since");
    }
  }
  for (const std::string& refused : result.refused) lines.push_back("not archived: " + refused);
  return lines;
}

}  // namespace jitscope::record
