// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Writes OProfile's JIT dump (<pid>.dump; layout in oprofile_dump_format.h, OProfile's jitdump.h)
// from jitscope's OProfile events, byte for byte what libopagent writes, so OProfile's own
// opjitconv can convert it: in the struct layout of the target it is given
// (OprofileBfdTarget::layout; HostTarget() is this process's, LP64 or i386).
//
// Each record is assembled in memory and handed to the kernel with one write(): a reader that
// copies the file while it grows (opjitconv does) sees whole records, and nothing sits in a
// user-space buffer when the process dies. libopagent instead writes the debug-info header twice
// (a placeholder, then a seek back to patch total_size); computing the size up front gives the
// same bytes without needing a seekable file.
//
// Not thread-safe: the caller serialises calls (libopagent's session holds its lock).
#pragma once

#include <cstdint>
#include <vector>

#include "jitscope/base/scoped_resource.h"
#include "jitscope/base/status.h"
#include "jitscope/formats/oprofile_dump_format.h"
#include "jitscope/trace/event.h"

namespace jitscope::formats {

class OprofileDumpWriter {
 public:
  // Writes the header into `fd`, an empty file open for writing, and keeps the fd. Fails for a
  // layout other than LP64 or i386.
  // `timestamp_s` is gettimeofday() seconds, OProfile's clock for every record.
  static base::StatusOr<OprofileDumpWriter> Create(base::ScopedFd fd,
                                                   const OprofileBfdTarget& target,
                                                   uint64_t timestamp_s);

  // Appends the record for an OProfile event: CODE_LOAD, DEBUG_INFO, UNLOAD or CLOSE. An open
  // event writes nothing (the header stands for it); a debug-lines event with no lines writes
  // nothing either, as libopagent does. Any other event is an error. A failed write() is returned
  // with its errno (Status::errno_value()).
  base::Status Write(const trace::Event& event, uint64_t timestamp_s);

  // The target this process's dumps carry (x86-64, i386 or aarch64), or an error on any other.
  static base::StatusOr<OprofileBfdTarget> HostTarget();

 private:
  OprofileDumpWriter(base::ScopedFd fd, OprofileLayout layout)
      : fd_(std::move(fd)), layout_(layout) {}
  base::Status Flush();

  base::ScopedFd fd_;
  OprofileLayout layout_;
  std::vector<uint8_t> buffer_;  // the record being assembled, reused between calls
};

}  // namespace jitscope::formats
