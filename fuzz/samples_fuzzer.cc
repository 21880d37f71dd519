// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// libFuzzer target for the samples file reader: any bytes must decode or fail cleanly, never
// crash or read out of bounds ("Don't crash on input", STYLE.md).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "jitscope/formats/samples_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)jitscope::formats::ParseSamples(
      std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
