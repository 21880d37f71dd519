// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/record/session.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "jitscope/base/clock.h"
#include "jitscope/base/scoped_resource.h"
#include "jitscope/record/attach.h"
#include "jitscope/record/contained_children.h"
#include "jitscope/record/install_tree.h"
#include "jitscope/record/jcmd.h"
#include "jitscope/record/jvm_agent.h"
#include "jitscope/record/jvm_perf_map.h"
#include "jitscope/record/kept_files.h"
#include "jitscope/record/sampler.h"
#include "jitscope/record/session_directory.h"
#include "jitscope/record/signal_forwarder.h"
#include "jitscope/record/stop_signals.h"
#include "jitscope/record/touched_files.h"
#include "jitscope/record/vdso.h"
#include "jitscope/session/samples_file.h"
#include "jitscope/session/session_info.h"

namespace jitscope::record {
namespace {

constexpr int kPollTimeoutMs = 50;

[[noreturn]] void RunChild(const SessionOptions& options, int go_fd, int error_fd) {
  char byte = 0;
  // Wait until the parent has attached the event (or gave up and closed the pipe).
  while (::read(go_fd, &byte, 1) < 0 && errno == EINTR) {
  }
  if (byte != 1) ::_exit(127);
  // With -p the command only times the recording: it runs as it would without jitscope.
  if (options.attach.empty()) {
    // One collector serves both of Intel's APIs, as VTune's does: the JIT Profiling API's stub
    // reads INTEL_JIT_PROFILER*, the ITT API's static part (oneDNN's, TBB's) INTEL_LIBITTNOTIFY*.
    if (!options.collector_path.empty()) {
      ::setenv("INTEL_JIT_PROFILER64", options.collector_path.c_str(), 1);
      if (options.itt) ::setenv("INTEL_LIBITTNOTIFY64", options.collector_path.c_str(), 1);
    }
    if (!options.collector32_path.empty()) {
      ::setenv("INTEL_JIT_PROFILER32", options.collector32_path.c_str(), 1);
      if (options.itt) ::setenv("INTEL_LIBITTNOTIFY32", options.collector32_path.c_str(), 1);
    }
    ::setenv("JITSCOPE_OUTPUT_DIR", options.output_dir.c_str(), 1);
    if (!options.jvm_tool_options.empty()) {
      // After the user's own: HotSpot reads JAVA_TOOL_OPTIONS before the command line, in order.
      const char* given = std::getenv("JAVA_TOOL_OPTIONS");
      const std::string tool_options = given != nullptr && *given != '\0'
                                           ? std::string(given) + " " + options.jvm_tool_options
                                           : options.jvm_tool_options;
      ::setenv("JAVA_TOOL_OPTIONS", tool_options.c_str(), 1);
    }
    if (!options.preload_path.empty()) {
      const char* preloaded = std::getenv("LD_PRELOAD");
      const std::string preload = preloaded != nullptr && *preloaded != '\0'
                                      ? options.preload_path + ":" + preloaded
                                      : options.preload_path;
      ::setenv("LD_PRELOAD", preload.c_str(), 1);
    }
    if (!options.formats.empty()) ::setenv("JITSCOPE_FORMATS", options.formats.c_str(), 1);
  }
  std::vector<char*> argv;
  for (const std::string& arg : options.command) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  ::execvp(argv[0], argv.data());
  const int error = errno;
  (void)!::write(error_fd, &error, sizeof(error));
  ::_exit(127);
}

// The command, forked and waiting on a pipe until the sampler is attached. Destroyed before
// Release(), it closes the pipe without the go byte, so the child exits 127, and reaps it: an
// early error return never leaves a child behind.
class PendingCommand {
 public:
  static base::StatusOr<PendingCommand> Start(const SessionOptions& options) {
    int go[2];
    int error_pipe[2];
    if (::pipe2(go, O_CLOEXEC) != 0) return base::Status::Errno(errno, "pipe2");
    base::ScopedFd go_read(go[0]), go_write(go[1]);
    if (::pipe2(error_pipe, O_CLOEXEC) != 0) return base::Status::Errno(errno, "pipe2");
    base::ScopedFd error_read(error_pipe[0]), error_write(error_pipe[1]);
    const pid_t child = ::fork();
    if (child < 0) return base::Status::Errno(errno, "fork");
    if (child == 0) {
      // The child keeps only its ends: holding the write end of `go` would keep it from ever
      // seeing the parent close it.
      ::close(go_write.release());
      ::close(error_read.release());
      RunChild(options, go_read.get(), error_write.get());
    }
    return PendingCommand(child, std::move(go_write), std::move(error_read));
  }

  PendingCommand(PendingCommand&& other) noexcept
      : pid_(std::exchange(other.pid_, 0)),
        go_write_(std::move(other.go_write_)),
        error_read_(std::move(other.error_read_)) {}
  PendingCommand& operator=(PendingCommand&&) = delete;
  ~PendingCommand() {
    if (pid_ <= 0 || !go_write_) return;
    go_write_.reset();
    int ignored = 0;
    ::waitpid(pid_, &ignored, 0);
  }

  pid_t pid() const { return pid_; }

  // Lets the child exec the command. Returns 0 once the exec succeeded (the pipe closed on exec),
  // or the errno of the failed exec.
  int Release() {
    const char go_byte = 1;
    (void)!::write(go_write_.get(), &go_byte, 1);
    go_write_.reset();
    int exec_error = 0;
    if (::read(error_read_.get(), &exec_error, sizeof(exec_error)) != sizeof(exec_error)) return 0;
    return exec_error;
  }

 private:
  PendingCommand(pid_t pid, base::ScopedFd go_write, base::ScopedFd error_read)
      : pid_(pid), go_write_(std::move(go_write)), error_read_(std::move(error_read)) {}

  pid_t pid_ = 0;
  base::ScopedFd go_write_;
  base::ScopedFd error_read_;
};

int ExitCodeOf(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 1;
}

// Drains the sampler into `writer` until `done()`, then once more for what the last moments left
// in the rings. A write error stops writing (the draining goes on, so the kernel never blocks on a
// full ring) and is returned in `write_status`. Every kCheckpointIntervalNs the writer is
// checkpointed: what it has reaches the file while the recording goes on.
// `observe`, if set, sees each record first.
void DrainUntil(Sampler& sampler, const std::function<bool()>& done, session::RecordSink& writer,
                base::Status& write_status,
                const std::function<void(std::string_view)>& observe = nullptr) {
  auto drain = [&] {
    sampler.Drain([&](std::string_view record) {
      if (observe) observe(record);
      if (write_status.ok()) write_status = writer.Append(record);
    });
  };
  uint64_t checkpoint = base::MonotonicNowNs() + session::kCheckpointIntervalNs;
  do {
    sampler.Wait(kPollTimeoutMs);
    drain();
    if (const uint64_t now = base::MonotonicNowNs(); now >= checkpoint) {
      if (write_status.ok()) write_status = writer.Checkpoint();
      checkpoint = now + session::kCheckpointIntervalNs;
    }
  } while (!done());
  drain();
}

// The samples file of `sampler`'s samples, written by `make_sink` if set, and the vDSO beside
// it (which the sink may read from the start). `elsewhere`: RecordSinkSetup's.
base::StatusOr<std::unique_ptr<session::RecordSink>> CreateSessionFiles(
    const std::string& dir, const Sampler& sampler, const RecordSinkFactory& make_sink,
    std::vector<uint32_t> elsewhere = {}) {
  RETURN_IF_ERROR(SaveVdso(dir));
  const uint64_t flags = sampler.options().include_kernel ? session::kFlagKernel : 0;
  const session::SamplesFormat format = SamplesFormatOf(sampler.options());
  if (make_sink) return make_sink({dir, flags, format, std::move(elsewhere)});
  ASSIGN_OR_RETURN(session::SamplesWriter writer,
                   session::SamplesWriter::Create(dir, flags, format));
  return std::unique_ptr<session::RecordSink>(
      std::make_unique<session::SamplesWriter>(std::move(writer)));
}

SamplerOptions SamplerOptionsOf(const SessionOptions& options) {
  return {.frequency_hz = options.frequency_hz,
          .include_kernel = true,
          .call_graph = options.call_graph,
          .build_ids = true,
          .switch_events = options.switch_events,
          .off_cpu = options.off_cpu};
}

// A pidfd of each attached process: readable once it has exited, and never another process that
// reused its pid.
base::StatusOr<base::ScopedFd> OpenPidfd(pid_t pid, const PermissionFacts& facts) {
  const long fd = ::syscall(SYS_pidfd_open, pid, 0);
  if (fd < 0) {
    const int error = errno;
    return base::Status::Error(
        "%s", ProcRefusal(facts, pid, "pidfd_open(" + std::to_string(pid) + ")", error).c_str());
  }
  return base::ScopedFd(static_cast<int>(fd));
}

bool AllExited(const std::vector<base::ScopedFd>& pidfds) {
  std::vector<pollfd> pfds;
  for (const base::ScopedFd& fd : pidfds) pfds.push_back({fd.get(), POLLIN, 0});
  if (::poll(pfds.data(), pfds.size(), 0) < 0) return false;
  return std::all_of(pfds.begin(), pfds.end(), [](const pollfd& p) { return p.revents != 0; });
}

std::vector<pid_t> ThreadsOf(const std::vector<AttachTarget>& targets) {
  std::vector<pid_t> tasks;
  for (const AttachTarget& target : targets) {
    // A process that ended since has no threads left to list.
    base::StatusOr<std::vector<pid_t>> threads = ListThreads(target.pid);
    if (threads.ok()) tasks.insert(tasks.end(), threads->begin(), threads->end());
  }
  std::sort(tasks.begin(), tasks.end());
  return tasks;
}

// Opens the events on every thread of `targets`. A thread created between the listing and the
// opening of its creator's event is in no event, so the threads are listed again once the
// events exist, and the events reopened on the new list while a thread is missing (a few
// times: a process that creates threads without pause keeps only the later ones' inheritance).
base::StatusOr<Sampler> OpenOnThreads(const SessionOptions& options,
                                      const std::vector<AttachTarget>& targets) {
  std::vector<pid_t> tasks;
  for (const AttachTarget& target : targets) {
    tasks.insert(tasks.end(), target.threads.begin(), target.threads.end());
  }
  std::sort(tasks.begin(), tasks.end());
  const SamplerOptions sampler_options = SamplerOptionsOf(options);
  for (int attempt = 0;; ++attempt) {
    ASSIGN_OR_RETURN(Sampler sampler,
                     Sampler::Open(sampler_options, SamplerTarget{tasks, /*running=*/true}));
    const std::vector<pid_t> now = ThreadsOf(targets);
    if (attempt == 3 || std::includes(tasks.begin(), tasks.end(), now.begin(), now.end())) {
      return sampler;
    }
    tasks = now;
  }
}

// record -a: every process running now that this user may inspect, into `targets`; the others
// (kernel threads, another user's processes) into `others`, to be named if they can be.
void InspectEveryProcess(std::vector<AttachTarget>& targets, std::vector<PermissionFacts>& facts,
                         std::vector<pid_t>& others) {
  base::StatusOr<std::vector<pid_t>> pids = ListProcesses();
  if (!pids.ok()) return;
  for (pid_t pid : *pids) {
    if (pid == ::getpid()) continue;
    PermissionFacts process_facts = ReadPermissionFacts(pid);
    base::StatusOr<AttachTarget> target = InspectProcess(pid, process_facts);
    if (!target.ok()) {
      others.push_back(pid);
      continue;
    }
    targets.push_back(std::move(*target));
    facts.push_back(std::move(process_facts));
  }
}

// --jvm-perf-map: each JVM's perf map into the session directory, and a note of what happened.
void CaptureJvmPerfMaps(const std::vector<pid_t>& jvms,
                        const std::vector<ContainerFiles>& containers,
                        const std::string& session_dir, const char* when,
                        std::vector<std::string>& notes) {
  for (pid_t pid : jvms) {
    const auto container =
        std::find_if(containers.begin(), containers.end(),
                     [&](const ContainerFiles& files) { return files.pid() == pid; });
    base::StatusOr<size_t> methods =
        CaptureJvmPerfMap(pid, session_dir, container == containers.end() ? nullptr : &*container);
    notes.push_back(
        methods.ok()
            ? "asked JVM " + std::to_string(pid) + " " + when + " for its compiled code (jcmd " +
                  std::to_string(pid) + " Compiler.perfmap): " + std::to_string(*methods) +
                  " entries, kept as " + session_dir + "/perf-" + std::to_string(pid) + ".map"
            : "--jvm-perf-map " + std::string(when) + ": " + methods.status().message());
  }
}

// `path` made absolute (and its links resolved): for a process whose working directory is not ours.
base::StatusOr<std::string> AbsolutePath(const std::string& path) {
  char resolved[PATH_MAX];
  if (::realpath(path.c_str(), resolved) == nullptr) {
    return base::Status::Errno(errno, "%s", path.c_str());
  }
  return std::string(resolved);
}

// What session.json says of an attached process (its copies are added when the recording ends).
session::AttachedProcess DescribeProcess(const AttachTarget& target) {
  const ProcessNamespaces& ns = target.namespaces;
  return {.pid = static_cast<uint32_t>(target.pid),
          .command = target.command,
          .collector_output_dir = target.collector_output_dir,
          .ns_pid = ns.ns_pid != target.pid ? static_cast<uint32_t>(ns.ns_pid) : 0,
          .own_mounts = ns.other_mounts,
          .own_root = ns.other_root,
          .copied = {}};
}

// "process PID (pid NSPID in its namespace, ...)", for notes.
std::string DescribeNamespaced(const ContainerFiles& files) {
  return "process " + std::to_string(files.pid()) + " (pid " +
         std::to_string(files.namespaces().ns_pid) + " in its namespace" +
         (files.namespaces().other_mounts ? ", with mounts of its own" : "") +
         (files.namespaces().other_root ? ", with a root directory of its own" : "") + ")";
}

// Copies the ELF files that the samples of the processes with a root directory of their own
// touched into the session directory (container_files.h), lists them in `info` and says what was
// done. Reads the samples file, written whole by now.
void CopyContainerElfFiles(const std::vector<ContainerFiles>& containers,
                           const std::string& session_dir, session::SessionInfo& info,
                           std::vector<std::string>& notes) {
  std::set<uint32_t> pids;
  for (const ContainerFiles& files : containers) {
    if (files.namespaces().other_root) pids.insert(static_cast<uint32_t>(files.pid()));
  }
  if (pids.empty()) return;
  base::StatusOr<session::SampleData> data =
      session::ReadSamplesFile(session_dir + "/" + session::kSamplesFileName);
  if (!data.ok()) {
    notes.push_back(
        "cannot find the ELF files of the processes with a root directory of their "
        "own to keep, their native code stays unnamed: " +
        data.status().message());
    return;
  }
  const std::map<uint32_t, std::set<std::string>> touched = TouchedFiles(*data, pids);
  std::map<std::string, std::string> by_build_id;  // of every process: one copy per build
  for (const ContainerFiles& files : containers) {
    const auto paths = touched.find(static_cast<uint32_t>(files.pid()));
    if (paths == touched.end()) continue;
    ContainerFiles::ElfCopies copied = files.CopyElfFiles(session_dir, paths->second, by_build_id);
    const std::string who = DescribeNamespaced(files);
    if (!copied.files.empty()) {
      notes.push_back(who + ": kept the " + std::to_string(copied.files.size()) +
                      " ELF files its samples are in under " + session_dir + "/" +
                      CopiesDirectoryName(files.pid()) + "/root (" + std::to_string(copied.bytes) +
                      " bytes; one copy per build id)");
    }
    for (const std::string& problem : copied.problems) {
      notes.push_back(who + ": could not keep " + problem);
    }
    for (session::AttachedProcess& process : info.attached) {
      if (process.pid == static_cast<uint32_t>(files.pid())) process.elf_copies = copied.files;
    }
  }
}

// Copies the JIT files of the processes in other namespaces into the session directory, lists
// them in `info` and says what was done. Under -a, a process with nothing to copy is not
// mentioned (a machine may run many containers without JIT code).
// A child the processes started while recorded (`children`) is mentioned, and listed, only when
// it has files to copy: a shell's `sleep` has none.
void CopyContainerFiles(const std::vector<ContainerFiles>& containers, bool system_wide,
                        const std::set<pid_t>& children, const std::string& session_dir,
                        session::SessionInfo& info, std::vector<std::string>& notes) {
  for (const ContainerFiles& files : containers) {
    const ContainerFiles::Copied copied = files.CopyInto(session_dir);
    const bool quiet = system_wide || children.contains(files.pid());
    const std::string who = DescribeNamespaced(files);
    if (!copied.files.empty()) {
      std::string list;
      for (const std::string& file : copied.files) {
        list += (list.empty() ? "" : ", ") + session_dir + "/" + file;
      }
      notes.push_back(who + ": kept its JIT files as " + list + " (" +
                      std::to_string(copied.bytes) + " bytes)");
    } else if (!quiet) {
      notes.push_back(who + ": found no perf map (its /tmp/perf-" +
                      std::to_string(files.namespaces().ns_pid) +
                      ".map), jitdump or jitscope trace to keep; its JIT code stays unnamed");
      for (const std::string& problem : files.problems()) notes.push_back(who + ": " + problem);
    }
    for (const std::string& problem : copied.problems) {
      notes.push_back(who + ": could not keep " + problem);
    }
    for (session::AttachedProcess& process : info.attached) {
      if (process.pid == static_cast<uint32_t>(files.pid())) process.copied = copied.files;
    }
  }
  // Of the whole machine, and of the children, only the processes whose JIT files there are to
  // find.
  std::erase_if(info.attached, [&](const session::AttachedProcess& process) {
    return (system_wide || children.contains(static_cast<pid_t>(process.pid))) &&
           process.collector_output_dir.empty() && process.copied.empty() &&
           process.elf_copies.empty();
  });
}

// Keeps in the session the JIT files its processes wrote outside it (kept_files.h), and says
// which.
void KeepJitFiles(const JitFileWatch& watch, const std::vector<std::string>& collector_dirs,
                  const std::set<uint32_t>& elsewhere, const std::string& session_dir,
                  std::vector<std::string>& notes) {
  const JitFileWatch::Kept kept = watch.Keep(collector_dirs, elsewhere);
  if (!kept.files.empty()) {
    std::string list;
    for (const std::string& file : kept.files) list += (list.empty() ? "" : ", ") + file;
    notes.push_back("kept the JIT files the processes wrote outside the session in " + session_dir +
                    "/" + session::kKeptFilesDirectory + " (" + std::to_string(kept.bytes) +
                    " bytes), so it reports the same wherever it " + "goes: " + list);
  }
  for (const std::string& problem : kept.problems) {
    notes.push_back("could not keep " + problem + "; report reads it where it is, while it is");
  }
}

// record -a: one event per CPU on every process.
base::StatusOr<Sampler> OpenOnEveryCpu(const SessionOptions& options) {
  return Sampler::Open(SamplerOptionsOf(options), SamplerTarget{{}, /*running=*/true});
}

// record -p and record -a (see session.h), in its phases: Inspect the processes, Prepare what
// goes beside the sampler (the session directory, the command that times the recording, the JVM
// agents), Start (the events, the session's files and what existed before them), Record until
// the end, Finish (what is kept of the processes' files, the command, the files flushed); where
// Prepare or Start fails, or the command cannot run, Abandon gives the session directory back as
// it was. Its members are declared in the order the phases make them, so they end in the reverse
// order.
class AttachSession {
 public:
  explicit AttachSession(const SessionOptions& options) : options_(options) {}

  base::Status Inspect() {
    if (options_.system_wide) InspectEveryProcess(targets_, facts_, others_);
    for (pid_t pid : options_.attach) {
      facts_.push_back(ReadPermissionFacts(pid));
      ASSIGN_OR_RETURN(AttachTarget target, InspectProcess(pid, facts_.back()));
      ASSIGN_OR_RETURN(base::ScopedFd pidfd, OpenPidfd(pid, facts_.back()));
      targets_.push_back(std::move(target));
      pidfds_.push_back(std::move(pidfd));
    }
    return base::Status::Ok();
  }

  base::Status Prepare() {
    std::string agent;  // --jvm-agent
    if (options_.jvm_agent) {
      ASSIGN_OR_RETURN(agent, FindJvmtiAgent());
    }
    agents_.emplace(agent);
    ASSIGN_OR_RETURN(PreparedSession prepared, PrepareSessionDirectory(options_.output_dir));
    result_.rotated_to = std::move(prepared.rotated_to);
    result_.session_lock = std::move(prepared.lock);
    if (!options_.command.empty()) {
      ASSIGN_OR_RETURN(PendingCommand pending, PendingCommand::Start(options_));
      command_.emplace(std::move(pending));
    }
    if (options_.jvm_perf_map || options_.jvm_agent) {
      for (const AttachTarget& target : targets_) {
        if (IsJavaVm(target.pid)) jvms_.push_back(target.pid);
      }
      if (jvms_.empty()) {
        result_.notes.push_back(std::string(options_.jvm_perf_map ? "--jvm-perf-map" : "") +
                                (options_.jvm_perf_map && options_.jvm_agent ? ", " : "") +
                                (options_.jvm_agent ? "--jvm-agent" : "") +
                                ": no Java VM among the processes");
      }
    }
    // Before the recording starts: the code the agent replays is then known from the first sample.
    if (options_.jvm_agent) {
      ASSIGN_OR_RETURN(std::string session_dir, AbsolutePath(options_.output_dir));
      agents_->Start(jvms_, session_dir, result_.notes);
    }
    return base::Status::Ok();
  }

  base::Status Start() {
    const uint64_t start_ns = base::MonotonicNowNs();
    ASSIGN_OR_RETURN(Sampler sampler, options_.system_wide ? OpenOnEveryCpu(options_)
                                                           : OpenOnThreads(options_, targets_));
    sampler_.emplace(std::move(sampler));
    result_.kernel_frames = sampler_->options().include_kernel;
    std::vector<uint32_t> elsewhere;
    for (const AttachTarget& target : targets_) {
      if (NeedsCopies(target.pid, target.namespaces)) elsewhere.push_back(target.pid);
    }
    // Of them and of the processes they start (containers' children): what keeps their JIT
    // files is container_files.h, not kept_files.h.
    other_namespaces_.insert(elsewhere.begin(), elsewhere.end());
    ASSIGN_OR_RETURN(sink_, CreateSessionFiles(options_.output_dir, *sampler_, options_.record_sink,
                                               std::move(elsewhere)));
    jit_files_.emplace(options_.output_dir, SamplesFormatOf(sampler_->options()).layout);
    session::RecordSink& writer = *sink_;
    info_ = session::SessionInfo{.command = options_.command,
                                 .pid = command_ ? static_cast<uint32_t>(command_->pid()) : 0,
                                 .frequency_hz = options_.frequency_hz,
                                 .start_time_ns = start_ns,
                                 .end_time_ns = 0,
                                 .attached = {},
                                 .system_wide = options_.system_wide};
    // What existed before the events did, stamped before them: every sample comes later.
    for (size_t i = 0; i < targets_.size(); ++i) {
      base::StatusOr<std::vector<std::string>> records =
          SynthesizeExisting(targets_[i].pid, start_ns, facts_[i]);
      // Of the whole machine, a process that ended since is passed over.
      if (!records.ok() && options_.system_wide) continue;
      RETURN_IF_ERROR(records.status());
      for (const std::string& record : *records) {
        jit_files_->Observe(record);
        RETURN_IF_ERROR(writer.Append(record));
      }
      const bool in_other_namespaces = NeedsCopies(targets_[i].pid, targets_[i].namespaces);
      if (in_other_namespaces) {
        // Its files' directories, opened while it lives (container_files.h).
        base::StatusOr<std::vector<ProcMapping>> mappings =
            ReadMappings(targets_[i].pid, facts_[i]);
        base::StatusOr<ContainerFiles> files =
            mappings.ok() ? ContainerFiles::Open(targets_[i].pid, targets_[i].namespaces,
                                                 targets_[i].collector_output_dir, *mappings)
                          : base::StatusOr<ContainerFiles>(mappings.status());
        if (files.ok()) {
          containers_.push_back(std::move(*files));
        } else if (!options_.system_wide) {
          result_.notes.push_back("process " + std::to_string(targets_[i].pid) +
                                  " runs in other namespaces, and its JIT files cannot be "
                                  "reached: " +
                                  files.status().message());
        }
      }
      // Of the whole machine, only the processes whose traces there are to find.
      if (options_.system_wide && targets_[i].collector_output_dir.empty() &&
          !in_other_namespaces) {
        continue;
      }
      info_.attached.push_back(DescribeProcess(targets_[i]));
    }
    for (pid_t pid : others_) {
      base::StatusOr<std::vector<std::string>> names =
          SynthesizeNames(pid, start_ns, ReadPermissionFacts(pid));
      if (!names.ok()) continue;  // ended since
      for (const std::string& record : *names) {
        RETURN_IF_ERROR(writer.Append(record));
      }
    }
    info_.jvm_perf_map = options_.jvm_perf_map;
    info_.jvm_agent = options_.jvm_agent;
    RETURN_IF_ERROR(session::WriteSessionInfo(options_.output_dir, info_));
    if (options_.jvm_perf_map) {
      CaptureJvmPerfMaps(jvms_, containers_, options_.output_dir, "at the start", result_.notes);
    }
    return base::Status::Ok();
  }

  // Releases the command and drains the rings until the recording ends. False when the command
  // could not be run: the result says why, the directory is as it was, and there is nothing to
  // finish.
  bool Record() {
    // The processes those in other namespaces start while recorded, followed as the records come.
    children_.emplace(containers_, SamplesFormatOf(sampler_->options()).layout);
    StopSignals stop;
    if (command_) {
      if (const int exec_error = command_->Release(); exec_error != 0) {
        // It never ran, so nothing was recorded: the directory is given back as it was.
        ::waitpid(command_->pid(), &wait_status_, 0);
        result_.exec_error = Abandon(
            base::Status::Errno(exec_error, "cannot run '%s'", options_.command[0].c_str()));
        result_.exit_code = 127;
        return false;
      }
    }
    auto done = [&] {
      if (stop.received() != 0) {
        result_.stopped_by = stop.received() == SIGINT ? "SIGINT" : "SIGTERM";
      } else if (command_ &&
                 ::waitpid(command_->pid(), &wait_status_, WNOHANG) == command_->pid()) {
        command_ended_ = true;
        result_.stopped_by = "the command ended";
      } else if (!pidfds_.empty() && AllExited(pidfds_)) {
        result_.stopped_by = pidfds_.size() == 1 ? "the process exited" : "the processes exited";
      }
      return !result_.stopped_by.empty();
    };
    DrainUntil(*sampler_, done, *sink_, write_status_, [this](std::string_view record) {
      children_->Observe(record);
      jit_files_->Observe(record);
    });
    return true;
  }

  base::StatusOr<SessionResult> Finish() {
    session::RecordSink& writer = *sink_;
    agents_->Stop(result_.notes);
    // The samples file whole, and the unwinding thread (walk/recording_unwinder.h) done with its
    // last batches, before anything more is written into the session: those batches read the JIT
    // files as they stand, and one that read a file being kept or copied there would leave its
    // samples for the end. The samples are also read back below, for the ELF files they touched.
    if (write_status_.ok()) write_status_ = writer.Flush();
    if (options_.jvm_perf_map) {
      // The JVMs that still run have compiled more since: their maps again.
      std::erase_if(jvms_, [](pid_t pid) { return !IsJavaVm(pid); });
      CaptureJvmPerfMaps(jvms_, containers_, options_.output_dir, "at the end", result_.notes);
    }
    if (!containers_.empty()) {
      for (pid_t child : children_->children()) {
        const auto& files =
            *std::find_if(containers_.begin(), containers_.end(),
                          [child](const ContainerFiles& f) { return f.pid() == child; });
        AttachTarget target;
        target.pid = child;
        target.namespaces = files.namespaces();
        info_.attached.push_back(DescribeProcess(target));
      }
      if (!options_.system_wide) {
        for (const std::string& problem : children_->problems()) result_.notes.push_back(problem);
      }
      CopyContainerElfFiles(containers_, options_.output_dir, info_, result_.notes);
      const std::set<pid_t> started(children_->children().begin(), children_->children().end());
      CopyContainerFiles(containers_, options_.system_wide, started, options_.output_dir, info_,
                         result_.notes);
      RETURN_IF_ERROR(session::WriteSessionInfo(options_.output_dir, info_));
    }
    std::vector<std::string> collector_dirs;
    for (const session::AttachedProcess& process : info_.attached) {
      if (process.Elsewhere()) {
        other_namespaces_.insert(process.pid);
      } else if (!process.collector_output_dir.empty()) {
        collector_dirs.push_back(process.collector_output_dir);
      }
    }
    for (const ContainerFiles& files : containers_) {
      other_namespaces_.insert(static_cast<uint32_t>(files.pid()));
    }
    KeepJitFiles(*jit_files_, collector_dirs, other_namespaces_, options_.output_dir,
                 result_.notes);
    if (command_ && !command_ended_) {
      // Stopped before the command ended: it only timed the recording, so it goes too.
      ::kill(command_->pid(), SIGTERM);
      while (::waitpid(command_->pid(), &wait_status_, 0) < 0 && errno == EINTR) {
      }
    }
    result_.records_bytes = writer.records_bytes();
    RETURN_IF_ERROR(write_status_);
    info_.end_time_ns = base::MonotonicNowNs();
    RETURN_IF_ERROR(session::WriteSessionInfo(options_.output_dir, info_));
    result_.exit_code = command_ended_ ? ExitCodeOf(wait_status_) : 0;
    return std::move(result_);
  }

  SessionResult TakeResult() { return std::move(result_); }

  // The recording never began (Prepare or Start failed, or the command could not run), `why`:
  // what they began is stopped, then the session directory is given back as it was
  // (AbandonSessionDirectory).
  base::Status Abandon(base::Status why) {
    sink_.reset();
    sampler_.reset();
    command_.reset();
    agents_.reset();
    return AbandonSessionDirectory(
        PreparedSession{std::move(result_.rotated_to), std::move(result_.session_lock)},
        options_.output_dir, std::move(why));
  }

 private:
  const SessionOptions& options_;
  // Inspect.
  std::vector<AttachTarget> targets_;
  std::vector<PermissionFacts> facts_;
  std::vector<base::ScopedFd> pidfds_;
  std::vector<pid_t> others_;  // record -a: processes only named
  // Prepare.
  std::optional<LoadedJvmAgents> agents_;
  SessionResult result_;
  std::optional<PendingCommand> command_;
  std::vector<pid_t> jvms_;  // --jvm-perf-map, --jvm-agent
  // Start.
  std::optional<Sampler> sampler_;
  std::unique_ptr<session::RecordSink> sink_;
  session::SessionInfo info_;
  std::vector<ContainerFiles> containers_;  // of the processes in other namespaces
  std::set<uint32_t> other_namespaces_;     // theirs and their children's pids
  std::optional<JitFileWatch> jit_files_;   // the JIT files the processes wrote elsewhere
  // Record.
  std::optional<ContainedChildren> children_;
  base::Status write_status_;
  int wait_status_ = 0;
  bool command_ended_ = false;
};

base::StatusOr<SessionResult> RunAttachSession(const SessionOptions& options) {
  AttachSession session(options);
  RETURN_IF_ERROR(session.Inspect());
  base::Status begun = session.Prepare();
  if (begun.ok()) begun = session.Start();
  if (!begun.ok()) return session.Abandon(std::move(begun));
  if (!session.Record()) return session.TakeResult();
  return session.Finish();
}

}  // namespace

base::StatusOr<std::string> FindCollector(const char* lib_directory) {
  return FindInstalledLibrary("libjitscope-collector.so", "the collector", lib_directory);
}

base::StatusOr<SessionResult> RunSession(const SessionOptions& options) {
  if (!options.attach.empty() || options.system_wide) return RunAttachSession(options);
  if (options.command.empty()) return base::Status::Error("no command to record");
  SessionResult result;
  // The events are opened on the command, not yet running, before the session directory is made:
  // a refusal leaves an earlier session where it was.
  ASSIGN_OR_RETURN(PendingCommand command, PendingCommand::Start(options));
  ASSIGN_OR_RETURN(
      Sampler sampler,
      Sampler::Open(SamplerOptionsOf(options), SamplerTarget{{command.pid()}, /*running=*/false}));
  result.kernel_frames = sampler.options().include_kernel;
  ASSIGN_OR_RETURN(PreparedSession prepared, PrepareSessionDirectory(options.output_dir));
  session::SessionInfo info{.command = options.command,
                            .pid = static_cast<uint32_t>(command.pid()),
                            .frequency_hz = options.frequency_hz,
                            .start_time_ns = base::MonotonicNowNs(),
                            .end_time_ns = 0,
                            .attached = {}};
  base::StatusOr<std::unique_ptr<session::RecordSink>> created =
      CreateSessionFiles(options.output_dir, sampler, options.record_sink);
  base::Status begun = created.status();
  if (begun.ok()) begun = session::WriteSessionInfo(options.output_dir, info);
  if (!begun.ok()) {
    if (created.ok()) created->reset();  // its files are closed before the directory goes
    return AbandonSessionDirectory(std::move(prepared), options.output_dir, std::move(begun));
  }
  std::unique_ptr<session::RecordSink> sink = std::move(created).value();
  session::RecordSink& writer = *sink;
  JitFileWatch jit_files(options.output_dir, SamplesFormatOf(sampler.options()).layout);

  int wait_status = 0;
  int exec_error = 0;
  base::Status write_status;
  {
    SignalForwarder forwarder(command.pid());
    exec_error = command.Release();
    auto exited = [&] {
      const pid_t done = ::waitpid(command.pid(), &wait_status, WNOHANG);
      return done == command.pid() || (done < 0 && errno != EINTR);
    };
    if (exec_error == 0) {
      DrainUntil(sampler, exited, writer, write_status,
                 [&jit_files](std::string_view record) { jit_files.Observe(record); });
    }
  }
  if (exec_error != 0) {
    // The command never ran, so nothing was recorded: the directory is given back as it was.
    ::waitpid(command.pid(), &wait_status, 0);
    sink.reset();
    result.exec_error = AbandonSessionDirectory(
        std::move(prepared), options.output_dir,
        base::Status::Errno(exec_error, "cannot run '%s'", options.command[0].c_str()));
    result.exit_code = 127;  // what a shell returns for a command it cannot run
    return result;
  }
  result.rotated_to = std::move(prepared.rotated_to);
  result.session_lock = std::move(prepared.lock);
  if (write_status.ok()) write_status = writer.Flush();
  result.records_bytes = writer.records_bytes();
  RETURN_IF_ERROR(write_status);
  KeepJitFiles(jit_files, {}, {}, options.output_dir, result.notes);
  info.end_time_ns = base::MonotonicNowNs();
  RETURN_IF_ERROR(session::WriteSessionInfo(options.output_dir, info));
  result.exit_code = ExitCodeOf(wait_status);
  return result;
}

}  // namespace jitscope::record
