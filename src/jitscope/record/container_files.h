// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// `record -p`/`record -a` of a process in other namespaces than record's, a container's. Its
// JIT files are named by its pid in its own pid namespace (perf-<nspid>.map,
// jit-<nspid>.dump, the collector's jit-<nspid>.jsc) and lie at paths of its own mount namespace,
// often on a /tmp of its own that nothing outside sees. They are reached through /proc/PID/root
// and copied into the session directory, so that the session is reported on its own, after the
// process and its files are gone:
//
//   <session>/perf-<pid>.map        its /tmp/perf-<nspid>.map (where --jvm-perf-map keeps a map)
//   <session>/pid-<pid>/jit-<nspid>…  its jitdumps and collector traces, under their own names;
//                                     session.json says whose they are (report cannot tell from
//                                     the pid their headers carry, the namespace's)
//
// The directories that hold them are opened (O_PATH) when the recording starts, and the files
// copied when it ends, with everything the process wrote by then. The process may have exited
// meanwhile and its mount namespace gone with it: the fds still reach its files, since a mount
// detached from its namespace lives on while an fd refers to it (the e2e test checks this of a
// private tmpfs). Paths are resolved as the process resolves them (openat2 RESOLVE_IN_ROOT on its
// /proc/PID/root): its symbolic links stay inside its root and never reach record's own files;
// a file is copied only if it is a regular file (never a FIFO a hostile process planted).
//
// A process in record's own mount namespace whose pid is the same in its namespace is left alone:
// report reads its files where they are, as before, and nothing large is copied needlessly.
//
// Its ELF files are copied only when its root directory is not record's (a container's image:
// its paths name other files, or none, on the host), and only those its samples touched
// (touched_files.h; a container's libraries and runtime are hundreds of MB), each whole:
//
//   <session>/pid-<pid>/root/<path>   its file <path>, as it named it in its mappings
//
// A file of the same build id as one copied before (another process of the same image) is not
// copied again: session.json's "elf_copies" names the first copy for both. They are opened
// through its root, which is opened when the recording starts and held, as its directories are,
// and copied when it ends: after its exit they are still found on its root's filesystem (not on
// mounts inside its root, which its mount namespace took with it). report reads them in place of
// the paths (walk/file_identity.h); a process that shares record's root (`unshare --mount`)
// has its ELF files read where they are.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "jitscope/base/scoped_resource.h"
#include "jitscope/base/status.h"
#include "jitscope/record/proc_files.h"
#include "jitscope/session/session_info.h"

namespace jitscope::record {

// How process `pid` sees the machine, against this process.
struct ProcessNamespaces {
  pid_t ns_pid = 0;           // its pid in its own pid namespace (NSpid)
  bool other_mounts = false;  // its mount namespace is not this process's
  bool other_root = false;    // its root directory is not this process's: its paths name others
  bool operator==(const ProcessNamespaces&) const = default;
};

// Reads them from /proc/PID/status, /proc/PID/ns/mnt and /proc/PID/root (the last two need the
// same access as its maps). Without NSpid (Linux < 4.1) its pid is taken as it is.
base::StatusOr<ProcessNamespaces> ReadNamespaces(pid_t pid);

// Whether its JIT files are to be copied: they are not where, or not named as, record sees them.
bool NeedsCopies(pid_t pid, const ProcessNamespaces& namespaces);

// Opens `path` (absolute, or relative to `root`) as a process whose root directory is open as
// `root` resolves it: "..", absolute symbolic links and mount points all stay within `root`.
// `flags` as open(2)'s; O_CLOEXEC is added.
base::StatusOr<base::ScopedFd> OpenInRoot(int root, const std::string& path, int flags);

// The directory, inside the session directory, that holds the jitdumps and traces of `pid`.
std::string CopiesDirectoryName(pid_t pid);

class ContainerFiles {
 public:
  // When the recording starts: opens process `pid`'s root and the directories its JIT files are
  // in, its /tmp, its collector's output directory (`collector_output_dir`, a path of its mount
  // namespace; "" for none) and those of the jitdumps among `mappings` (its /proc/PID/maps). A
  // directory that cannot be opened is noted in problems() (it may not exist: a process without
  // a collector, /tmp never written to), not an error; a process whose root cannot be opened is.
  static base::StatusOr<ContainerFiles> Open(pid_t pid, const ProcessNamespaces& namespaces,
                                             const std::string& collector_output_dir,
                                             const std::vector<ProcMapping>& mappings);

  // A process `child` that this one started while recorded, in `child_namespaces` (a fork shares
  // its parent's mount namespace and root): its JIT files are in the same directories, named by
  // its own pid in its namespace. The directories are opened again, so either may be copied first.
  base::StatusOr<ContainerFiles> ForChild(pid_t child,
                                          const ProcessNamespaces& child_namespaces) const;
  // The process mapped the jitdump `path` (a path of its mount namespace) while recorded: the
  // directory is opened now, while the process lives (through /proc/PID/root), so its JIT files
  // there are copied at the end. False when it cannot be opened (problems() says why).
  bool AddJitdumpDirectory(const std::string& path);

  struct Copied {
    std::vector<std::string> files;  // relative to the session directory
    uint64_t bytes = 0;
    std::vector<std::string> problems;  // a file that could not be copied, and why
  };
  // When it ends: copies the process's perf map, jitdumps and traces into `session_dir`
  // (replacing earlier copies).
  Copied CopyInto(const std::string& session_dir) const;
  struct ElfCopies {
    std::vector<session::ElfCopy> files;  // session.json's "elf_copies"
    uint64_t bytes = 0;                   // of the files copied (not those another copy stood for)
    std::vector<std::string> problems;    // a file that could not be copied, and why
  };
  // When it ends, of a process whose root is not record's: copies its ELF files at `paths` (its
  // mappings' names, in its root) to `session_dir`/pid-<pid>/root/<path>, once per build id: a
  // file whose build id `by_build_id` holds is that copy's (relative to `session_dir`), and those
  // copied are added to it. A path that is not a regular ELF file (a jitdump it maps) is passed
  // over; a process that shares record's root has nothing copied.
  ElfCopies CopyElfFiles(const std::string& session_dir, const std::set<std::string>& paths,
                         std::map<std::string, std::string>& by_build_id) const;
  // Copies its perf map alone, as CopyInto does (for --jvm-perf-map); returns its size. ENOENT
  // when it has none.
  base::StatusOr<uint64_t> CopyPerfMap(const std::string& session_dir) const;

  pid_t pid() const { return pid_; }
  const ProcessNamespaces& namespaces() const { return namespaces_; }
  const std::vector<std::string>& problems() const { return problems_; }

 private:
  struct Directory {
    std::string path;  // in the process's mount namespace, for messages
    base::ScopedFd fd;
  };
  ContainerFiles() = default;
  void AddDirectory(int root, const std::string& path, std::vector<Directory>& to);

  pid_t pid_ = 0;
  ProcessNamespaces namespaces_;
  base::ScopedFd root_;              // its root directory, when it is not record's
  std::vector<Directory> tmp_;       // its /tmp (none if it could not be opened)
  std::vector<Directory> jit_dirs_;  // its collector's output directory, its jitdumps'
  std::vector<std::string> problems_;
};

}  // namespace jitscope::record
