// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The two versions of examples/jvmti-opagent's Redefined (Redefined.java, redefined/Redefined.java)
// as javac writes them, and the check of report's stacks of Redefining, which swaps them: for
// the test that runs it (tests/opagent/jvm_redefinition_test.cc) and the one that reports a
// recording of it again (tests/report/recorded_sessions_test.cc). Each version's methods are at
// lines of their own, so a frame's line says which version it was named from. Header-only; its
// includers link nlohmann_json.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace jitscope::test_support {

using LineTable = std::vector<std::pair<uint32_t, uint32_t>>;  // (start bci, line)

// What javac wrote of each method of each version (javap -l): its signature, bytecode length and
// line table, version 1's then version 2's.
struct VersionedMethod {
  std::string signature;
  uint32_t code_size;
  LineTable lines[2];
};

inline const std::map<std::string, VersionedMethod>& RedefinedMethods() {
  static const std::map<std::string, VersionedMethod> kMethods = {
      {"<init>", {"()V", 5, {{{0, 6}}, {{0, 21}}}}},
      {"version", {"()I", 2, {{{0, 8}}, {{0, 23}}}}},
      {"hot", {"(JI)J", 8, {{{0, 12}}, {{0, 27}}}}},
      {"before",
       {"(JI)J",
        40,
        {{{0, 16}, {2, 17}, {11, 18}, {18, 19}, {25, 20}, {32, 17}, {38, 22}},
         {{0, 31}, {2, 32}, {11, 33}, {18, 34}, {25, 35}, {32, 32}, {38, 37}}}}},
      {"after",
       {"(JI)J",
        29,
        {{{0, 26}, {2, 27}, {11, 28}, {21, 27}, {27, 30}},
         {{0, 41}, {2, 42}, {11, 43}, {21, 42}, {27, 45}}}}},
  };
  return kMethods;
}

// The version a frame of Redefined's `name` at `line` is of: 1 or 2, 0 for neither.
inline int VersionAt(const std::string& name, uint32_t line) {
  const std::string method = name.substr(0, name.find('('));
  const auto known = RedefinedMethods().find(method.substr(method.find('.') + 1));
  if (!method.starts_with("Redefined.") || known == RedefinedMethods().end()) return 0;
  for (int version : {1, 2}) {
    for (const auto& [bci, at] : known->second.lines[version - 1]) {
      if (at == line) return version;
    }
  }
  return 0;
}

// A frame of the report's speedscope output: its name (" (inlined)" taken off) and line.
struct SampledFrame {
  std::string name;
  uint32_t line = 0;
  bool java = false;  // a Java method's (its source file is a .java), or the interpreter's unnamed
};

// What report says of the frames Redefining.main calls, sample by sample.
struct RedefinedShare {
  uint64_t work = 0;   // samples in hot's callee (named, or an unnamed interpreter frame)
  uint64_t named = 0;  // of those, with hot and its callee both named
  uint64_t version_samples[2] = {0, 0};  // named, by version
  std::vector<std::string> wrong;        // the stacks named wrongly
};

// Holds every sample whose stack passes Redefining.main to what main can run of Redefined: hot
// of a version, then (when the sample is in it) that version's callee, before for version 1 and
// after for version 2, each named at a line of its version, or `Interpreter` where the table did
// not name it; or version, alone. Samples in the rest of main (sleeping, redefining) are not
// Redefined's and are left alone.
inline RedefinedShare CheckRedefinedStacks(const std::string& speedscope) {
  const auto json = nlohmann::json::parse(speedscope);
  std::vector<SampledFrame> frames;
  for (const auto& frame : json["shared"]["frames"]) {
    SampledFrame f;
    f.name = frame["name"].get<std::string>();
    if (f.name.ends_with(" (inlined)")) f.name.resize(f.name.size() - 10);
    f.line = frame.value("line", 0u);
    f.java = frame.value("file", "").ends_with(".java") || f.name == "Interpreter";
    frames.push_back(std::move(f));
  }
  RedefinedShare share;
  for (const auto& profile : json["profiles"]) {
    for (const auto& sample : profile["samples"]) {
      std::vector<const SampledFrame*> java;  // main's callees that are Java frames, outer first
      bool in_main = false;
      for (const auto& index : sample) {
        const SampledFrame& frame = frames.at(index.get<size_t>());
        if (in_main && frame.java) java.push_back(&frame);
        in_main |= frame.name.starts_with("Redefining.main(");
      }
      if (java.empty() ||
          (!java[0]->name.starts_with("Redefined.") && java[0]->name != "Interpreter")) {
        continue;
      }
      // An unnamed frame main calls that calls into the JDK is not one of Redefined's (whose
      // methods call none); nor can the JDK's methods hold memory of Redefined's (a class
      // loader's metadata is its own).
      if (java[0]->name == "Interpreter" &&
          std::any_of(java.begin(), java.end(), [](const SampledFrame* frame) {
            return frame->name.starts_with("java.") || frame->name.starts_with("jdk.") ||
                   frame->name.starts_with("sun.");
          })) {
        continue;
      }
      std::string shown;
      for (const SampledFrame* frame : java) {
        shown += frame->name + ":" + std::to_string(frame->line) + "; ";
      }
      const auto is = [](const SampledFrame* frame, const std::string& method) {
        return frame->name == "Redefined." + method + "(JI)J";
      };
      bool right = false;
      if (java.size() == 1) {
        // In hot itself, or in version: named at a line of either version, or unnamed.
        right = java[0]->name == "Interpreter" ||
                ((is(java[0], "hot") || java[0]->name == "Redefined.version()I") &&
                 VersionAt(java[0]->name, java[0]->line) != 0);
      } else if (java.size() == 2) {
        const SampledFrame* hot = java[0];
        const SampledFrame* callee = java[1];
        const int hot_version = is(hot, "hot") ? VersionAt(hot->name, hot->line) : 0;
        const int callee_version = is(callee, "before")  ? VersionAt(callee->name, callee->line)
                                   : is(callee, "after") ? -VersionAt(callee->name, callee->line)
                                                         : 0;
        // before at version 1's lines, or after at version 2's: 1 or 2; anything else, 0.
        const int callee_of = callee_version == 1 ? 1 : callee_version == -2 ? 2 : 0;
        const bool hot_named = hot->name != "Interpreter";
        const bool callee_named = callee->name != "Interpreter";
        right = (!hot_named || hot_version != 0) && (!callee_named || callee_of != 0) &&
                (!hot_named || !callee_named || hot_version == callee_of);
        ++share.work;
        if (right && hot_named && callee_named) {
          ++share.named;
          ++share.version_samples[hot_version - 1];
        }
      }
      if (!right) share.wrong.push_back(shown);
    }
  }
  return share;
}

}  // namespace jitscope::test_support
