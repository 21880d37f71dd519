// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/report/profile_diff.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "jitscope/report/frame_labels.h"
#include "jitscope/report/text_writer.h"

namespace jitscope::report {
namespace {

double ShareOf(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0.0 : static_cast<double>(part) / static_cast<double>(whole);
}

// "jitvm (pid 4242)" → "jitvm".
std::string WithoutPid(const std::string& name) {
  const size_t at = name.rfind(" (pid ");
  return at == std::string::npos ? name : name.substr(0, at);
}

// What matches a location across runs, before the module is known to be kept.
std::string MatchedName(const Location& l) {
  return l.kind == FrameKind::kProcess ? WithoutPid(l.function) : l.function;
}

using MatchKey =
    std::tuple<std::string, std::string, bool>;  // name, module shown ("" if none), inlined

class Matcher {
 public:
  Matcher(const Profile& base, const Profile& now) {
    // The modules each (name, inlined) has in each run.
    std::map<std::pair<std::string, bool>, std::set<std::string>> in_base, in_new;
    for (const Location& l : base.locations) {
      in_base[{MatchedName(l), l.inlined}].insert(ModuleDisplayName(l.module));
    }
    for (const Location& l : now.locations) {
      in_new[{MatchedName(l), l.inlined}].insert(ModuleDisplayName(l.module));
    }
    for (const auto& [name, modules] : in_base) {
      auto other = in_new.find(name);
      if (other == in_new.end()) {
        by_module_.insert(name);  // in one run only: nothing to merge with
        continue;
      }
      for (const std::string& m : modules) {
        if (other->second.contains(m)) {
          by_module_.insert(name);
          break;
        }
      }
    }
    for (const auto& [name, modules] : in_new) {
      if (!in_base.contains(name)) by_module_.insert(name);
    }
  }

  // The function `l` is, in `diff`.
  uint32_t FunctionOf(const Location& l, ProfileDiff& diff) {
    const std::string name = MatchedName(l);
    const bool with_module = by_module_.contains({name, l.inlined});
    const MatchKey key{name, with_module ? ModuleDisplayName(l.module) : "", l.inlined};
    auto [it, inserted] = ids_.try_emplace(key, static_cast<uint32_t>(diff.functions.size()));
    if (inserted) {
      Location function = l;
      function.function = name;
      function.module = with_module ? ModuleDisplayName(l.module) : "";
      function.version = 0;
      function.line = 0;
      function.file.clear();
      diff.functions.push_back(std::move(function));
      files_.emplace_back();
    }
    // A source file all of the function's locations share is kept.
    std::set<std::string>& files = files_[it->second];
    if (files.size() < 2) files.insert(l.file);
    return it->second;
  }

  void NameFiles(ProfileDiff& diff) const {
    for (size_t i = 0; i < diff.functions.size(); ++i) {
      if (files_[i].size() == 1) diff.functions[i].file = *files_[i].begin();
    }
  }

 private:
  std::set<std::pair<std::string, bool>> by_module_;
  std::map<MatchKey, uint32_t> ids_;
  std::vector<std::set<std::string>> files_;
};

}  // namespace

double ProfileDiff::SelfChange(const FunctionChange& c) const {
  return ShareOf(c.self_new, new_total) - ShareOf(c.self_base, base_total);
}

double ProfileDiff::TotalChange(const FunctionChange& c) const {
  return ShareOf(c.total_new, new_total) - ShareOf(c.total_base, base_total);
}

ProfileDiff DiffProfiles(const Profile& base, const Profile& now) {
  ProfileDiff diff;
  diff.base_total = base.total_samples;
  diff.new_total = now.total_samples;
  diff.base_command = base.command;
  diff.new_command = now.command;
  diff.sample_period_ns = now.sample_period_ns;
  for (const std::string& w : base.warnings) diff.warnings.push_back("base run: " + w);
  for (const std::string& w : now.warnings) diff.warnings.push_back("new run: " + w);

  Matcher matcher(base, now);
  std::map<std::vector<uint32_t>, size_t> stack_ids;
  std::vector<FunctionChange> changes;
  auto add = [&](const Profile& run, bool is_new) {
    std::vector<uint32_t> on_stack;
    for (const Stack& stack : run.stacks) {
      std::vector<uint32_t> frames;
      frames.reserve(stack.frames.size());
      for (uint32_t location : stack.frames) {
        frames.push_back(matcher.FunctionOf(run.locations[location], diff));
      }
      if (changes.size() < diff.functions.size()) {
        for (size_t f = changes.size(); f < diff.functions.size(); ++f) {
          changes.push_back({static_cast<uint32_t>(f)});
        }
      }
      if (!frames.empty()) {
        (is_new ? changes[frames.front()].self_new : changes[frames.front()].self_base) +=
            stack.samples;
      }
      on_stack = frames;
      std::sort(on_stack.begin(), on_stack.end());
      on_stack.erase(std::unique(on_stack.begin(), on_stack.end()), on_stack.end());
      for (uint32_t f : on_stack) {
        (is_new ? changes[f].total_new : changes[f].total_base) += stack.samples;
      }
      auto [it, inserted] = stack_ids.try_emplace(frames, diff.stacks.size());
      if (inserted) diff.stacks.push_back({frames, 0, 0});
      (is_new ? diff.stacks[it->second].now : diff.stacks[it->second].base) += stack.samples;
    }
  };
  add(base, false);
  add(now, true);
  matcher.NameFiles(diff);

  std::stable_sort(diff.stacks.begin(), diff.stacks.end(),
                   [](const StackChange& a, const StackChange& b) {
                     return std::tie(b.now, b.base) < std::tie(a.now, a.base);
                   });
  std::stable_sort(changes.begin(), changes.end(),
                   [&](const FunctionChange& a, const FunctionChange& b) {
                     const double sa = std::abs(diff.SelfChange(a));
                     const double sb = std::abs(diff.SelfChange(b));
                     if (sa != sb) return sa > sb;
                     return std::abs(diff.TotalChange(a)) > std::abs(diff.TotalChange(b));
                   });
  diff.changes = std::move(changes);

  // Labels as the flame graphs give them, over the stacks of both runs.
  Profile both;
  both.locations = diff.functions;
  for (const StackChange& s : diff.stacks) both.stacks.push_back({s.frames, s.base + s.now, 0, 0});
  diff.labels = FrameLabels(both);
  return diff;
}

}  // namespace jitscope::report
