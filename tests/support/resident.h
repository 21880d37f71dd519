// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Test support: how much of a mapping is in this process's memory, for tests of code that gives
// pages back as it reads a large file (base::MappedFile::Evict).
#pragma once

#include <cstdint>

namespace jitscope::test_support {

// The kilobytes resident of the mapping that starts at `start` (/proc/self/smaps' "Rss:" line);
// UINT64_MAX when no mapping starts there.
uint64_t ResidentKb(const void* start);

}  // namespace jitscope::test_support
