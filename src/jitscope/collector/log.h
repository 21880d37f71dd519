// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The collector's messages to the user: one line per message, written with a single write()
// to stderr or to the JITSCOPE_LOG file, prefixed with "jitscope[<pid>]: ". Messages are rare
// (configuration problems, the first rejection of each kind), never per event.
#pragma once

#include "jitscope/base/scoped_resource.h"
#include "jitscope/base/status.h"

#include <string>

namespace jitscope::collector {

class Log {
 public:
  // Logs to stderr.
  Log() = default;
  // Appends to `path`; falls back to stderr (saying so) if it cannot be opened.
  static Log Open(const std::string& path);

  [[gnu::format(printf, 2, 3)]] void Printf(const char* format, ...) const;

 private:
  explicit Log(base::ScopedFd fd) : fd_(std::move(fd)) {}
  base::ScopedFd fd_;  // empty: stderr
};

}  // namespace jitscope::collector
