// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// libFuzzer target for the session.json reader: any bytes give a SessionInfo or an error, never a
// crash or an exception.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "jitscope/session/session_info.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)jitscope::session::ParseSessionInfo(
      std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
