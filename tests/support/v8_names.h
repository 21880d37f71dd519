// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// V8's names for the code of JavaScript functions, as Node writes them to its jitdumps and perf
// maps, parsed, so a test asserts the function, its tier and its position whichever Node runs it:
//  - V8 11 on (Node 20): "JS:<tier><function> <script>:<line>:<column>";
//  - V8 10 (Node 18, Debian 12's nodejs): "<tag>:<tier><function> <script>:<line>", the tag
//    saying how the function was compiled (LazyCompile, Function, Script, Eval).
// The tier is '~' (the interpreter), '^' (Sparkplug), '+' (Maglev) or '*' (TurboFan); the
// function is empty for a script's top level ("JS:^ /tmp/t.js:1:1").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace jitscope::test_support {

struct V8CodeName {
  std::string tag;
  char tier = 0;  // 0: none
  std::string function;
  std::string script;
  uint32_t line = 0;
  std::optional<uint32_t> column;  // V8 11 on
};

// nullopt when `name` is not such a name.
std::optional<V8CodeName> ParseV8CodeName(std::string_view name);

// True when `name` is V8's name for `function`'s code in `tier`, at `script`:`line` (and at
// `column`, where the name has one).
bool IsV8CodeOf(std::string_view name, char tier, std::string_view function,
                std::string_view script, uint32_t line, uint32_t column);

// A JavaScript function for the scripts tests write, `cpuSeconds()`: the CPU time node has used
// (all its threads). A script that must give a number of samples loops `while (cpuSeconds() <
// S)`, which gives as many on any machine, where a count of rounds or a time on the clock does not.
inline constexpr char kJsCpuSeconds[] =
    "function cpuSeconds() {\n"
    "  const used = process.cpuUsage();\n"
    "  return (used.user + used.system) / 1e6;\n"
    "}\n";

}  // namespace jitscope::test_support
