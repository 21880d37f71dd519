// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Which mapped files a recording's samples touched, per process: what record copies of a process
// with a root directory of its own (container_files.h), whose runtime and libraries are hundreds
// of MB, of which a profile needs the few its samples ran in or returned to.
//
// A file is touched by a sample of its process when one of these addresses falls in one of its
// file's executable mappings (the samples file's MMAP records, made before or during the
// recording; time is not looked at, so a range another file held at another time counts for both):
//  - the sample's ip and the user frames of its call chain (`--call-graph fp`: the kernel's walk);
//  - with a copy of the user stack (`--call-graph dwarf`), each aligned word of it (8 bytes, 4
//    for a 32-bit process): report unwinds through the CFI of every file a return address is in,
//    and every return address of the copied frames is such a word. Words that only look like
//    code addresses add a file needlessly, never lose one.
// A process's forked children are their own pids, and not looked at.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "jitscope/session/samples_file.h"

namespace jitscope::record {

// The paths (as the MMAP records name them, absolute) of the files of processes `pids` that
// `data`'s samples touched. Anonymous memory ("//anon") and files deleted since they were mapped
// ("PATH (deleted)") are no files to copy, and left out.
std::map<uint32_t, std::set<std::string>> TouchedFiles(const session::SampleData& data,
                                                       const std::set<uint32_t>& pids);

}  // namespace jitscope::record
