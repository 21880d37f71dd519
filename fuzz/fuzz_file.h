// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Shared by the fuzz targets of readers that read a file by path as well as bytes in memory: the
// input as a file (an anonymous memfd, named by its /proc/self/fd path), so the reading of the
// file (base::FileWindow's, a mapping's) sees hostile input too, and a way to check that both
// readings decoded the same.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "jitscope/base/files.h"
#include "jitscope/base/scoped_resource.h"
#include "jitscope/session/samples_file.h"

namespace jitscope::fuzz {

class InputFile {
 public:
  InputFile(const uint8_t* data, size_t size) : fd_(::memfd_create("fuzz-input", MFD_CLOEXEC)) {
    if (fd_ && !base::WriteAll(fd_.get(), data, size).ok()) fd_.reset();
  }
  bool ok() const { return static_cast<bool>(fd_); }
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_.get()); }

 private:
  base::ScopedFd fd_;
};

// Every sample of `data`, visited as a report does, each summed with its stack copy's every
// byte (so a view past what was read is caught).
inline std::vector<uint64_t> VisitAll(const session::SampleData& data) {
  std::vector<uint64_t> seen;
  data.ForEachSample([&seen](const session::Sample& sample) {
    uint64_t sum = sample.time_ns ^ sample.ip ^ sample.pid;
    for (char byte : sample.stack) sum = sum * 31 + static_cast<uint8_t>(byte);
    for (const session::CallchainEntry& frame : sample.callchain) sum = sum * 31 + frame.ip;
    seen.push_back(sum);
  });
  return seen;
}

}  // namespace jitscope::fuzz
