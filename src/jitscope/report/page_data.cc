// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/report/page_data.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "jitscope/report/frame_style.h"

namespace jitscope::report {

std::string JsonString(std::string_view text) {
  return nlohmann::json(std::string(text))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

StackTree StackTree::Of(const std::vector<Stack>& stacks) {
  StackTree tree;
  tree.parent.push_back(-1);
  tree.frame.push_back(-1);
  std::unordered_map<uint64_t, uint32_t> children;  // (parent << 32 | frame) → node
  tree.leaf.reserve(stacks.size());
  for (const Stack& stack : stacks) {
    uint32_t node = 0;
    for (auto frame = stack.frames.rbegin(); frame != stack.frames.rend(); ++frame) {
      const uint64_t key = (uint64_t{node} << 32) | *frame;
      auto [it, inserted] = children.try_emplace(key, static_cast<uint32_t>(tree.parent.size()));
      if (inserted) {
        tree.parent.push_back(node);
        tree.frame.push_back(*frame);
      }
      node = it->second;
    }
    tree.leaf.push_back(node);
  }
  return tree;
}

int64_t PageData::Intern(std::string_view text) {
  auto [it, inserted] = ids_.try_emplace(std::string(text), static_cast<int64_t>(table_.size()));
  if (inserted) table_.push_back(it->first);
  return it->second;
}

void PageData::Field(std::string_view name, std::string_view text) {
  out_ += fmt::format(",\"{}\":{}", name, JsonString(text));
}

void PageData::Numbers(const std::vector<int64_t>& numbers) {
  out_ += '[';
  fmt::format_to(std::back_inserter(out_), "{}", fmt::join(numbers, ","));
  out_ += ']';
}

void PageData::NumberLists(const std::vector<std::vector<int64_t>>& lists) {
  out_ += '[';
  for (size_t i = 0; i < lists.size(); ++i) {
    if (i > 0) out_ += ',';
    Numbers(lists[i]);
  }
  out_ += ']';
}

void PageData::OpenTable(std::string_view name, std::initializer_list<Column> columns) {
  out_ += fmt::format(",\"{}\":{{", name);
  bool first = true;
  for (const auto& [column, values] : columns) {
    out_ += fmt::format("{}\"{}\":", first ? "" : ",", column);
    Numbers(*values);
    first = false;
  }
}

void PageData::Table(std::string_view name, std::initializer_list<Column> columns) {
  OpenTable(name, columns);
  CloseTable();
}

void PageData::Strings(const std::vector<std::string>& texts) {
  out_ += '[';
  for (size_t i = 0; i < texts.size(); ++i) {
    if (i > 0) out_ += ',';
    out_ += JsonString(texts[i]);
  }
  out_ += ']';
}

void PageData::Frames(const std::vector<Location>& locations,
                      const std::vector<std::string>& labels) {
  std::vector<int64_t> name, label, module, file, line, kind, jit, inlined, version, colour;
  for (size_t i = 0; i < locations.size(); ++i) {
    const Location& l = locations[i];
    name.push_back(Intern(l.function));
    label.push_back(Intern(l.inlined ? labels[i] + " (inlined)" : labels[i]));
    module.push_back(Intern(l.module));
    file.push_back(Intern(l.file));
    line.push_back(l.line);
    kind.push_back(Intern(FrameKindName(l)));
    jit.push_back(l.kind == FrameKind::kJit ? 1 : 0);
    inlined.push_back(l.inlined ? 1 : 0);
    version.push_back(static_cast<int64_t>(l.version) - 1);
    colour.push_back(Intern(FrameColour(l)));
  }
  Table("frames", {{"name", &name},
                   {"label", &label},
                   {"module", &module},
                   {"file", &file},
                   {"line", &line},
                   {"kind", &kind},
                   {"jit", &jit},
                   {"inlined", &inlined},
                   {"version", &version},
                   {"colour", &colour}});
}

void PageData::Nodes(const StackTree& tree) {
  Table("nodes", {{"parent", &tree.parent}, {"frame", &tree.frame}});
}

std::string PageData::Finish() && {
  out_ += ",\"strings\":[";
  for (size_t i = 0; i < table_.size(); ++i) {
    if (i > 0) out_ += ',';
    out_ += JsonString(table_[i]);
  }
  out_ += "]}";
  return std::move(out_);
}

}  // namespace jitscope::report
