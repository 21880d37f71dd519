// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The counts jitscope prints as "N name, N name" lists: the report header's "walks ending in:
// 2864 end of stack, 4 no rule" and "steps by rule: 120 CFI, 30 derived", and record's summary,
// "(... ; steps by rule: 120 CFI, 30 derived)".
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace jitscope::test_support {

// The list after the first `marker` in `text`, up to the end of its line, a `)` or a `;` (record
// says "(809 end of stack, 47 no rule; steps by rule: ...)"): each name's count. Empty when
// `text` has no such list.
std::map<std::string, uint64_t> CountsAfter(const std::string& text, const std::string& marker);

}  // namespace jitscope::test_support
