// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Shared by the fuzz targets: after a reader accepted the input, build the symbol index from it
// and resolve addresses around everything it described, so the importers, the index builder and
// the lookup see hostile input too; and read the code bytes it carried (symbolize/code_store.h)
// over the same ranges.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <utility>

#include "jitscope/symbolize/code_store.h"
#include "jitscope/symbolize/index_builder.h"

namespace jitscope::fuzz {

class IndexProbe {
 public:
  symbolize::IndexBuilder& builder() { return builder_; }
  symbolize::CodeStore& code() { return code_; }

  // Call once every event is added.
  void Build() { index_ = std::move(builder_).Build(); }

  void Probe(uint64_t address, uint64_t size, uint64_t time) {
    for (uint64_t at : {address, address + size / 2, address + size - 1, address + size}) {
      for (uint64_t t : {time, time + 1, uint64_t{0}, symbolize::kLatest}) {
        index_.Resolve(at, t, resolution_);
      }
    }
    // At most a page: a region's size is the input's word, and a read allocates that much.
    for (uint64_t t : {time, symbolize::kLatest}) {
      (void)code_.Read(address, size < 4096 ? size : 4096, t);
    }
  }

 private:
  symbolize::IndexBuilder builder_;
  symbolize::SymbolIndex index_;
  symbolize::CodeStore code_;
  symbolize::Resolution resolution_;
};

}  // namespace jitscope::fuzz
