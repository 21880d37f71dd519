// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/report/speedscope_writer.h"

#include <nlohmann/json.hpp>

#include "jitscope/report/frame_labels.h"

namespace jitscope::report {

std::string RenderSpeedscope(const Profile& profile) {
  using json = nlohmann::ordered_json;
  json frames = json::array();
  const std::vector<std::string> labels = FrameLabels(profile);
  for (size_t i = 0; i < profile.locations.size(); ++i) {
    const Location& l = profile.locations[i];
    json frame = {{"name", l.inlined ? labels[i] + " (inlined)" : labels[i]}};
    if (!l.file.empty()) frame["file"] = l.file;
    if (l.line != 0) frame["line"] = l.line;
    frames.push_back(std::move(frame));
  }
  json samples = json::array();
  json weights = json::array();
  uint64_t total = 0;
  for (const Stack& stack : profile.stacks) {
    samples.push_back(json(std::vector<uint32_t>(stack.frames.rbegin(), stack.frames.rend())));
    const uint64_t weight = stack.samples * profile.sample_period_ns;
    weights.push_back(weight);
    total += weight;
  }
  const std::string name = profile.command.empty() ? "jitscope" : profile.command;
  const json document = {
      {"$schema", "https://www.speedscope.app/file-format-schema.json"},
      {"shared", {{"frames", std::move(frames)}}},
      {"profiles", json::array({{{"type", "sampled"},
                                 {"name", name},
                                 {"unit", "nanoseconds"},
                                 {"startValue", 0},
                                 {"endValue", total},
                                 {"samples", std::move(samples)},
                                 {"weights", std::move(weights)}}})},
      {"name", name},
      {"activeProfileIndex", 0},
      {"exporter", "jitscope 0.1.0"},
  };
  // Replace invalid UTF-8 (names are whatever a JIT reported) instead of throwing.
  return document.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace jitscope::report
