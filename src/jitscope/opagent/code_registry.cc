// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/opagent/code_registry.h"

#include <iterator>

namespace jitscope::opagent {

void CodeRegistry::Erase(std::unordered_map<uint64_t, LiveCode>::iterator it) {
  const LiveCode& old = it->second;
  if (old.code_address != 0 && old.code_address != old.address) {
    // Only drop the pointer's entry if it still names this code (a later load may have reused it).
    auto pointer = address_by_code_.find(old.code_address);
    if (pointer != address_by_code_.end() && pointer->second == old.address) {
      address_by_code_.erase(pointer);
    }
  }
  by_address_.erase(it);
}

void CodeRegistry::Load(const LiveCode& code) {
  if (auto it = by_address_.find(code.address); it != by_address_.end()) Erase(it);
  by_address_.emplace(code.address, code);
  if (code.code_address != 0 && code.code_address != code.address) {
    address_by_code_[code.code_address] = code.address;
  }
}

std::optional<LiveCode> CodeRegistry::FindByCode(uint64_t code) const {
  if (auto pointer = address_by_code_.find(code); pointer != address_by_code_.end()) {
    if (auto it = by_address_.find(pointer->second); it != by_address_.end()) return it->second;
  }
  if (auto it = by_address_.find(code); it != by_address_.end()) return it->second;
  return std::nullopt;
}

std::optional<LiveCode> CodeRegistry::Unload(uint64_t address) {
  auto it = by_address_.find(address);
  if (it == by_address_.end()) return std::nullopt;
  const LiveCode code = it->second;
  Erase(it);
  return code;
}

void CodeRegistry::ForgetAgent(uint32_t agent) {
  for (auto it = by_address_.begin(); it != by_address_.end();) {
    auto next = std::next(it);
    if (it->second.agent == agent) Erase(it);
    it = next;
  }
}

}  // namespace jitscope::opagent
