// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/walk/file_identity.h"

#include <algorithm>

#include "jitscope/base/files.h"
#include "jitscope/session/elf_build_id.h"
#include "jitscope/session/session_info.h"

namespace jitscope::walk {

const std::string* FileIdentity::FileOf(const session::Mapping& mapping) {
  const std::string* file = &mapping.filename;
  if (auto copy = copies_.find({mapping.pid, mapping.filename}); copy != copies_.end()) {
    file = &copy->second;
  } else if (other_roots_.contains(mapping.pid)) {
    if (mapping.build_id.empty()) {
      std::string unchecked = mapping.filename + " (pid " + std::to_string(mapping.pid) + ")";
      if (std::find(unchecked_.begin(), unchecked_.end(), unchecked) == unchecked_.end()) {
        unchecked_.push_back(std::move(unchecked));
      }
      return nullptr;
    }
  } else if (const std::string* archived = ArchivedCopyOf(mapping)) {
    return archived;
  }
  if (mapping.build_id.empty()) return file;
  if (BuildIdNow(*file) == mapping.build_id) return file;
  const bool noted = std::any_of(replaced_.begin(), replaced_.end(),
                                 [&](const Replaced& r) { return r.path == *file; });
  if (!noted) replaced_.push_back({*file, mapping.build_id, BuildIdNow(*file)});
  return nullptr;
}

const std::string* FileIdentity::ArchivedCopyOf(const session::Mapping& mapping) {
  if (archive_.empty()) return nullptr;
  auto [it, inserted] = archive_copies_.try_emplace(mapping.filename);
  if (inserted) {
    // Only a regular file inside the session: a link planted in it must not lead out.
    const std::string name = session::KeptFileName(mapping.filename);
    const std::string copy = archive_ + "/" + name;
    const std::string inside = base::RealPath(archive_) + "/";
    if (!name.empty() && inside != "/" && base::RealPath(copy).starts_with(inside) &&
        base::IsRegularFile(copy)) {
      it->second = copy;
    }
  }
  const std::string& copy = it->second;
  if (copy.empty()) return nullptr;
  if (!mapping.build_id.empty() && BuildIdNow(copy) != mapping.build_id) {
    if (std::none_of(refused_copies_.begin(), refused_copies_.end(),
                     [&](const Replaced& r) { return r.path == copy; })) {
      refused_copies_.push_back({copy, mapping.build_id, BuildIdNow(copy)});
    }
    return nullptr;
  }
  if (std::find(archived_.begin(), archived_.end(), copy) == archived_.end()) {
    archived_.push_back(copy);
  }
  return &copy;
}

const std::string& FileIdentity::BuildIdNow(const std::string& file) {
  auto [it, inserted] = now_.try_emplace(file);
  if (inserted) it->second = session::BuildIdOfFile(file);
  return it->second;
}

std::string FileIdentity::DebugPath() const {
  return archive_.empty() ? ":.debug:/usr/lib/debug"
                          : ":.debug:" + archive_ + "/" + session::kKeptFilesDirectory +
                                "/usr/lib/debug:/usr/lib/debug";
}

std::string DescribeArchiveUse(const FileIdentity& files) {
  const size_t n = files.archived().size();
  if (n == 0) return "";
  return std::to_string(n) + " native file" + (n == 1 ? "" : "s") +
         " read from the session's archive (" + files.archive() + "/" +
         session::kKeptFilesDirectory + "), not from this machine";
}

std::string DescribeRefusedCopy(const FileIdentity::Replaced& copy) {
  return copy.path + ": the archived copy is another build than the one recorded (build id " +
         copy.recorded + " then, " + (copy.now.empty() ? "none" : copy.now) +
         " in the copy): not used";
}

}  // namespace jitscope::walk
