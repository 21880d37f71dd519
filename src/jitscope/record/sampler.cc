// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/record/sampler.h"

#include <linux/perf_event.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <fstream>
#include <string>

namespace jitscope::record {
namespace {

// 512 KiB of ring per CPU: at 1 kHz with 127-frame chains (~1 KiB each), half a second of samples
// between two drains, and the session drains at least every 50 ms.
constexpr size_t kRingDataPages = 128;

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

struct OpenedEvents {
  std::vector<base::ScopedFd> redirected;
  std::vector<base::ScopedFd> ring_owners;
};

// One event per CPU and task. The kernel refuses to mmap an inherited per-task event opened with
// cpu == -1 (every descendant would write into one ring), so following threads and children
// takes one inherited event, and one ring, per CPU — as perf record does.
base::StatusOr<OpenedEvents> OpenEvents(const SamplerOptions& options,
                                        const SamplerTarget& target) {
  const perf_event_attr attr = MakeSamplingAttr(options);
  const std::vector<pid_t> tasks = target.tasks.empty() ? std::vector<pid_t>{-1} : target.tasks;
  OpenedEvents opened;
  const long cpus = ::sysconf(_SC_NPROCESSORS_CONF);
  for (int cpu = 0; cpu < cpus; ++cpu) {
    int ring_owner = -1;
    for (pid_t task : tasks) {
      base::StatusOr<base::ScopedFd> fd = OpenEvent(attr, task, cpu);
      if (!fd.ok() && fd.status().errno_value() == ENODEV) break;  // an offline CPU
      if (!fd.ok()) return fd.status();
      if (ring_owner < 0) {
        ring_owner = fd->get();
        opened.ring_owners.push_back(std::move(*fd));
        continue;
      }
      if (::ioctl(fd->get(), PERF_EVENT_IOC_SET_OUTPUT, ring_owner) != 0) {
        return base::Status::Errno(errno, "PERF_EVENT_IOC_SET_OUTPUT");
      }
      opened.redirected.push_back(std::move(*fd));
    }
  }
  if (opened.ring_owners.empty()) return base::Status::Error("perf_event_open: no online CPU");
  return opened;
}

bool Denied(const base::StatusOr<OpenedEvents>& events) {
  return !events.ok() &&
         (events.status().errno_value() == EACCES || events.status().errno_value() == EPERM);
}

}  // namespace

base::StatusOr<Sampler> Sampler::Open(SamplerOptions options, const SamplerTarget& target) {
  base::StatusOr<OpenedEvents> events = OpenEvents(options, target);
  if (Denied(events) && options.include_kernel) {
    // paranoid 2 still allows user-space samples of our own processes: retry without the kernel.
    options.include_kernel = false;
    events = OpenEvents(options, target);
  }
  if (Denied(events)) {
    return base::Status::Error("%s", PermissionAdvice(ReadParanoidLevel()).c_str());
  }
  if (!events.ok()) return events.status();
  std::vector<RingBuffer> rings;
  for (const base::ScopedFd& fd : events->ring_owners) {
    ASSIGN_OR_RETURN(RingBuffer ring, RingBuffer::Map(fd.get(), kRingDataPages));
    rings.push_back(std::move(ring));
  }
  return Sampler(options, std::move(events->redirected), std::move(events->ring_owners),
                 std::move(rings));
}

void Sampler::Wait(int timeout_ms) {
  std::vector<pollfd> pfds;
  pfds.reserve(ring_events_.size());
  for (const base::ScopedFd& fd : ring_events_) pfds.push_back({fd.get(), POLLIN, 0});
  ::poll(pfds.data(), pfds.size(), timeout_ms);
}

size_t Sampler::Drain(const std::function<void(std::string_view record)>& consume) {
  size_t bytes = 0;
  for (RingBuffer& ring : rings_) bytes += ring.Drain(consume);
  return bytes;
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

}  // namespace jitscope::record
