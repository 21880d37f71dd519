// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/record/install_tree.h"

#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>

namespace jitscope::record {

base::StatusOr<std::string> FindInstalledLibrary(const std::string& file_name, const char* what,
                                                 const char* lib_directory) {
  char exe[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n <= 0) return base::Status::Errno(errno, "readlink /proc/self/exe");
  std::string path(exe, static_cast<size_t>(n));
  const size_t slash = path.rfind('/');
  path = path.substr(0, slash == std::string::npos ? 0 : slash) + "/../" + lib_directory + "/" +
         file_name;
  char resolved[PATH_MAX];
  if (::realpath(path.c_str(), resolved) == nullptr) {
    return base::Status::Errno(errno, "%s %s", what, path.c_str());
  }
  return std::string(resolved);
}

}  // namespace jitscope::record
