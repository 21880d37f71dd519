// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// ELF files' modules (their CFI, and the functions it leaves out: unwind::CfiModule) kept for
// walkers that come and go over the same files: record's unwinding while it records walks every
// batch with a walker of its own (walk/recording_unwinder.h), and opening a module is most of
// what a batch that walks little costs (libjvm.so's .eh_frame is checked whole as it opens, its
// separate .debug_frame decompressed). A module is opened once, and again only when its file is
// no longer the one opened: another device, inode, size or modification time, as stat(2) sees the
// path at each lookup. A file replaced by rename (a package upgrade) is another inode; one
// rewritten in place changes its modification time. What a module reads of its file is the same
// whichever walker asks, so sharing it changes no walk.
// For one thread at a time.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <ctime>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "jitscope/unwind/cfi_module.h"

namespace jitscope::walk {

class ModuleCache {
 public:
  // The module of `path` with separate debug files looked for in `debug_path` (elfutils'
  // debuginfo_path syntax), opened now or at an earlier lookup of the same file; nullptr when it
  // does not open (as often as it is asked, while the file stays as it is).
  std::shared_ptr<unwind::CfiModule> Open(const std::string& path, const std::string& debug_path);

  // How many times a file was opened: lookups that found a module of the same file open none.
  uint64_t opens() const { return opens_; }

 private:
  // What tells one file at a path from another: stat(2)'s device, inode, size and modification
  // time; all zero when the path cannot be stat'ed.
  struct Stamp {
    dev_t device = 0;
    ino_t inode = 0;
    off_t size = 0;
    timespec modified{};
    bool operator==(const Stamp& other) const;
  };
  static Stamp StampOf(const std::string& path);

  struct Entry {
    Stamp stamp;
    std::shared_ptr<unwind::CfiModule> module;  // nullptr: it did not open
  };
  std::map<std::pair<std::string, std::string>, Entry> entries_;  // by path and debug path
  uint64_t opens_ = 0;
};

}  // namespace jitscope::walk
