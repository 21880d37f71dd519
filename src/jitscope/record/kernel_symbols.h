// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The running kernel's function symbols (/proc/kallsyms), to name the kernel frames of a sample
// while recording: `record --off-cpu` tells from the kernel's part of a switch's call chain why
// the thread stopped (off_cpu_reason.h). The file lists every symbol with its address, which
// reads as 0 for a user kernel.kptr_restrict hides them from: then there is nothing to name by.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jitscope::record {

class KernelSymbols {
 public:
  // The text symbols of kallsyms-format `text` ("ADDRESS TYPE NAME [MODULE]" lines); nullopt
  // when it names none at a non-zero address.
  static std::optional<KernelSymbols> Parse(std::string_view text);
  // /proc/kallsyms, or nullopt when it cannot be read or hides its addresses.
  static std::optional<KernelSymbols> Read();

  // The function `address` is in: the text symbol at or before it; "" before the first.
  std::string_view Find(uint64_t address) const;

 private:
  struct Symbol {
    uint64_t address = 0;
    std::string name;
  };
  std::vector<Symbol> symbols_;  // by address
};

}  // namespace jitscope::record
