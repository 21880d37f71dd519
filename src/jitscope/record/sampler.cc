// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/record/sampler.h"

#include <linux/perf_event.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>
#include <string>

#include "jitscope/record/off_cpu_reason.h"
#include "jitscope/record/permission_advice.h"
#include "jitscope/session/perf_record.h"

namespace jitscope::record {
namespace {

// 512 KiB of ring per CPU: at 1 kHz with 127-frame chains (~1 KiB each), half a second of samples
// between two drains, and the session drains at least every 50 ms.
constexpr size_t kRingDataPages = 128;
// With stack copies, room for this many samples, when that is more: a 64 KiB copy at 1 kHz fills
// 512 KiB in 8 ms.
constexpr size_t kRingSamples = 32;

// The ring's data pages for samples of `options` (a power of two).
size_t RingDataPages(const SamplerOptions& options) {
  size_t pages = kRingDataPages;
  if (options.call_graph.mode != CallGraph::kDwarf) return pages;
  const size_t page_size = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  while (pages * page_size < kRingSamples * options.call_graph.stack_size) pages *= 2;
  return pages;
}

// A ring for `fd` of `pages` data pages, or of the default when the kernel refuses to lock that
// much for this user (kernel.perf_event_mlock_kb, RLIMIT_MEMLOCK).
base::StatusOr<RingBuffer> MapRing(int fd, size_t pages) {
  base::StatusOr<RingBuffer> ring = RingBuffer::Map(fd, pages);
  if (!ring.ok() && pages > kRingDataPages &&
      (ring.status().errno_value() == EPERM || ring.status().errno_value() == ENOMEM)) {
    return RingBuffer::Map(fd, kRingDataPages);
  }
  return ring;
}

base::StatusOr<base::ScopedFd> OpenEvent(perf_event_attr attr, pid_t pid, int cpu) {
  const long fd = ::syscall(SYS_perf_event_open, &attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) return base::Status::Errno(errno, "perf_event_open");
  return base::ScopedFd(static_cast<int>(fd));
}

struct OpenedEvents {
  std::vector<base::ScopedFd> redirected;
  std::vector<base::ScopedFd> ring_owners;
  std::vector<RingBuffer> rings;
  size_t off_cpu_rings_from = SIZE_MAX;  // the rings of the off-CPU events, from this index on
};

// Opens `attr` on every CPU for each task, into `opened`: one event per CPU and task, one ring per
// CPU. The kernel refuses to mmap an inherited per-task event opened with cpu == -1 (every
// descendant would write into one ring), so following threads and children takes one inherited
// event, and one ring, per CPU — as perf record does.
base::Status OpenEventsOf(const perf_event_attr& attr, const SamplerOptions& options,
                          const SamplerTarget& target, OpenedEvents& opened, pid_t& failed_task) {
  const std::vector<pid_t> tasks = target.tasks.empty() ? std::vector<pid_t>{-1} : target.tasks;
  const size_t rings_before = opened.rings.size();
  const long cpus = ::sysconf(_SC_NPROCESSORS_CONF);
  for (int cpu = 0; cpu < cpus; ++cpu) {
    int ring_owner = -1;
    for (pid_t task : tasks) {
      base::StatusOr<base::ScopedFd> fd = OpenEvent(attr, task, cpu);
      if (!fd.ok() && fd.status().errno_value() == ENODEV) break;  // an offline CPU
      if (!fd.ok() && fd.status().errno_value() == ESRCH && target.running) continue;
      if (!fd.ok()) {
        failed_task = task;
        return fd.status();
      }
      if (ring_owner < 0) {
        // Mapped before any event is redirected to it: the kernel redirects only into an
        // existing ring (EINVAL otherwise).
        ASSIGN_OR_RETURN(RingBuffer ring, MapRing(fd->get(), RingDataPages(options)));
        ring_owner = fd->get();
        opened.ring_owners.push_back(std::move(*fd));
        opened.rings.push_back(std::move(ring));
        continue;
      }
      if (::ioctl(fd->get(), PERF_EVENT_IOC_SET_OUTPUT, ring_owner) != 0) {
        return base::Status::Errno(errno, "PERF_EVENT_IOC_SET_OUTPUT");
      }
      opened.redirected.push_back(std::move(*fd));
    }
  }
  if (opened.rings.size() == rings_before && target.running) {
    return base::Status::Error("every thread ended before it could be sampled");
  }
  if (opened.rings.size() == rings_before) {
    return base::Status::Error("perf_event_open: no online CPU");
  }
  return base::Status::Ok();
}

// The sampling events and, with --off-cpu, the off-CPU events, each into rings of their own: the
// off-CPU events' samples are told apart by the ring they come from.
base::StatusOr<OpenedEvents> OpenEvents(const SamplerOptions& options, const SamplerTarget& target,
                                        pid_t& failed_task) {
  auto adapt = [&target](perf_event_attr attr) {
    if (target.running) {
      attr.disabled = 0;
      attr.enable_on_exec = 0;
    }
    // A CPU's event on every process has no task whose children could inherit it.
    if (target.tasks.empty()) attr.inherit = 0;
    return attr;
  };
  OpenedEvents opened;
  RETURN_IF_ERROR(
      OpenEventsOf(adapt(MakeSamplingAttr(options)), options, target, opened, failed_task));
  if (options.off_cpu) {
    opened.off_cpu_rings_from = opened.rings.size();
    RETURN_IF_ERROR(
        OpenEventsOf(adapt(MakeOffCpuAttr(options)), options, target, opened, failed_task));
  }
  return opened;
}

bool Denied(const base::StatusOr<OpenedEvents>& events) {
  return !events.ok() &&
         (events.status().errno_value() == EACCES || events.status().errno_value() == EPERM);
}

}  // namespace

base::StatusOr<Sampler> Sampler::Open(SamplerOptions options, const SamplerTarget& target) {
  pid_t failed_task = -1;
  base::StatusOr<OpenedEvents> events = OpenEvents(options, target, failed_task);
  if (!events.ok() && events.status().errno_value() == EINVAL && options.build_ids) {
    // A kernel before 5.12 knows no attr.build_id: MMAP2 records then name device and inode.
    options.build_ids = false;
    events = OpenEvents(options, target, failed_task);
  }
  if (Denied(events) && options.off_cpu) {
    // Its samples are the kernel's (the scheduler's): no user-space-only fallback.
    const pid_t process = target.running ? failed_task : 0;
    return base::Status::Error("%s", OffCpuRefusal(ReadPermissionFacts(process), process).c_str());
  }
  if (Denied(events) && options.include_kernel) {
    // paranoid 2 still allows user-space samples of our own processes: retry without the kernel.
    options.include_kernel = false;
    events = OpenEvents(options, target, failed_task);
  }
  if (Denied(events)) {
    const pid_t process = target.running ? failed_task : 0;
    return base::Status::Error("%s",
                               PerfEventRefusal(ReadPermissionFacts(process), process).c_str());
  }
  if (!events.ok()) return events.status();
  Sampler sampler(options, std::move(events->redirected), std::move(events->ring_owners),
                  std::move(events->rings), events->off_cpu_rings_from);
  if (options.off_cpu) sampler.kernel_symbols_ = KernelSymbols::Read();
  return sampler;
}

void Sampler::Wait(int timeout_ms) {
  std::vector<pollfd> pfds;
  pfds.reserve(ring_events_.size());
  for (const base::ScopedFd& fd : ring_events_) pfds.push_back({fd.get(), POLLIN, 0});
  ::poll(pfds.data(), pfds.size(), timeout_ms);
}

uint16_t Sampler::OffCpuMark(std::string_view record) {
  session::OffCpuReason reason = session::OffCpuReason::kUnknown;
  if (kernel_symbols_ &&
      session::ParseSampleRecord(record, SamplesFormatOf(options_).layout, scratch_).ok()) {
    functions_.clear();
    for (const session::CallchainEntry& frame : scratch_.callchain) {
      if (frame.kernel) functions_.push_back(kernel_symbols_->Find(frame.ip));
    }
    reason = OffCpuReasonOf(functions_);
  }
  return static_cast<uint16_t>(session::kMiscOffCpu |
                               (static_cast<uint16_t>(reason) << session::kMiscOffCpuReasonShift));
}

size_t Sampler::Drain(const std::function<void(std::string_view record)>& consume) {
  size_t bytes = 0;
  for (size_t i = 0; i < rings_.size(); ++i) {
    if (i < off_cpu_rings_from_) {
      bytes += rings_[i].Drain(consume);
      continue;
    }
    // An off-CPU event writes samples only (and LOST records): each is marked as one.
    bytes += rings_[i].Drain([&](std::string_view record) {
      if (session::RecordHeader(record).type != PERF_RECORD_SAMPLE) return consume(record);
      const uint16_t mark = OffCpuMark(record);
      marked_.assign(record);
      perf_event_header header = session::RecordHeader(marked_);
      header.misc |= mark;
      std::memcpy(marked_.data(), &header, sizeof(header));
      consume(marked_);
    });
  }
  return bytes;
}

}  // namespace jitscope::record
