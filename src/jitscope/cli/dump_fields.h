// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// A dumped record as one list of fields, from which both of `jitscope dump`'s forms are made: the
// text line (`HEADLINE key=value ...`) and the JSON object. Describing a record type once keeps
// the two forms from drifting apart; a field can still be shown in one form only (a count in the
// text where the JSON carries the bytes, a field the text line omits for some calls). Both forms
// are written as they are made: a record's table is never held whole, as cells or as text (a
// line table of 10 million entries took 2.1 GB to print, 3.8 GB as JSON).
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace jitscope::cli {

// An address: "0x..." in the text, a number in JSON.
struct Hex {
  uint64_t value = 0;
};
// A name or token: bare in the text, a string in JSON.
struct Word {
  std::string text;
};
// A string from the file: JSON-quoted in the text ("-" when absent), a string or null in JSON.
using Text = std::optional<std::string_view>;

using Cell = std::variant<uint64_t, Hex, Text>;
// A list of rows: "[a:b c:d]" in the text, an array of objects with `columns` as keys in JSON.
// The rows are made one at a time as they are written: `row(i, cells)` fills `cells` with row
// `i` of `size`.
struct Table {
  std::vector<std::string_view> columns;
  size_t size = 0;
  std::function<void(size_t, std::vector<Cell>&)> row;
};

enum class Shown { kBoth, kTextOnly, kJsonOnly };
// A field the text line shows only when `shown` (the JSON object always has it).
inline Shown TextIf(bool shown) { return shown ? Shown::kBoth : Shown::kJsonOnly; }

struct Field {
  std::string_view json_key;
  std::string_view text_key;  // empty: shown in JSON only
  std::variant<uint64_t, Hex, Text, Word, Table> value;
  Shown shown = Shown::kBoth;
};

struct RecordFields {
  std::string_view type;  // JSON "type"
  std::string headline;   // the text line's first word
  std::vector<Field> fields;
};

// Writes "`prefix`HEADLINE key=value key=value" and a newline to `out`.
void WriteFieldsText(std::string_view prefix, const RecordFields& record, std::FILE* out);
// Writes {"type": ..., key: value, ...} and a newline to `out`, with the other members
// `members`, every member in the order of its key (as nlohmann::json orders an object's).
void WriteFieldsJson(const RecordFields& record, nlohmann::json members, std::FILE* out);

}  // namespace jitscope::cli
