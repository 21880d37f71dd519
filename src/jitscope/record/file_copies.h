// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Copies of other programs' files into a session directory: a container's JIT and ELF files
// (container_files.h), the JIT files processes wrote outside the session (kept_files.h) and the
// ELF files an archive keeps (archive.h). A copy is made whole or not at all (base::ReplaceFile):
// a reader never finds half a file. Sources are opened without following a link at their last
// component and refused unless they are regular files: a FIFO or a device planted where a file
// was expected is never read.
#pragma once

#include <cstdint>
#include <string>

#include "jitscope/base/scoped_resource.h"
#include "jitscope/base/status.h"

namespace jitscope::record {

// Opens `name` relative to the directory `dir` (AT_FDCWD: the current directory; an absolute
// `name` ignores it) for reading, refusing anything but a regular file. ENOENT when it is not
// there.
base::StatusOr<base::ScopedFd> OpenRegularFileAt(int dir, const std::string& name);

// Fails unless `fd` (`name` in messages) is a regular file.
base::Status CheckRegularFile(int fd, const std::string& name);

// Copies the file open as `source` (`name` in messages) to `to_dir`/`to_name`, whole or not at
// all; returns its size.
base::StatusOr<uint64_t> CopyOpenFile(int source, const std::string& name,
                                      const std::string& to_dir, const std::string& to_name);

// OpenRegularFileAt, then CopyOpenFile.
base::StatusOr<uint64_t> CopyRegularFile(int dir, const std::string& name,
                                         const std::string& to_dir, const std::string& to_name);

// Creates (or opens) the directories of `relative` (a path that descends:
// session::IsRelativeAndDescends) in the directory `top`, never following a link, and returns
// the path of the last.
base::StatusOr<std::string> MakeDirectories(const std::string& top, const std::string& relative);

}  // namespace jitscope::record
