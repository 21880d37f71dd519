// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The code an OProfile-API engine has reported and not yet unloaded. OProfile's library writes
// whatever it is given and leaves matching to opjitconv, after the fact; jitscope checks each call
// when it is made, so a debug-info call for unknown code or an unload of an unknown address fails
// with EINVAL instead of leaving records nothing can place (OProfile's guide §4-5: the code "should
// have" been written before).
//
// Code is found by its address (`vma`, what op_unload_native_code names) or by the `code` pointer
// it was reported with (what op_write_debug_line_info names; JVMTI agents pass the same value for
// both, other engines a separate copy of the bytes). A load at an address that holds live code
// replaces it, as a new version of that address.
//
// Not thread-safe: the agent calls it under its lock.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>

namespace jitscope::opagent {

struct LiveCode {
  uint64_t address = 0;       // vma
  uint64_t code_address = 0;  // the `code` pointer, 0 when NULL
  uint32_t size = 0;
  uint32_t agent = 0;  // the handle that reported it
};

class CodeRegistry {
 public:
  void Load(const LiveCode& code);
  // The live code reported with `code` as its code pointer, else the live code at address `code`.
  std::optional<LiveCode> FindByCode(uint64_t code) const;
  // Removes and returns the live code at `address`.
  std::optional<LiveCode> Unload(uint64_t address);
  // Forgets everything `agent` reported (its handle was closed).
  void ForgetAgent(uint32_t agent);
  size_t size() const { return by_address_.size(); }

 private:
  void Erase(std::unordered_map<uint64_t, LiveCode>::iterator it);

  std::unordered_map<uint64_t, LiveCode> by_address_;
  // code pointer → address, for code whose pointer differs from its address.
  std::unordered_map<uint64_t, uint64_t> address_by_code_;
};

}  // namespace jitscope::opagent
