// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/session/session_info.h"

#include <fcntl.h>
#include <sys/file.h>

#include <algorithm>
#include <cerrno>

#include <nlohmann/json.hpp>

#include "jitscope/base/files.h"
#include "jitscope/base/scoped_resource.h"

namespace jitscope::session {

base::Status WriteSessionInfo(const std::string& directory, const SessionInfo& info) {
  nlohmann::ordered_json json = {{"command", info.command},
                                 {"pid", info.pid},
                                 {"frequency_hz", info.frequency_hz},
                                 {"start_time_ns", info.start_time_ns}};
  if (info.end_time_ns) json["end_time_ns"] = *info.end_time_ns;
  if (!info.attached.empty()) {
    nlohmann::ordered_json attached = nlohmann::ordered_json::array();
    for (const AttachedProcess& process : info.attached) {
      nlohmann::ordered_json item = {{"pid", process.pid},
                                     {"command", process.command},
                                     {"collector_output_dir", process.collector_output_dir}};
      if (process.ns_pid != 0) item["ns_pid"] = process.ns_pid;
      if (process.own_mounts) item["own_mounts"] = true;
      if (process.own_root) item["own_root"] = true;
      if (!process.copied.empty()) item["copied"] = process.copied;
      if (!process.elf_copies.empty()) {
        nlohmann::ordered_json copies = nlohmann::ordered_json::array();
        for (const ElfCopy& copy : process.elf_copies) {
          copies.push_back({{"path", copy.path}, {"copy", copy.copy}});
        }
        item["elf_copies"] = std::move(copies);
      }
      attached.push_back(std::move(item));
    }
    json["attached"] = std::move(attached);
  }
  if (info.system_wide) json["system_wide"] = true;
  if (info.jvm_perf_map) json["jvm_perf_map"] = true;
  if (info.jvm_agent) json["jvm_agent"] = true;
  const std::string text = json.dump() + "\n";
  return base::ReplaceFile(directory, kSessionInfoFileName,
                           [&](int fd) { return base::WriteAll(fd, text.data(), text.size()); });
}

namespace {

bool ParsePid(const nlohmann::json& object, uint32_t& pid, const char* key = "pid") {
  const auto value = object.find(key);
  if (value == object.end() || !value->is_number_unsigned() ||
      value->get<uint64_t>() > UINT32_MAX) {
    return false;
  }
  pid = static_cast<uint32_t>(value->get<uint64_t>());
  return true;
}

bool ParseStrings(const nlohmann::json& object, const char* key,
                  std::vector<std::string>& strings) {
  const auto list = object.find(key);
  if (list == object.end() || !list->is_array()) return false;
  for (const auto& item : *list) {
    if (!item.is_string()) return false;
    strings.push_back(item.get<std::string>());
  }
  return true;
}

bool ParseElfCopies(const nlohmann::json& object, std::vector<ElfCopy>& copies) {
  const auto list = object.find("elf_copies");
  if (list == object.end()) return true;
  if (!list->is_array()) return false;
  for (const auto& item : *list) {
    if (!item.is_object()) return false;
    const auto path = item.find("path");
    const auto copy = item.find("copy");
    if (path == item.end() || !path->is_string() || copy == item.end() || !copy->is_string()) {
      return false;
    }
    copies.push_back({path->get<std::string>(), copy->get<std::string>()});
  }
  return true;
}

bool ParseAttached(const nlohmann::json& json, std::vector<AttachedProcess>& attached) {
  const auto list = json.find("attached");
  if (list == json.end()) return true;  // a session of a command
  if (!list->is_array()) return false;
  for (const auto& item : *list) {
    AttachedProcess process;
    if (!item.is_object() || !ParsePid(item, process.pid) ||
        !ParseStrings(item, "command", process.command)) {
      return false;
    }
    const auto dir = item.find("collector_output_dir");
    if (dir == item.end() || !dir->is_string()) return false;
    process.collector_output_dir = dir->get<std::string>();
    if (item.contains("ns_pid") && !ParsePid(item, process.ns_pid, "ns_pid")) return false;
    for (auto [key, flag] :
         {std::pair{"own_mounts", &process.own_mounts}, std::pair{"own_root", &process.own_root}}) {
      const auto value = item.find(key);
      if (value == item.end()) continue;
      if (!value->is_boolean()) return false;
      *flag = value->get<bool>();
    }
    if (item.contains("copied") && !ParseStrings(item, "copied", process.copied)) return false;
    if (!ParseElfCopies(item, process.elf_copies)) return false;
    attached.push_back(std::move(process));
  }
  return true;
}

}  // namespace

base::StatusOr<SessionInfo> ParseSessionInfo(std::string_view bytes) {
  // Parsed without exceptions, then every field's type is checked.
  const nlohmann::json json = nlohmann::json::parse(bytes, nullptr, false);
  auto bad = [] { return base::Status::Error("not a jitscope session.json"); };
  if (!json.is_object()) return bad();
  SessionInfo info;
  if (!ParseStrings(json, "command", info.command)) return bad();
  for (auto [key, field] : {std::pair{"frequency_hz", &info.frequency_hz},
                            std::pair{"start_time_ns", &info.start_time_ns}}) {
    const auto value = json.find(key);
    if (value == json.end() || !value->is_number_unsigned()) return bad();
    *field = value->get<uint64_t>();
  }
  if (const auto end = json.find("end_time_ns"); end != json.end()) {
    if (!end->is_number_unsigned()) return bad();
    info.end_time_ns = end->get<uint64_t>();
  }
  if (!ParsePid(json, info.pid) || !ParseAttached(json, info.attached)) return bad();
  for (auto [key, flag] :
       {std::pair{"system_wide", &info.system_wide}, std::pair{"jvm_perf_map", &info.jvm_perf_map},
        std::pair{"jvm_agent", &info.jvm_agent}}) {
    const auto value = json.find(key);
    if (value == json.end()) continue;
    if (!value->is_boolean()) return bad();
    *flag = value->get<bool>();
  }
  return info;
}

bool IsRelativeAndDescends(std::string_view path) {
  if (path.empty() || path.starts_with('/')) return false;
  for (size_t start = 0; start <= path.size();) {
    const size_t end = std::min(path.find('/', start), path.size());
    const std::string_view component = path.substr(start, end - start);
    if (component.empty() || component == "." || component == "..") return false;
    start = end + 1;
  }
  return true;
}

std::string KeptFileName(std::string_view path) {
  if (!path.starts_with('/') || !IsRelativeAndDescends(path.substr(1))) return "";
  return std::string(kKeptFilesDirectory) + std::string(path);
}

std::map<std::string, uint32_t> CopiesDirectories(const std::string& directory,
                                                  const SessionInfo& info) {
  std::map<std::string, uint32_t> directories;
  for (const AttachedProcess& process : info.attached) {
    for (const std::string& copy : process.copied) {
      const size_t slash = copy.rfind('/');
      if (slash == std::string::npos || !IsRelativeAndDescends(copy)) continue;
      directories.emplace(directory + "/" + copy.substr(0, slash), process.pid);
    }
  }
  return directories;
}

std::map<std::pair<uint32_t, std::string>, std::string> ElfCopies(const std::string& directory,
                                                                  const SessionInfo& info) {
  std::map<std::pair<uint32_t, std::string>, std::string> copies;
  const std::string inside = base::RealPath(directory) + "/";
  if (inside == "/") return copies;
  for (const AttachedProcess& process : info.attached) {
    for (const ElfCopy& copy : process.elf_copies) {
      if (!copy.path.starts_with('/') || !IsRelativeAndDescends(copy.copy)) continue;
      // A link in the session (a hostile one planted it) must not lead out of it.
      const std::string path = directory + "/" + copy.copy;
      if (!base::RealPath(path).starts_with(inside) || !base::IsRegularFile(path)) continue;
      copies.emplace(std::pair{process.pid, copy.path}, path);
    }
  }
  return copies;
}

RecordingEnd RecordingEndOf(const std::string& directory, const SessionInfo& info) {
  if (!info.end_time_ns || *info.end_time_ns != 0) return RecordingEnd::kEnded;
  // The recorder holds an exclusive lock on the directory while it records: a shared one is
  // refused then, and granted once the recorder is gone, however it ended.
  base::ScopedFd fd(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd && ::flock(fd.get(), LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
    return RecordingEnd::kStillRecording;
  }
  return RecordingEnd::kCutShort;
}

base::StatusOr<SessionInfo> ReadSessionInfo(const std::string& directory) {
  const std::string path = directory + "/" + kSessionInfoFileName;
  ASSIGN_OR_RETURN(base::MappedFile file, base::MappedFile::Open(path));
  base::StatusOr<SessionInfo> info = ParseSessionInfo(file.bytes());
  if (!info.ok())
    return base::Status::Error("%s: %s", path.c_str(), info.status().message().c_str());
  return info;
}

}  // namespace jitscope::session
