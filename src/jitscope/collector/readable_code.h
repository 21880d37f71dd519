// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Whether the code an engine reported can be copied without a fault. The trace keeps each
// region's code bytes (trace/format.h, kCodeBytes), copied with a plain memcpy inside
// iJIT_NotifyEvent; an engine that reports an address it has not mapped must not crash its own
// process through us. The answer comes from a per-thread cache of the one readable area of
// /proc/self/maps that held the last region, so the common case — the next method in the same
// code cache — costs two compares; the file is read again only when code lands elsewhere (a new
// code-cache mapping, a kernel generator that maps each kernel on its own).
//
// Rejected: process_vm_readv or pwrite of every region (a system call per event, DEVELOPERS.md
// "Hot paths"); a process-wide snapshot of the maps (publishing it lock-free needs reclamation).
#pragma once

#include <cstdint>

namespace jitscope::collector {

// True when [address, address + size) lies in readable memory of this process (size > 0).
bool IsReadableCode(uint64_t address, uint64_t size);

// The readable area of `maps` (the text of /proc/self/maps) that contains [address, address +
// size): adjacent readable mappings count as one area. {0, 0} when none does. Pure, for tests.
struct Area {
  uint64_t start = 0;
  uint64_t end = 0;
};
Area FindReadableArea(const char* maps, uint64_t size_of_maps, uint64_t address, uint64_t size);

}  // namespace jitscope::collector
