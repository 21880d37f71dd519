// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The collector's messages to the user: one line per message, written with a single write()
// to stderr or to the JITSCOPE_LOG file, prefixed with "jitscope[<pid>]: ". Messages are rare
// (configuration problems, the first rejection of each kind), never per event. A Log is cheap to
// copy: the copies share one open file, so the file is opened, and a problem with it said, once.
#pragma once

#include "jitscope/base/scoped_resource.h"
#include "jitscope/base/status.h"

#include <memory>
#include <string>

namespace jitscope::collector {

class Log {
 public:
  // Logs to stderr.
  Log() = default;
  // Appends to `path`, a regular file of this user's (made, mode 0600, if missing); falls back
  // to stderr, saying why, for anything else. Never follows a link, never blocks: opening a FIFO
  // for writing would wait for a reader, in a process that only meant to log. Another user's file
  // is not appended to, as the collector's own files are not.
  static Log Open(const std::string& path);

  [[gnu::format(printf, 2, 3)]] void Printf(const char* format, ...) const;

 private:
  explicit Log(std::shared_ptr<const base::ScopedFd> fd) : fd_(std::move(fd)) {}
  std::shared_ptr<const base::ScopedFd> fd_;  // null: stderr
};

}  // namespace jitscope::collector
