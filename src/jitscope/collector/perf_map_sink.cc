// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/collector/perf_map_sink.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "jitscope/base/files.h"
#include "jitscope/formats/perf_map_writer.h"

namespace jitscope::collector {
namespace {

// Why an existing path is left alone, for the warning.
base::Status Occupied(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    return base::Status::Errno(errno, "cannot create %s", path.c_str());
  }
  if (S_ISLNK(st.st_mode)) {
    return base::Status::Error("%s is a symbolic link; not following it", path.c_str());
  }
  if (st.st_uid != ::geteuid()) {
    return base::Status::Error("%s belongs to another user (uid %u); not writing to it",
                               path.c_str(), static_cast<unsigned>(st.st_uid));
  }
  return base::Status::Error(
      "%s already exists: another perf map writer in this process (oneDNN with "
      "DNNL_JIT_PROFILE=2, a JVM agent, ...) or a leftover of an earlier process with this pid "
      "(`jitscope clean` removes those); not touching it",
      path.c_str());
}

}  // namespace

base::StatusOr<std::unique_ptr<PerfMapSink>> PerfMapSink::Create(const std::string& directory,
                                                                 uint32_t pid) {
  const std::string name = formats::PerfMapFileName(pid);
  const std::string path = directory + "/" + name;
  // Another user's directory (JITSCOPE_PERF_MAP_DIR) is refused, as the output directory is:
  // they could replace or read what we write there. /tmp is root's.
  RETURN_IF_ERROR(base::OpenOwnDirectory(directory).status());
  auto fd = base::CreateExclusive(directory, name, 0600);
  if (!fd.ok()) {
    if (fd.status().errno_value() == EEXIST) return Occupied(path);
    return fd.status();
  }
  base::TagCreatedByJitscope(fd->get(), "perfmap");
  const int flags = ::fcntl(fd->get(), F_GETFL);
  if (flags < 0 || ::fcntl(fd->get(), F_SETFL, flags | O_APPEND) != 0) {
    return base::Status::Errno(errno, "cannot set %s to append", path.c_str());
  }
  return std::unique_ptr<PerfMapSink>(new PerfMapSink(std::move(fd).value(), path));
}

base::Status PerfMapSink::error() const {
  std::lock_guard lock(error_mutex_);
  return error_;
}

EventSink::Result PerfMapSink::Write(const trace::Record& record) {
  if (failed_.load(std::memory_order_relaxed)) return Result::kWriteFailed;
  if (const auto* unload = std::get_if<trace::UnloadEvent>(&record.event)) {
    {
      std::lock_guard lock(regions_mutex_);
      regions_.Remove(unload->method_id);
    }
    names_.Forget(unload->method_id);
    return Result::kOk;
  }
  if (const auto* load = std::get_if<trace::OprofileCodeLoadEvent>(&record.event)) {
    return WriteLine(formats::FormatPerfMapLine(load->address, load->size, load->name));
  }
  const auto* code = std::get_if<trace::CodeEvent>(&record.event);
  if (code == nullptr || code->api_event == trace::kEventMethodInlineLoadFinished) {
    return Result::kOk;
  }
  std::vector<uint32_t> gone;
  {
    std::lock_guard lock(regions_mutex_);
    for (const auto& dropped : regions_.Place({code->address, code->size, code->method_id, {}})) {
      if (!regions_.Contains(dropped.method_id)) gone.push_back(dropped.method_id);
    }
  }
  for (const uint32_t method_id : gone) names_.Forget(method_id);
  return WriteLine(
      formats::FormatPerfMapLine(code->address, code->size, names_.Resolve(*code).name));
}

EventSink::Result PerfMapSink::WriteLine(const std::string& line) {
  // One write() per line and no retry: finishing a short write with a second call could put
  // another thread's line inside this one.
  ssize_t written;
  do {
    written = ::write(fd_.get(), line.data(), line.size());
  } while (written < 0 && errno == EINTR);
  if (written == static_cast<ssize_t>(line.size())) return Result::kOk;
  const int error = written < 0 ? errno : ENOSPC;
  std::lock_guard lock(error_mutex_);
  if (!failed_.exchange(true)) {
    error_ = base::Status::Errno(error, "cannot write %s", path_.c_str());
  }
  return Result::kWriteFailed;
}

}  // namespace jitscope::collector
