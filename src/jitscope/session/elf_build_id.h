// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The GNU build id of an ELF file (its NT_GNU_BUILD_ID note, read with elfutils' dwelf), spelt as
// Mapping::build_id spells the one the kernel reports for a mapping
// (PERF_RECORD_MISC_MMAP_BUILD_ID) and perf's build-id cache names files: what tells one build of a
// file from another. record reads it to copy a container's file once however many processes map it
// (record/container_files.h), report to check that a file is still the one mapped
// (walk/file_identity.h).
#pragma once

#include <string>

namespace jitscope::session {

// The build id of the ELF file open as `fd` (lowercase hex), or "" when it has none or is not
// readable as ELF. `fd` stays the caller's.
std::string BuildIdOfFd(int fd);
// The same of the file at `path`.
std::string BuildIdOfFile(const std::string& path);

// The name of the separate debug file the ELF file open as `fd` names in its .gnu_debuglink
// section (a file name, searched beside it, in its .debug/ and under /usr/lib/debug, as elfutils
// and gdb search it), or "" when it has none. `fd` stays the caller's.
std::string DebugLinkOfFd(int fd);

}  // namespace jitscope::session
