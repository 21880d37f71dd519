// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Where op_open_agent creates OProfile's dump, and how.
//
// The directory, first match wins:
//   1. $JITSCOPE_OPAGENT_DIR, which must exist (a typo should fail loudly, not scatter dumps);
//   2. /var/lib/oprofile/jitdump when it is a directory this process can write: the location
//      OProfile's guide documents (OProfile's opcontrol era);
//   3. /tmp/.oprofile/jitdump, where today's OProfile (operf/opjitconv) looks, created if
//      missing (OProfile's libopagent).
//
// /tmp is shared with every user, so (3) is made safe: no component is ever followed through a
// symbolic link; directories we create get mode 01777 (sticky and world-writable, like /tmp:
// OProfile means them to be shared by all users, and the sticky bit stops users deleting each
// other's dumps); an existing directory is used only if it is ours, root's, or sticky.
//
// The file is <pid>.dump, mode 0600 (libopagent's "only accessible for the user"), created
// exclusively without following a link. One left over by an earlier process with the same pid,
// or an earlier session of this one, is replaced as OProfile's creat() would truncate it, but
// only if it is a regular file owned by us: anything else there is an error (EEXIST).
#pragma once

#include <cstdint>
#include <string>

#include "jitscope/base/scoped_resource.h"
#include "jitscope/base/status.h"
#include "jitscope/collector/config.h"

namespace jitscope::opagent {

// The fixed locations, injectable so tests need not touch the real ones.
struct DumpLocations {
  std::string seed_directory = "/var/lib/oprofile/jitdump";
  std::string shared_root = "/tmp/.oprofile";  // the dump goes into <shared_root>/jitdump
};

base::StatusOr<std::string> ChooseDumpDirectory(collector::GetEnvFunction getenv,
                                                const DumpLocations& locations);

// Creates <directory>/<pid>.dump for reading and writing.
base::StatusOr<base::ScopedFd> CreateDumpFile(const std::string& directory, uint32_t pid);

}  // namespace jitscope::opagent
