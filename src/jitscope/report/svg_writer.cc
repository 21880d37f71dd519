// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/report/svg_writer.h"
#include "jitscope/report/utf8.h"

#include <algorithm>
#include <map>
#include <memory>
#include <string_view>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "jitscope/report/frame_labels.h"
#include "jitscope/report/frame_style.h"
#include "jitscope/report/text_writer.h"

namespace jitscope::report {
namespace {

constexpr double kImageWidth = 1200;
constexpr double kFrameHeight = 16;
constexpr double kTop = 48;            // title, controls and the details line
constexpr double kWarningHeight = 15;  // one line under the title per warning
constexpr double kBottom = 10;
constexpr double kMinWidth = 0.1;

// A box: one function (in one module, of one kind, inlined or not) at one place in the call
// tree. Locations that differ only in their line share a box — a flame graph shows where time
// goes by function; lines are for the tooltip and the text report.
struct Node {
  uint32_t location = 0;     // the first location seen for the box
  bool mixed_lines = false;  // other locations (lines) of the same function joined it
  uint64_t samples = 0;
  std::map<uint32_t, std::unique_ptr<Node>> children;  // by box key, so output is stable
};

// How deep the tree goes in boxes that are drawn: a box narrower than kMinWidth is not, nor are
// the boxes above it, so they take no room (deep, thin stacks made the image thousands of pixels
// tall with nothing in most of it).
int Depth(const Node& node, double total) {
  int depth = 0;
  for (const auto& [location, child] : node.children) {
    if (kImageWidth * static_cast<double>(child->samples) / total < kMinWidth) continue;
    depth = std::max(depth, 1 + Depth(*child, total));
  }
  return depth;
}

class SvgBuilder {
 public:
  explicit SvgBuilder(const Profile& profile) : profile_(profile), labels_(FrameLabels(profile)) {
    std::map<std::tuple<std::string_view, std::string_view, FrameKind, bool>, uint32_t> boxes;
    std::vector<uint32_t> box_of(profile.locations.size());
    for (size_t i = 0; i < profile.locations.size(); ++i) {
      const Location& l = profile.locations[i];
      box_of[i] =
          boxes.try_emplace({l.function, l.module, l.kind, l.inlined}, boxes.size()).first->second;
    }
    for (const Stack& stack : profile.stacks) {
      Node* node = &root_;
      node->samples += stack.samples;
      for (auto frame = stack.frames.rbegin(); frame != stack.frames.rend(); ++frame) {
        std::unique_ptr<Node>& child = node->children[box_of[*frame]];
        if (!child) {
          child = std::make_unique<Node>();
          child->location = *frame;
        }
        if (profile.locations[child->location].line != profile.locations[*frame].line) {
          child->mixed_lines = true;
        }
        child->samples += stack.samples;
        node = child.get();
      }
    }
  }

  std::string Build() {
    const int depth = Depth(root_, static_cast<double>(std::max<uint64_t>(root_.samples, 1)));
    const double warnings = static_cast<double>(profile_.warnings.size());
    height_ = kTop + warnings * kWarningHeight + kBottom + (depth + 1) * kFrameHeight;
    std::string title = "Flame graph";
    if (!profile_.command.empty()) title += ": " + profile_.command;
    out_ += fmt::format(
        "<?xml version=\"1.0\" standalone=\"no\"?>\n"
        "<svg version=\"1.1\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
        "xmlns=\"http://www.w3.org/2000/svg\" data-total=\"{2}\">\n",
        kImageWidth, height_, root_.samples);
    out_ += kStyle;
    // The details line is under the title, where it stays in sight however tall the graph.
    out_ += fmt::format(
        "<rect width=\"100%\" height=\"100%\" fill=\"#f8f8f8\"/>\n"
        "<text id=\"title\" x=\"{}\" y=\"20\" text-anchor=\"middle\">{}</text>\n"
        "<text id=\"reset\" class=\"control\" x=\"10\" y=\"20\">Reset zoom</text>\n"
        "<text id=\"search\" class=\"control\" x=\"{}\" y=\"20\">Search</text>\n"
        "<text id=\"details\" x=\"10\" y=\"{}\"> </text>\n",
        kImageWidth / 2, EscapeMarkup(title), kImageWidth - 60, 38);
    // What the report could not do (refused events, damaged files, unnamed JIT code), under the
    // title as in the text report's header.
    for (size_t i = 0; i < profile_.warnings.size(); ++i) {
      out_ += fmt::format("<text class=\"warning\" x=\"10\" y=\"{}\">warning: {}</text>\n",
                          kTop + static_cast<double>(i) * kWarningHeight,
                          EscapeMarkup(profile_.warnings[i]));
    }
    out_ += "<g id=\"frames\">\n";
    Emit(root_, nullptr, 0, 0);
    out_ += "</g>\n";
    out_ += kScript;
    out_ += "</svg>\n";
    return std::move(out_);
  }

 private:
  void Emit(const Node& node, const Location* location, int depth, double x) {
    const double total = static_cast<double>(std::max<uint64_t>(root_.samples, 1));
    const double width = kImageWidth * static_cast<double>(node.samples) / total;
    if (width < kMinWidth) return;
    // The root at the top, callees below their callers (an icicle): the first screen of a tall
    // graph shows the root and the widest paths, not the ends of its deepest stacks.
    const double y = kTop + static_cast<double>(profile_.warnings.size()) * kWarningHeight +
                     depth * kFrameHeight;
    std::string name = "all";
    std::string tooltip = fmt::format("all: {} samples", node.samples);
    std::string fill = "rgb(220,220,220)";
    std::string css = "f";
    if (location != nullptr) {
      name = labels_[static_cast<size_t>(location - profile_.locations.data())];
      std::string where = location->file;
      if (!where.empty() && location->line != 0 && !node.mixed_lines) {
        where += fmt::format(":{}", location->line);
      }
      tooltip = fmt::format("{}{} — {} {}{} — {} samples, {:.2f}%", location->function,
                            location->inlined ? " (inlined)" : "", FrameKindName(*location),
                            ModuleDisplayName(location->module), where.empty() ? "" : ", " + where,
                            node.samples, 100.0 * static_cast<double>(node.samples) / total);
      fill = FrameColour(*location);
      if (location->inlined) css += " inl";
    }
    out_ += fmt::format(
        "<g class=\"{}\" data-x=\"{:.2f}\" data-w=\"{:.2f}\" data-d=\"{}\" data-n=\"{}\">"
        "<title>{}</title><rect x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{}\" "
        "fill=\"{}\" rx=\"2\"/><text x=\"{:.2f}\" y=\"{:.1f}\">{}</text></g>\n",
        css, x, width, depth, EscapeMarkup(name), EscapeMarkup(tooltip), x, y, width,
        kFrameHeight - 1, fill, x + 3, y + kFrameHeight - 4.5, EscapeMarkup(Label(name, width)));
    double child_x = x;
    for (const auto& [box, child] : node.children) {
      Emit(*child, &profile_.locations[child->location], depth + 1, child_x);
      child_x += kImageWidth * static_cast<double>(child->samples) / total;
    }
  }

  // What fits in the box at about 7 px a character (the script refits after a zoom).
  static std::string Label(const std::string& name, double width) {
    const size_t fits = width < 21 ? 0 : static_cast<size_t>((width - 6) / 7);
    if (name.size() <= fits) return name;
    if (fits < 3) return "";
    size_t cut = fits - 2;
    while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;
    return name.substr(0, cut) + "..";
  }

  static constexpr const char* kStyle =
      "<style type=\"text/css\">\n"
      "text { font-family: monospace; font-size: 12px; fill: #000; }\n"
      "#title { font-size: 15px; }\n"
      ".warning { font-size: 12px; fill: #a33; }\n"
      ".control { cursor: pointer; fill: #0645ad; }\n"
      ".f { cursor: pointer; }\n"
      ".f:hover rect { stroke: #000; stroke-width: 0.7; }\n"
      ".inl rect { stroke: #1a6b6b; stroke-dasharray: 3,2; stroke-width: 0.8; }\n"
      ".hidden { display: none; }\n"
      ".match rect { fill: rgb(230,0,230) !important; }\n"
      "</style>\n";

  // Zoom rescales every frame from its original data-x/data-w; names come from data-n, which the
  // parser has already unescaped, and are only ever assigned as text.
  static constexpr const char* kScript = R"(<script type="text/ecmascript"><![CDATA[
(function () {
  var svg = document.documentElement, W = parseFloat(svg.getAttribute('width'));
  var frames = Array.prototype.slice.call(document.querySelectorAll('#frames > g'));
  var details = document.getElementById('details');
  function num(g, a) { return parseFloat(g.getAttribute('data-' + a)); }
  function fit(name, w) {
    var n = Math.floor((w - 6) / 7);
    if (w < 21 || n < 3) return '';
    return name.length <= n ? name : name.substring(0, n - 2) + '..';
  }
  function place(g, x, w) {
    var r = g.querySelector('rect'), t = g.querySelector('text');
    r.setAttribute('x', x); r.setAttribute('width', w);
    t.setAttribute('x', x + 3); t.textContent = fit(g.getAttribute('data-n'), w);
  }
  function zoom(target) {
    var x0 = num(target, 'x'), w0 = num(target, 'w'), d0 = num(target, 'd');
    frames.forEach(function (g) {
      var x = num(g, 'x'), w = num(g, 'w'), d = num(g, 'd');
      var inside = x >= x0 - 0.01 && x + w <= x0 + w0 + 0.01;
      var below = d < d0 && x <= x0 + 0.01 && x + w >= x0 + w0 - 0.01;
      if (inside && d >= d0) { g.classList.remove('hidden'); place(g, (x - x0) * W / w0, w * W / w0); }
      else if (below) { g.classList.remove('hidden'); place(g, 0, W); }
      else g.classList.add('hidden');
    });
  }
  frames.forEach(function (g) {
    g.addEventListener('click', function () { zoom(g); });
    g.addEventListener('mouseover', function () {
      details.textContent = g.querySelector('title').textContent;
    });
    g.addEventListener('mouseout', function () { details.textContent = ' '; });
  });
  document.getElementById('reset').addEventListener('click', function () { zoom(frames[0]); });
  document.getElementById('search').addEventListener('click', function () {
    var term = prompt('Highlight frames whose name contains:', '');
    frames.forEach(function (g) {
      var hit = term && g.getAttribute('data-n').indexOf(term) >= 0;
      if (hit) g.classList.add('match'); else g.classList.remove('match');
    });
  });
})();
]]></script>
)";

  const Profile& profile_;
  Node root_;
  std::vector<std::string> labels_;  // per location (frame_labels.h)
  double height_ = 0;
  std::string out_;
};

}  // namespace

std::string RenderSvg(const Profile& profile) { return SvgBuilder(profile).Build(); }

}  // namespace jitscope::report
