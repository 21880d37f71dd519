// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The session directory `jitscope record -o DIR` writes: made for one recorder, and given back as
// it was when the recording never began.
#pragma once

#include <string>

#include "jitscope/base/scoped_resource.h"
#include "jitscope/base/status.h"

namespace jitscope::record {

// Creates the session directory `dir` (`path` less trailing slashes; mode 0700) for one recorder:
// it is made under a private name, locked (flock), and only then given its name, so another
// `jitscope record -o` of the same directory finds it locked from its first moment and is refused,
// saying so, for as long as the lock is held. An existing `dir` that no recorder holds (an earlier
// session, a planted link) is moved aside to `dir`.old (or `dir`.1, .2, ... if that is taken;
// nothing is overwritten).
struct PreparedSession {
  std::string rotated_to;  // where the old `dir` went, or ""
  base::ScopedFd lock;     // held while the session is written: one recorder per directory
};
base::StatusOr<PreparedSession> PrepareSessionDirectory(const std::string& path);

// For a recording that failed before it began (sampling refused, the session's first files not
// written): removes the session directory made at `path` and what was made in it, moves the
// earlier session back to its name, and returns `why`. A session that could not be given back is
// said in the returned message, with where it is. Nothing outside the directory `prepared`
// holds is removed: its entries are removed through that descriptor, never following a link.
base::Status AbandonSessionDirectory(PreparedSession prepared, const std::string& path,
                                     base::Status why);

}  // namespace jitscope::record
