// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Names in a profile are whatever a JIT engine reported: bytes, not necessarily UTF-8. Formats
// that require UTF-8 (SVG as XML, pprof's protobuf strings) get a valid copy.
#pragma once

#include <string>
#include <string_view>

namespace jitscope::report {

// `text` with every byte that does not start or continue a well-formed UTF-8 sequence (RFC 3629:
// no overlong forms, no surrogates, nothing above U+10FFFF) replaced by U+FFFD. Valid text comes
// back unchanged.
std::string ValidUtf8(std::string_view text);

// `text` as valid UTF-8 (ValidUtf8) with & < > " ' written as character references and control
// characters (which XML 1.0 does not allow) as spaces: text for SVG and HTML, in an element or
// an attribute.
std::string EscapeMarkup(std::string_view text);

// `text` cut to `width` bytes, the cut marked with "..." and moved back to a character's start,
// so that a column of names stays aligned and a multi-byte character is never split.
std::string FitToWidth(const std::string& text, size_t width);

}  // namespace jitscope::report
