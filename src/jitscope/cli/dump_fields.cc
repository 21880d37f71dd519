// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/cli/dump_fields.h"

#include <fmt/format.h>

#include "jitscope/cli/dump_command.h"

namespace jitscope::cli {
namespace {

using nlohmann::json;

template <typename... Handlers>
struct Overloaded : Handlers... {
  using Handlers::operator()...;
};
// clang 14 (the sanitized builds) does not deduce an aggregate's template arguments by itself.
template <typename... Handlers>
Overloaded(Handlers...) -> Overloaded<Handlers...>;

std::string CellText(const Cell& cell) {
  return std::visit(Overloaded{[](uint64_t v) { return fmt::format("{}", v); },
                               [](Hex h) { return fmt::format("{:#x}", h.value); },
                               [](const Text& t) { return Quote(t); }},
                    cell);
}

json CellJson(const Cell& cell) {
  return std::visit(
      Overloaded{[](uint64_t v) { return json(v); }, [](Hex h) { return json(h.value); },
                 [](const Text& t) { return t ? json(std::string(*t)) : json(); }},
      cell);
}

std::string TableText(const Table& table) {
  std::string text = "[";
  for (size_t row = 0; row < table.rows.size(); ++row) {
    if (row != 0) text += ' ';
    for (size_t column = 0; column < table.rows[row].size(); ++column) {
      if (column != 0) text += ':';
      text += CellText(table.rows[row][column]);
    }
  }
  return text + "]";
}

json TableJson(const Table& table) {
  json rows = json::array();
  for (const std::vector<Cell>& row : table.rows) {
    json object = json::object();
    for (size_t column = 0; column < row.size() && column < table.columns.size(); ++column) {
      object[std::string(table.columns[column])] = CellJson(row[column]);
    }
    rows.push_back(std::move(object));
  }
  return rows;
}

}  // namespace

std::string FieldsToText(const RecordFields& record) {
  std::string line = record.headline;
  for (const Field& field : record.fields) {
    if (field.shown == Shown::kJsonOnly || field.text_key.empty()) continue;
    const std::string value =
        std::visit(Overloaded{[](const Word& w) { return w.text; },
                              [](const Table& t) { return TableText(t); },
                              [](const auto& cell) { return CellText(Cell(cell)); }},
                   field.value);
    line += fmt::format(" {}={}", field.text_key, value);
  }
  return line;
}

void FieldsToJson(const RecordFields& record, json& out) {
  out["type"] = std::string(record.type);
  for (const Field& field : record.fields) {
    if (field.shown == Shown::kTextOnly) continue;
    out[std::string(field.json_key)] =
        std::visit(Overloaded{[](const Word& w) { return json(w.text); },
                              [](const Table& t) { return TableJson(t); },
                              [](const auto& cell) { return CellJson(Cell(cell)); }},
                   field.value);
  }
}

}  // namespace jitscope::cli
