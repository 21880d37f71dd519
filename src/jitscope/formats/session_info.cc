// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/formats/session_info.h"

#include <nlohmann/json.hpp>

#include "jitscope/base/files.h"

namespace jitscope::formats {

base::Status WriteSessionInfo(const std::string& directory, const SessionInfo& info) {
  const nlohmann::ordered_json json = {{"command", info.command},
                                       {"pid", info.pid},
                                       {"frequency_hz", info.frequency_hz},
                                       {"start_time_ns", info.start_time_ns}};
  const std::string text = json.dump() + "\n";
  ASSIGN_OR_RETURN(base::ScopedFd fd, base::CreateExclusive(directory, kSessionInfoFileName));
  return base::WriteAll(fd.get(), text.data(), text.size());
}

base::StatusOr<SessionInfo> ParseSessionInfo(std::string_view bytes) {
  // Parsed without exceptions, then every field's type is checked.
  const nlohmann::json json = nlohmann::json::parse(bytes, nullptr, false);
  auto bad = [] { return base::Status::Error("not a jitscope session.json"); };
  if (!json.is_object()) return bad();
  SessionInfo info;
  const auto command = json.find("command");
  if (command == json.end() || !command->is_array()) return bad();
  for (const auto& arg : *command) {
    if (!arg.is_string()) return bad();
    info.command.push_back(arg.get<std::string>());
  }
  for (auto [key, field] : {std::pair{"frequency_hz", &info.frequency_hz},
                            std::pair{"start_time_ns", &info.start_time_ns}}) {
    const auto value = json.find(key);
    if (value == json.end() || !value->is_number_unsigned()) return bad();
    *field = value->get<uint64_t>();
  }
  const auto pid = json.find("pid");
  if (pid == json.end() || !pid->is_number_unsigned() || pid->get<uint64_t>() > UINT32_MAX) {
    return bad();
  }
  info.pid = static_cast<uint32_t>(pid->get<uint64_t>());
  return info;
}

base::StatusOr<SessionInfo> ReadSessionInfo(const std::string& directory) {
  const std::string path = directory + "/" + kSessionInfoFileName;
  ASSIGN_OR_RETURN(base::MappedFile file, base::MappedFile::Open(path));
  base::StatusOr<SessionInfo> info = ParseSessionInfo(file.bytes());
  if (!info.ok())
    return base::Status::Error("%s: %s", path.c_str(), info.status().message().c_str());
  return info;
}

}  // namespace jitscope::formats
