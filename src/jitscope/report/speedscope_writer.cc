// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/report/speedscope_writer.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "jitscope/report/frame_labels.h"

namespace jitscope::report {
namespace {

using Json = nlohmann::ordered_json;

// Names are whatever a JIT reported: invalid UTF-8 is replaced instead of throwing.
std::string DumpJson(const Json& json) {
  return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// One sampled profile. `samples` and `weights` are the JSON arrays' contents, written by hand: a
// million samples as JSON values would take gigabytes.
std::string SampledProfile(const std::string& name, const std::string& samples,
                           const std::string& weights, uint64_t total) {
  return fmt::format(
      "{{\"type\":\"sampled\",\"name\":{},\"unit\":\"nanoseconds\",\"startValue\":0,"
      "\"endValue\":{},\"samples\":[{}],\"weights\":[{}]}}",
      DumpJson(Json(name)), total, samples, weights);
}

}  // namespace

std::string RenderSpeedscope(const Profile& profile) {
  Json frames = Json::array();
  const std::vector<std::string> labels = FrameLabels(profile);
  for (size_t i = 0; i < profile.locations.size(); ++i) {
    const Location& l = profile.locations[i];
    Json frame = {{"name", l.inlined ? labels[i] + " (inlined)" : labels[i]}};
    if (!l.file.empty()) frame["file"] = l.file;
    if (l.line != 0) frame["line"] = l.line;
    frames.push_back(std::move(frame));
  }
  // Each stack root first, as the arrays of frame indices speedscope reads.
  std::vector<std::string> stacks;
  stacks.reserve(profile.stacks.size());
  for (const Stack& stack : profile.stacks) {
    stacks.push_back(
        fmt::format("[{}]", fmt::join(stack.frames.rbegin(), stack.frames.rend(), ",")));
  }
  const std::string name = profile.command.empty() ? "jitscope" : profile.command;
  std::vector<std::string> profiles;
  size_t busiest = 0;
  if (profile.threads.empty()) {
    std::string samples, weights;
    uint64_t total = 0;
    for (size_t i = 0; i < profile.stacks.size(); ++i) {
      const uint64_t weight = profile.stacks[i].samples * profile.sample_period_ns;
      samples += (i ? "," : "") + stacks[i];
      weights += fmt::format("{}{}", i ? "," : "", weight);
      total += weight;
    }
    profiles.push_back(
        SampledProfile(name + " (stacks by weight, not in time order)", samples, weights, total));
  } else {
    // One pass over the samples (in time order) into each thread's lists.
    std::vector<std::string> samples(profile.threads.size());
    std::vector<std::string> weights(profile.threads.size());
    std::vector<uint64_t> totals(profile.threads.size(), 0);
    for (const TimedSample& sample : profile.samples) {
      std::string& list = samples[sample.thread];
      if (!list.empty()) {
        list += ',';
        weights[sample.thread] += ',';
      }
      list += stacks[sample.stack];
      fmt::format_to(std::back_inserter(weights[sample.thread]), "{}", sample.weight_ns);
      totals[sample.thread] += sample.weight_ns;
    }
    for (size_t i = 0; i < profile.threads.size(); ++i) {
      const ThreadShare& t = profile.threads[i];
      if (totals[i] > totals[busiest]) busiest = i;
      profiles.push_back(SampledProfile(
          fmt::format("{} tid {} (pid {})", t.name.empty() ? "?" : t.name, t.tid, t.pid),
          samples[i], weights[i], totals[i]));
    }
  }
  return fmt::format(
      "{{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
      "\"shared\":{{\"frames\":{}}},\"profiles\":[{}],\"name\":{},\"activeProfileIndex\":{},"
      "\"exporter\":\"jitscope 0.1.0\"}}\n",
      DumpJson(frames), fmt::join(profiles, ","), DumpJson(Json(name)), busiest);
}

}  // namespace jitscope::report
