// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The op_agent_t values libopagent hands out. OProfile's handle is the dump's FILE*, so a stale
// or garbage handle is dereferenced and crashes the host; the guide nevertheless promises EINVAL
// for an invalid handle (OProfile's guide §2-5). jitscope's handles are therefore tokens, never
// pointers: a slot index and that slot's generation, checked against this table before any use. A
// closed handle's generation is gone, so it stays invalid even when its slot is reused.
//
// Not thread-safe: the agent (agent.h) calls it under its lock.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace jitscope::opagent {

class HandleTable {
 public:
  // Enough for every JIT engine a process plausibly hosts; op_open_agent fails with EMFILE beyond.
  static constexpr size_t kSlots = 64;

  // Opens a slot for `agent` (the handle's number in the process). Returns its token (never 0),
  // or nullopt when every slot is open.
  std::optional<uintptr_t> Open(uint32_t agent);
  // The agent number of an open handle; nullopt for 0, garbage, or a closed handle.
  std::optional<uint32_t> Find(uintptr_t token) const;
  // Closes an open handle; false if `token` is not one.
  bool Close(uintptr_t token);
  // Invalidates every handle (in a fork()ed child, whose parent's handles must not write).
  void CloseAll();
  size_t open_count() const { return open_count_; }

 private:
  struct Slot {
    uint32_t generation = 0;  // bumped at every open: tells a reopened slot's handles apart
    uint32_t agent = 0;
    bool open = false;
  };

  std::array<Slot, kSlots> slots_{};
  size_t open_count_ = 0;
};

}  // namespace jitscope::opagent
