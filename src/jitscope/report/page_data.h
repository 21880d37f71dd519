// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The JSON the HTML page reads (html_writer.h), written piece by piece: a million samples are two
// million numbers, which as a JSON library's values would take ten times the memory of their
// text. Strings are interned into one table ("strings", written last) and named by index, so a
// name that thousands of frames share is written once. Everything is valid JSON; invalid UTF-8 in
// names is replaced.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "jitscope/report/profile.h"

namespace jitscope::report {

// The tree of a profile's distinct stacks, root first: node 0 is the root (frame -1), and each
// node's parent comes before it. leaf[i] is the node stack i ends at.
struct StackTree {
  std::vector<int64_t> parent;
  std::vector<int64_t> frame;  // an index into the locations the stacks' frames name
  std::vector<uint32_t> leaf;
  static StackTree Of(const std::vector<Stack>& stacks);
};

class PageData {
 public:
  // What has been written so far; a writer appends ",\"name\":..." members to it.
  std::string& out() { return out_; }
  // The index of `text` in the strings table.
  int64_t Intern(std::string_view text);
  // ,"name":"text" (the text itself, not interned).
  void Field(std::string_view name, std::string_view text);
  // [n,n,...], [[n,...],[n,...]] and ["text",...].
  void Numbers(const std::vector<int64_t>& numbers);
  void NumberLists(const std::vector<std::vector<int64_t>>& lists);
  void Strings(const std::vector<std::string>& texts);
  // ,"name":{"column":[n,...],...}: a table by columns, each as long as the others.
  using Column = std::pair<const char*, const std::vector<int64_t>*>;
  void Table(std::string_view name, std::initializer_list<Column> columns);
  // The same with the object left open, for more members; CloseTable() ends it.
  void OpenTable(std::string_view name, std::initializer_list<Column> columns);
  void CloseTable() { out_ += '}'; }
  // ,"frames":{...}: per location its name, label, module, file, line, kind's name, whether it
  // is JIT code and inlined, its JIT version (Location::version - 1, or -1) and colour.
  void Frames(const std::vector<Location>& locations, const std::vector<std::string>& labels);
  // ,"nodes":{"parent":[...],"frame":[...]}.
  void Nodes(const StackTree& tree);
  // The strings table, and the closing brace of the object the writer opened.
  std::string Finish() &&;

 private:
  std::string out_;
  std::unordered_map<std::string, int64_t> ids_;
  std::vector<std::string_view> table_;
};

// A JSON string literal of `text`, invalid UTF-8 replaced.
std::string JsonString(std::string_view text);

}  // namespace jitscope::report
