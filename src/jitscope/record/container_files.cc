// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/record/container_files.h"

#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include "jitscope/base/files.h"
#include "jitscope/formats/perf_map_writer.h"
#include "jitscope/formats/pid_file_name.h"
#include "jitscope/record/file_copies.h"
#include "jitscope/record/proc_files.h"
#include "jitscope/session/elf_build_id.h"

namespace jitscope::record {
namespace {

constexpr size_t kMaxStatusBytes = 1 << 16;

// Whether two paths are the same file (the same namespace, the same directory): stat follows
// /proc's links to what they stand for.
base::StatusOr<bool> SameFile(const std::string& a, const std::string& b) {
  struct stat sa {};
  struct stat sb {};
  if (::stat(a.c_str(), &sa) != 0) return base::Status::Errno(errno, "%s", a.c_str());
  if (::stat(b.c_str(), &sb) != 0) return base::Status::Errno(errno, "%s", b.c_str());
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

// The directory part of `path` ("/" for a file at the root), or "" if it has none.
std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return "";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// Whether `name` is one of the process's own JIT files of `ns_pid` that a directory of its may
// hold: jit-<nspid>.dump, or a trace of the chain jit-<nspid>.jsc, jit-<nspid>.<n>.jsc.
bool IsJitFileOf(std::string_view name, pid_t ns_pid) {
  const auto pid = static_cast<uint32_t>(ns_pid);
  return name == formats::PidFileName("jit-", pid, ".dump") ||
         formats::ParseChainFileName(name, "jit-", ".jsc") == pid;
}

// The names in the directory open (O_PATH) as `dir`.
base::StatusOr<std::vector<std::string>> ListNames(int dir) {
  const int fd = ::openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return base::Status::Errno(errno, "cannot list it");
  DIR* listing = ::fdopendir(fd);
  if (listing == nullptr) {
    const int error = errno;
    ::close(fd);
    return base::Status::Errno(error, "cannot list it");
  }
  std::vector<std::string> names;
  while (const dirent* entry = ::readdir(listing)) names.emplace_back(entry->d_name);
  ::closedir(listing);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

base::StatusOr<ProcessNamespaces> ReadNamespaces(pid_t pid) {
  ProcessNamespaces namespaces;
  ASSIGN_OR_RETURN(std::string status, ReadProcFile(ProcPath(pid, "status"), kMaxStatusBytes));
  namespaces.ns_pid = StatusNamespacePid(status).value_or(pid);
  ASSIGN_OR_RETURN(bool same_mounts, SameFile("/proc/self/ns/mnt", ProcPath(pid, "ns/mnt")));
  ASSIGN_OR_RETURN(bool same_root, SameFile("/proc/self/root", ProcPath(pid, "root")));
  namespaces.other_mounts = !same_mounts;
  namespaces.other_root = !same_root;
  return namespaces;
}

bool NeedsCopies(pid_t pid, const ProcessNamespaces& namespaces) {
  return namespaces.other_mounts || namespaces.ns_pid != pid;
}

base::StatusOr<base::ScopedFd> OpenInRoot(int root, const std::string& path, int flags) {
  open_how how{};
  how.flags = static_cast<uint64_t>(flags | O_CLOEXEC);
  // RESOLVE_NO_MAGICLINKS: its /proc/self/... would be this process's.
  how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
  const long fd = ::syscall(SYS_openat2, root, path.c_str(), &how, sizeof(how));
  if (fd < 0) return base::Status::Errno(errno, "%s", path.c_str());
  return base::ScopedFd(static_cast<int>(fd));
}

std::string CopiesDirectoryName(pid_t pid) {
  return formats::PidFileName("pid-", static_cast<uint32_t>(pid), "");
}

void ContainerFiles::AddDirectory(int root, const std::string& path, std::vector<Directory>& to) {
  base::StatusOr<base::ScopedFd> fd = OpenInRoot(root, path, O_PATH | O_DIRECTORY);
  if (!fd.ok()) {
    problems_.push_back("cannot open its " + fd.status().message());
    return;
  }
  struct stat st {};
  if (::fstat(fd->get(), &st) != 0) return;
  // One directory reached by two paths (the collector's output directory is the jitdump's) is
  // read once.
  for (const Directory& known : to) {
    struct stat other {};
    if (::fstat(known.fd.get(), &other) == 0 && other.st_dev == st.st_dev &&
        other.st_ino == st.st_ino) {
      return;
    }
  }
  to.push_back({path, std::move(*fd)});
}

base::StatusOr<ContainerFiles> ContainerFiles::Open(pid_t pid, const ProcessNamespaces& namespaces,
                                                    const std::string& collector_output_dir,
                                                    const std::vector<ProcMapping>& mappings) {
  ContainerFiles files;
  files.pid_ = pid;
  files.namespaces_ = namespaces;
  const std::string root_path = ProcPath(pid, "root");
  base::ScopedFd root(::open(root_path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root) return base::Status::Errno(errno, "%s", root_path.c_str());
  if (namespaces.other_root) files.root_ = base::ScopedFd(::dup(root.get()));
  files.AddDirectory(root.get(), "/tmp", files.tmp_);
  if (!collector_output_dir.empty()) {
    files.AddDirectory(root.get(), collector_output_dir, files.jit_dirs_);
  }
  std::set<std::string> jitdump_dirs;
  const std::string jitdump =
      formats::PidFileName("jit-", static_cast<uint32_t>(namespaces.ns_pid), ".dump");
  for (const ProcMapping& mapping : mappings) {
    const std::string dir = DirectoryOf(mapping.name);
    if (!dir.empty() && mapping.name.substr(dir.size() + (dir == "/" ? 0 : 1)) == jitdump) {
      jitdump_dirs.insert(dir);
    }
  }
  for (const std::string& dir : jitdump_dirs) files.AddDirectory(root.get(), dir, files.jit_dirs_);
  return files;
}

base::StatusOr<ContainerFiles> ContainerFiles::ForChild(
    pid_t child, const ProcessNamespaces& child_namespaces) const {
  ContainerFiles files;
  files.pid_ = child;
  files.namespaces_ = child_namespaces;
  auto again = [](const base::ScopedFd& fd,
                  const std::string& what) -> base::StatusOr<base::ScopedFd> {
    base::ScopedFd copy(::fcntl(fd.get(), F_DUPFD_CLOEXEC, 0));
    if (!copy) return base::Status::Errno(errno, "%s", what.c_str());
    return copy;
  };
  if (root_) {
    ASSIGN_OR_RETURN(files.root_, again(root_, "its root directory"));
  }
  for (const auto& [from, to] : {std::pair{&tmp_, &files.tmp_}, {&jit_dirs_, &files.jit_dirs_}}) {
    for (const Directory& dir : *from) {
      ASSIGN_OR_RETURN(base::ScopedFd fd, again(dir.fd, dir.path));
      to->push_back({dir.path, std::move(fd)});
    }
  }
  return files;
}

bool ContainerFiles::AddJitdumpDirectory(const std::string& path) {
  const std::string dir = DirectoryOf(path);
  if (dir.empty()) return false;
  const std::string root_path = ProcPath(pid_, "root");
  base::ScopedFd root(::open(root_path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root) {
    problems_.push_back(base::Status::Errno(errno, "%s", root_path.c_str()).message());
    return false;
  }
  const size_t before = problems_.size();
  AddDirectory(root.get(), dir, jit_dirs_);
  return problems_.size() == before;
}

base::StatusOr<uint64_t> ContainerFiles::CopyPerfMap(const std::string& session_dir) const {
  if (tmp_.empty()) return base::Status::Errno(ENOENT, "its /tmp could not be opened");
  return CopyRegularFile(tmp_.front().fd.get(),
                         formats::PerfMapFileName(static_cast<uint32_t>(namespaces_.ns_pid)),
                         session_dir, formats::PerfMapFileName(static_cast<uint32_t>(pid_)));
}

ContainerFiles::ElfCopies ContainerFiles::CopyElfFiles(
    const std::string& session_dir, const std::set<std::string>& paths,
    std::map<std::string, std::string>& by_build_id) const {
  ElfCopies copied;
  if (!root_) return copied;
  for (const std::string& path : paths) {
    // The copy's path is its own under pid-<pid>/root: only a plain absolute path can be one.
    const std::string copy = CopiesDirectoryName(pid_) + "/root" + path;
    if (!path.starts_with('/') || !session::IsRelativeAndDescends(path.substr(1))) {
      copied.problems.push_back(path + ": not a plain absolute path");
      continue;
    }
    base::StatusOr<base::ScopedFd> source =
        OpenInRoot(root_.get(), path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (!source.ok()) {
      copied.problems.push_back(source.status().message());
      continue;
    }
    if (base::Status regular = CheckRegularFile(source->get(), path); !regular.ok()) {
      copied.problems.push_back(regular.message());
      continue;
    }
    char magic[4] = {};
    if (::pread(source->get(), magic, sizeof(magic), 0) != sizeof(magic) ||
        std::memcmp(magic, ELFMAG, SELFMAG) != 0) {
      continue;  // not ELF: no symbols or CFI to read
    }
    const std::string build_id = session::BuildIdOfFd(source->get());
    if (auto known = by_build_id.find(build_id); !build_id.empty() && known != by_build_id.end()) {
      copied.files.push_back({path, known->second});
      continue;
    }
    const size_t slash = copy.rfind('/');
    base::StatusOr<std::string> to_dir = MakeDirectories(session_dir, copy.substr(0, slash));
    if (!to_dir.ok()) {
      copied.problems.push_back(path + ": " + to_dir.status().message());
      continue;
    }
    base::StatusOr<uint64_t> bytes =
        CopyOpenFile(source->get(), path, *to_dir, copy.substr(slash + 1));
    if (!bytes.ok()) {
      copied.problems.push_back(bytes.status().message());
      continue;
    }
    copied.files.push_back({path, copy});
    copied.bytes += *bytes;
    if (!build_id.empty()) by_build_id.emplace(build_id, copy);
  }
  return copied;
}

ContainerFiles::Copied ContainerFiles::CopyInto(const std::string& session_dir) const {
  Copied copied;
  if (!tmp_.empty()) {
    base::StatusOr<uint64_t> bytes = CopyPerfMap(session_dir);
    if (bytes.ok()) {
      copied.files.push_back(formats::PerfMapFileName(static_cast<uint32_t>(pid_)));
      copied.bytes += *bytes;
    } else if (bytes.status().errno_value() != ENOENT) {
      copied.problems.push_back(tmp_.front().path + "/" + bytes.status().message());
    }
  }
  const std::string subdir = CopiesDirectoryName(pid_);
  std::set<std::string> names;  // copied already
  for (const Directory& dir : jit_dirs_) {
    base::StatusOr<std::vector<std::string>> listed = ListNames(dir.fd.get());
    if (!listed.ok()) {
      copied.problems.push_back(dir.path + ": " + listed.status().message());
      continue;
    }
    for (const std::string& name : *listed) {
      if (!IsJitFileOf(name, namespaces_.ns_pid) || !names.insert(name).second) continue;
      const std::string to_dir = session_dir + "/" + subdir;
      if (::mkdir(to_dir.c_str(), 0700) != 0 && errno != EEXIST) {
        copied.problems.push_back(base::Status::Errno(errno, "%s", to_dir.c_str()).message());
        return copied;
      }
      base::StatusOr<uint64_t> bytes = CopyRegularFile(dir.fd.get(), name, to_dir, name);
      if (bytes.ok()) {
        copied.files.push_back(subdir + "/" + name);
        copied.bytes += *bytes;
      } else {
        copied.problems.push_back(dir.path + "/" + bytes.status().message());
      }
    }
  }
  return copied;
}

}  // namespace jitscope::record
