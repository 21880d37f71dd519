// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/report/diff_writer.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "jitscope/report/folded_writer.h"
#include "jitscope/report/short_name.h"
#include "jitscope/report/utf8.h"

namespace jitscope::report {
namespace {

std::string Points(double change) { return fmt::format("{:+.1f}", 100.0 * change); }

}  // namespace

std::string RenderDiffText(const ProfileDiff& diff, const TextOptions& options) {
  std::string out;
  out += fmt::format("# jitscope report --diff-base: the new run against the base run\n");
  out += fmt::format("# base: {} samples of {}\n", diff.base_total,
                     diff.base_command.empty() ? "?" : diff.base_command);
  out += fmt::format("# new:  {} samples of {}\n", diff.new_total,
                     diff.new_command.empty() ? "?" : diff.new_command);
  out +=
      "# shares are of each run's own samples; a change is the new share less the base's, in "
      "points\n";
  for (const std::string& warning : diff.warnings) out += fmt::format("# warning: {}\n", warning);
  if (diff.base_total == 0 || diff.new_total == 0) {
    out += "# no samples in one of the runs: nothing to compare\n";
    return out;
  }
  std::vector<const FunctionChange*> rows;
  for (const FunctionChange& c : diff.changes) {
    const Location& l = diff.functions[c.function];
    if (l.kind == FrameKind::kProcess || l.kind == FrameKind::kGuessed) continue;
    rows.push_back(&c);
  }
  if (options.top != 0 && rows.size() > options.top) rows.resize(options.top);
  std::vector<std::string> names;
  size_t name_width = 8, module_width = 6;
  for (const FunctionChange* c : rows) {
    const Location& l = diff.functions[c->function];
    std::string name = ShortName(l.function, options.name_width);
    if (l.inlined) name += " (inlined)";
    name_width = std::max(name_width, name.size());
    module_width = std::max(module_width, std::min<size_t>(l.module.size(), 32));
    names.push_back(std::move(name));
  }
  out += fmt::format("#\n{:>8}{:19}{:>8}\n", "Self", "", "Total");
  out += fmt::format("{:>8} {:>8} {:>7}  {:>8} {:>8} {:>7}  {:<{}}  Module\n", "base", "new",
                     "change", "base", "new", "change", "Function", name_width);
  for (size_t i = 0; i < rows.size(); ++i) {
    const FunctionChange& c = *rows[i];
    const Location& l = diff.functions[c.function];
    std::string line =
        fmt::format("{:>8} {:>8} {:>7}  {:>8} {:>8} {:>7}  {:<{}}  {}",
                    PercentOf(c.self_base, diff.base_total), PercentOf(c.self_new, diff.new_total),
                    Points(diff.SelfChange(c)), PercentOf(c.total_base, diff.base_total),
                    PercentOf(c.total_new, diff.new_total), Points(diff.TotalChange(c)), names[i],
                    name_width, FitToWidth(l.module.empty() ? "-" : l.module, 32));
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string RenderDiffFolded(const ProfileDiff& diff) {
  std::vector<std::string> names;
  names.reserve(diff.functions.size());
  for (size_t i = 0; i < diff.functions.size(); ++i) {
    names.push_back(FoldedName(diff.functions[i], diff.labels[i]));
  }
  std::string out;
  for (const StackChange& stack : diff.stacks) {
    for (auto frame = stack.frames.rbegin(); frame != stack.frames.rend(); ++frame) {
      if (frame != stack.frames.rbegin()) out += ';';
      out += names[*frame];
    }
    const double scaled = diff.base_total == 0 ? 0.0
                                               : static_cast<double>(stack.base) *
                                                     static_cast<double>(diff.new_total) /
                                                     static_cast<double>(diff.base_total);
    out += fmt::format(" {} {}\n", static_cast<uint64_t>(std::llround(scaled)), stack.now);
  }
  return out;
}

}  // namespace jitscope::report
