// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/collector/method_names.h"

namespace jitscope::collector {
namespace {

void KeepFirst(std::optional<std::string>& known, const std::optional<std::string_view>& offered) {
  if (!known && offered) known.emplace(*offered);
}

}  // namespace

std::string DisplayName(std::string_view name, std::optional<std::string_view> module) {
  if (!module || module->empty()) return std::string(name);
  std::string display;
  display.reserve(module->size() + 1 + name.size());
  display.append(*module);
  display.push_back('!');
  display.append(name);
  return display;
}

MethodSymbol MethodNames::Resolve(const trace::CodeEvent& code) {
  Shard& shard = ShardFor(code.method_id);
  std::lock_guard lock(shard.mutex);
  Known& known = shard.methods[code.method_id];
  KeepFirst(known.name, code.name);
  KeepFirst(known.source_file, code.source_file);
  KeepFirst(known.module, code.module);
  MethodSymbol symbol;
  symbol.name = known.name
                    ? DisplayName(*known.name, known.module)
                    : DisplayName("[method " + std::to_string(code.method_id) + "]", known.module);
  symbol.source_file = known.source_file;
  return symbol;
}

void MethodNames::Forget(uint32_t method_id) {
  Shard& shard = ShardFor(method_id);
  std::lock_guard lock(shard.mutex);
  shard.methods.erase(method_id);
}

}  // namespace jitscope::collector
