// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/record/session.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "jitscope/base/clock.h"
#include "jitscope/base/scoped_resource.h"
#include "jitscope/formats/samples_file.h"
#include "jitscope/formats/session_info.h"
#include "jitscope/record/event_config.h"
#include "jitscope/record/ring_buffer.h"

namespace jitscope::record {
namespace {

// 512 KiB of ring per CPU: at 1 kHz with 127-frame chains (~1 KiB each), half a second of samples
// between two drains, and the loop drains at least every 50 ms.
constexpr size_t kRingDataPages = 128;
constexpr int kPollTimeoutMs = 50;

volatile sig_atomic_t g_child_pid = 0;

// Forwards SIGINT/SIGTERM sent to jitscope (kill, a supervisor) to the command. A Ctrl-C typed at
// the terminal already reaches the command, which is in our process group (si_code SI_KERNEL);
// forwarding that one too would deliver it twice.
void ForwardSignal(int signal_number, siginfo_t* info, void*) {
  const bool from_terminal = info != nullptr && info->si_code == SI_KERNEL;
  if (g_child_pid > 0 && !from_terminal) ::kill(g_child_pid, signal_number);
}

int ReadParanoidLevel() {
  std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
  int level = INT_MIN;
  in >> level;
  return level;
}

base::StatusOr<base::ScopedFd> OpenEvent(perf_event_attr attr, pid_t pid, int cpu) {
  const long fd = ::syscall(SYS_perf_event_open, &attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) return base::Status::Errno(errno, "perf_event_open");
  return base::ScopedFd(static_cast<int>(fd));
}

// One event per CPU, all on the child. The kernel refuses to mmap an inherited per-task event
// opened with cpu == -1 (every descendant would write into one ring), so following threads and
// children takes one inherited event, and one ring, per CPU — as perf record does.
base::StatusOr<std::vector<base::ScopedFd>> OpenEvents(const SamplerOptions& sampler, pid_t pid) {
  std::vector<base::ScopedFd> fds;
  const long cpus = ::sysconf(_SC_NPROCESSORS_CONF);
  for (int cpu = 0; cpu < cpus; ++cpu) {
    base::StatusOr<base::ScopedFd> fd = OpenEvent(MakeSamplingAttr(sampler), pid, cpu);
    if (!fd.ok() && fd.status().errno_value() == ENODEV) continue;  // an offline CPU
    if (!fd.ok()) return fd.status();
    fds.push_back(std::move(*fd));
  }
  if (fds.empty()) return base::Status::Error("perf_event_open: no online CPU");
  return fds;
}

[[noreturn]] void RunChild(const SessionOptions& options, int go_fd, int error_fd) {
  char byte = 0;
  // Wait until the parent has attached the event (or gave up and closed the pipe).
  while (::read(go_fd, &byte, 1) < 0 && errno == EINTR) {
  }
  if (byte != 1) ::_exit(127);
  if (!options.collector_path.empty()) {
    ::setenv("INTEL_JIT_PROFILER64", options.collector_path.c_str(), 1);
  }
  if (!options.collector32_path.empty()) {
    ::setenv("INTEL_JIT_PROFILER32", options.collector32_path.c_str(), 1);
  }
  ::setenv("JITSCOPE_OUTPUT_DIR", options.output_dir.c_str(), 1);
  if (!options.formats.empty()) ::setenv("JITSCOPE_FORMATS", options.formats.c_str(), 1);
  std::vector<char*> argv;
  for (const std::string& arg : options.command) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  ::execvp(argv[0], argv.data());
  const int error = errno;
  (void)!::write(error_fd, &error, sizeof(error));
  ::_exit(127);
}

int ExitCodeOf(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 1;
}

}  // namespace

base::StatusOr<std::string> PrepareSessionDirectory(const std::string& dir) {
  std::string rotated;
  struct stat st {};
  if (::lstat(dir.c_str(), &st) == 0) {
    for (int n = 0; rotated.empty(); ++n) {
      std::string candidate = dir + (n == 0 ? std::string(".old") : "." + std::to_string(n));
      if (::lstat(candidate.c_str(), &st) != 0 && errno == ENOENT) rotated = candidate;
      if (n > 10000) return base::Status::Error("%s: no free name to rotate it to", dir.c_str());
    }
    // renameat2(RENAME_NOREPLACE) refuses to overwrite a name created since we looked.
    if (::renameat2(AT_FDCWD, dir.c_str(), AT_FDCWD, rotated.c_str(), RENAME_NOREPLACE) != 0) {
      return base::Status::Errno(errno, "moving the previous session %s to %s", dir.c_str(),
                                 rotated.c_str());
    }
  }
  if (::mkdir(dir.c_str(), 0700) != 0) {
    return base::Status::Errno(errno, "creating the session directory %s", dir.c_str());
  }
  return rotated;
}

base::StatusOr<std::string> FindCollector(const char* lib_directory) {
  char exe[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n <= 0) return base::Status::Errno(errno, "readlink /proc/self/exe");
  std::string path(exe, static_cast<size_t>(n));
  const size_t slash = path.rfind('/');
  path = path.substr(0, slash == std::string::npos ? 0 : slash) + "/../" + lib_directory +
         "/libjitscope-collector.so";
  char resolved[PATH_MAX];
  if (::realpath(path.c_str(), resolved) == nullptr) {
    return base::Status::Errno(errno, "the collector %s", path.c_str());
  }
  return std::string(resolved);
}

std::string PermissionAdvice(int paranoid_level) {
  std::string level =
      paranoid_level == INT_MIN ? std::string("unknown") : std::to_string(paranoid_level);
  return "sampling is not permitted (kernel.perf_event_paranoid = " + level +
         "). Profiling your own processes needs perf_event_paranoid <= 2 (user-space only) or "
         "<= 1 (with kernel frames). Fix: 'sudo sysctl kernel.perf_event_paranoid=1', or run "
         "jitscope with CAP_PERFMON ('sudo setcap cap_perfmon+ep $(command -v jitscope)'). In a "
         "container, the runtime's seccomp profile must also allow perf_event_open.";
}

base::StatusOr<SessionResult> RunSession(const SessionOptions& options) {
  if (options.command.empty()) return base::Status::Error("no command to record");
  SessionResult result;
  ASSIGN_OR_RETURN(result.rotated_to, PrepareSessionDirectory(options.output_dir));

  int go[2];
  int error_pipe[2];
  if (::pipe2(go, O_CLOEXEC) != 0 || ::pipe2(error_pipe, O_CLOEXEC) != 0) {
    return base::Status::Errno(errno, "pipe2");
  }
  base::ScopedFd go_read(go[0]), go_write(go[1]);
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
  go_read.reset();
  error_write.reset();

  // From here on, every early return must not leave the child waiting: closing go_write (in its
  // destructor) without writing the go byte makes it exit 127; we then reap it.
  auto abandon = [&](base::Status status) -> base::Status {
    go_write.reset();
    int ignored = 0;
    ::waitpid(child, &ignored, 0);
    return status;
  };

  SamplerOptions sampler{options.frequency_hz, /*include_kernel=*/true};
  base::StatusOr<std::vector<base::ScopedFd>> events = OpenEvents(sampler, child);
  auto denied = [&events] {
    return !events.ok() &&
           (events.status().errno_value() == EACCES || events.status().errno_value() == EPERM);
  };
  if (denied()) {
    // paranoid 2 still allows user-space samples of our own child: retry without the kernel.
    sampler.include_kernel = false;
    events = OpenEvents(sampler, child);
  }
  if (denied()) {
    return abandon(base::Status::Error("%s", PermissionAdvice(ReadParanoidLevel()).c_str()));
  }
  if (!events.ok()) return abandon(events.status());
  result.kernel_frames = sampler.include_kernel;
  std::vector<RingBuffer> rings;
  for (const base::ScopedFd& fd : *events) {
    base::StatusOr<RingBuffer> ring = RingBuffer::Map(fd.get(), kRingDataPages);
    if (!ring.ok()) return abandon(ring.status());
    rings.push_back(std::move(*ring));
  }
  base::StatusOr<formats::SamplesWriter> writer = formats::SamplesWriter::Create(
      options.output_dir, sampler.include_kernel ? formats::kFlagKernel : 0);
  if (!writer.ok()) return abandon(writer.status());
  const formats::SessionInfo info{.command = options.command,
                                  .pid = static_cast<uint32_t>(child),
                                  .frequency_hz = options.frequency_hz,
                                  .start_time_ns = base::MonotonicNowNs()};
  if (base::Status status = formats::WriteSessionInfo(options.output_dir, info); !status.ok()) {
    return abandon(status);
  }

  struct sigaction forward {};
  forward.sa_sigaction = ForwardSignal;
  forward.sa_flags = SA_SIGINFO | SA_RESTART;
  struct sigaction old_int {
  }, old_term{};
  g_child_pid = child;
  ::sigaction(SIGINT, &forward, &old_int);
  ::sigaction(SIGTERM, &forward, &old_term);

  const char go_byte = 1;
  (void)!::write(go_write.get(), &go_byte, 1);
  go_write.reset();
  int exec_error = 0;
  const bool exec_failed =
      ::read(error_read.get(), &exec_error, sizeof(exec_error)) == sizeof(exec_error);

  base::Status write_status;
  // Rings are drained one after the other, so records of different CPUs interleave in the file
  // only by drain round; readers order by timestamp where order matters.
  auto drain = [&] {
    for (RingBuffer& ring : rings) {
      result.records_bytes += ring.Drain([&](std::string_view record) {
        if (write_status.ok()) write_status = writer->Append(record);
      });
    }
  };
  std::vector<pollfd> pfds;
  for (const base::ScopedFd& fd : *events) pfds.push_back({fd.get(), POLLIN, 0});
  int wait_status = 0;
  for (;;) {
    ::poll(pfds.data(), pfds.size(), kPollTimeoutMs);
    drain();
    const pid_t done = ::waitpid(child, &wait_status, WNOHANG);
    if (done == child || (done < 0 && errno != EINTR)) break;
  }
  drain();
  g_child_pid = 0;
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGTERM, &old_term, nullptr);
  if (write_status.ok()) write_status = writer->Flush();
  RETURN_IF_ERROR(write_status);
  if (exec_failed) {
    result.exec_error =
        base::Status::Errno(exec_error, "cannot run '%s'", options.command[0].c_str());
    result.exit_code = 127;  // what a shell returns for a command it cannot run
    return result;
  }
  result.exit_code = ExitCodeOf(wait_status);
  return result;
}

}  // namespace jitscope::record
