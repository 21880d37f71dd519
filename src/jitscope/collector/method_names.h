// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// "First symbolic information wins": all code regions reported with one method id belong to one
// method, whose name and source file come from the first notification; later notifications with
// that id contribute only their line tables, and a NULL source file means the first one's
// (seeds 000_*.txt, "Analyzing Split Functions", Usage Tips). The module name registered first
// wins too (000_*.txt, Usage Tips on module names). Each field is taken from the first
// notification that carries it: METHOD_UPDATE may arrive first without a name.
//
// The sinks for perf's formats (jitdump, perf map) name every region by its method this way,
// since perf knows nothing of method ids. A module is shown as "module!name" (the form debuggers
// and VTune use for module-qualified symbols): perf has no module field for JIT code, and a
// prefix keeps one engine's methods together when perf sorts by symbol.
//
// Threading: state is split into shards by method id, each with its own lock, so notifications
// for different methods do not contend.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "jitscope/trace/event.h"

namespace jitscope::collector {

struct MethodSymbol {
  std::string name;  // the display name: "module!name" when a module is known
  std::optional<std::string> source_file;
};

// The display form of a method name with an optional module.
std::string DisplayName(std::string_view name, std::optional<std::string_view> module);

class MethodNames {
 public:
  // Records what `code` brings for its method id (fields not yet known) and returns the symbol
  // the method is known by from now on. A method never named is "[method <id>]".
  MethodSymbol Resolve(const trace::CodeEvent& code);

  // Forgets a method (it was unloaded): a later load with the same id starts afresh.
  void Forget(uint32_t method_id);

 private:
  struct Known {
    std::optional<std::string> name;
    std::optional<std::string> source_file;
    std::optional<std::string> module;
  };
  struct Shard {
    std::mutex mutex;
    std::unordered_map<uint32_t, Known> methods;
  };
  static constexpr size_t kShards = 64;
  Shard& ShardFor(uint32_t method_id) { return shards_[method_id % kShards]; }

  std::array<Shard, kShards> shards_;
};

}  // namespace jitscope::collector
