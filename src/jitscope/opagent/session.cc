// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/opagent/session.h"

#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace jitscope::opagent {
namespace {

uint64_t RealtimeSeconds() {
  timeval tv{};
  ::gettimeofday(&tv, nullptr);
  return static_cast<uint64_t>(tv.tv_sec);
}

uint32_t ProcessId() { return static_cast<uint32_t>(::getpid()); }

int ErrnoOf(const base::Status& status, int fallback) {
  return status.errno_value() != 0 ? status.errno_value() : fallback;
}

}  // namespace

AgentEnvironment SystemAgentEnvironment() {
  return AgentEnvironment{[](const char* name) -> const char* { return ::getenv(name); },
                          &RealtimeSeconds, &ProcessId, collector::SystemEnvironment(),
                          DumpLocations{}};
}

base::StatusOr<std::unique_ptr<Session>> Session::Create(const AgentEnvironment& environment) {
  auto config = collector::ConfigFromEnvironment(environment.getenv);
  if (!config.ok()) return base::Status::Errno(EINVAL, "%s", config.status().message().c_str());
  collector::Log log =
      config->log_path.empty() ? collector::Log() : collector::Log::Open(config->log_path);
  ASSIGN_OR_RETURN(formats::OprofileBfdTarget target, formats::OprofileDumpWriter::HostTarget());
  ASSIGN_OR_RETURN(std::string directory,
                   ChooseDumpDirectory(environment.getenv, environment.locations));
  ASSIGN_OR_RETURN(base::ScopedFd fd, CreateDumpFile(directory, environment.pid()));
  const std::string dump_path = directory + "/" + std::to_string(environment.pid()) + ".dump";
  ASSIGN_OR_RETURN(
      formats::OprofileDumpWriter dump,
      formats::OprofileDumpWriter::Create(std::move(fd), target, environment.realtime_seconds()));
  ASSIGN_OR_RETURN(auto collector,
                   collector::Collector::Create(*config, log, environment.collector));
  log.Printf("writing the OProfile JIT dump to %s", dump_path.c_str());
  return std::unique_ptr<Session>(
      new Session(environment, std::move(dump), dump_path, std::move(collector), std::move(log)));
}

int Session::Emit(const trace::Event& event) {
  int error = 0;
  if (base::Status status = dump_.Write(event, environment_.realtime_seconds()); !status.ok()) {
    if (dump_write_failures_++ == 0) {
      log_.Printf("cannot write the OProfile dump %s (%s); further failures are counted",
                  dump_path_.c_str(), status.message().c_str());
    }
    error = ErrnoOf(status, EIO);
  }
  // The collector counts, logs and records its own failures.
  if (const auto refused = collector_->Submit(event); refused && error == 0) {
    error = *refused == trace::RejectReason::kTooLarge ? EFBIG : EIO;
  }
  return error;
}

int Session::Refuse(uint32_t call, trace::RejectReason reason) {
  collector_->Refuse(call, reason);
  return EINVAL;
}

int Session::OpenAgent(uint32_t agent) { return Emit(trace::OprofileOpenEvent{agent}); }

int Session::CloseAgent(uint32_t agent) {
  // The handle's code is forgotten (nothing can name it through this handle any more) but not
  // unloaded: as in OProfile, code lives until an unload or the end of the profile.
  registry_.ForgetAgent(agent);
  return Emit(trace::OprofileCloseEvent{agent});
}

int Session::WriteNativeCode(uint32_t agent, const char* name, uint64_t vma, const void* code,
                             unsigned int size) {
  if (name == nullptr) return Refuse(trace::kCallOpWriteNativeCode, trace::RejectReason::kNullName);
  if (vma == 0) return Refuse(trace::kCallOpWriteNativeCode, trace::RejectReason::kNullAddress);
  trace::OprofileCodeLoadEvent load;
  load.agent = agent;
  load.address = vma;
  load.code_address = reinterpret_cast<uintptr_t>(code);
  load.size = size;
  load.name = name;
  if (code != nullptr) load.code = {static_cast<const uint8_t*>(code), size};
  registry_.Load(LiveCode{vma, load.code_address, size, agent});
  return Emit(load);
}

int Session::WriteDebugLineInfo(uint32_t agent, const void* code, size_t count,
                                const struct debug_line_info* map) {
  constexpr uint32_t kCall = trace::kCallOpWriteDebugLineInfo;
  if (count == 0) return 0;  // libopagent writes nothing and succeeds
  if (map == nullptr) return Refuse(kCall, trace::RejectReason::kNullLineTable);
  const auto live = registry_.FindByCode(reinterpret_cast<uintptr_t>(code));
  if (!live) return Refuse(kCall, trace::RejectReason::kUnknownCode);

  // Entries name their file each; store every distinct name once (a JVM method usually has one).
  std::vector<trace::OprofileLineEntry> lines;
  lines.reserve(count);
  std::vector<uint32_t> ends;
  std::string names;
  std::unordered_map<std::string_view, uint32_t> index_of;
  for (size_t i = 0; i < count; ++i) {
    if (map[i].filename == nullptr) return Refuse(kCall, trace::RejectReason::kNullFileName);
    const std::string_view file(map[i].filename);
    auto [it, inserted] = index_of.try_emplace(file, static_cast<uint32_t>(ends.size()));
    if (inserted) {
      names.append(file);
      ends.push_back(static_cast<uint32_t>(names.size()));
    }
    lines.push_back(trace::OprofileLineEntry{map[i].vma, map[i].lineno, it->second});
  }
  trace::OprofileDebugLinesEvent event;
  event.agent = agent;
  event.code_address = reinterpret_cast<uintptr_t>(code);
  event.address = live->address;
  event.size = live->size;
  event.lines = lines;
  event.files = trace::FileTable{ends, names};
  return Emit(event);
}

int Session::UnloadNativeCode(uint32_t agent, uint64_t vma) {
  const auto live = registry_.Unload(vma);
  if (!live) {
    return Refuse(trace::kCallOpUnloadNativeCode, trace::RejectReason::kUnknownAddress);
  }
  return Emit(trace::OprofileUnloadEvent{agent, vma, live->size});
}

}  // namespace jitscope::opagent
