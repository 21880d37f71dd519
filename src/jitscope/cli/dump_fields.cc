// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/cli/dump_fields.h"

#include <map>
#include <string>
#include <vector>

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

// Makes the rows one at a time.
template <typename Write>
void ForEachRow(const Table& table, Write write) {
  std::vector<Cell> cells;
  for (size_t i = 0; i < table.size; ++i) {
    cells.clear();
    table.row(i, cells);
    write(i, cells);
  }
}

void WriteTableText(const Table& table, std::FILE* out) {
  std::fputc('[', out);
  ForEachRow(table, [&](size_t i, const std::vector<Cell>& cells) {
    if (i != 0) std::fputc(' ', out);
    for (size_t column = 0; column < cells.size(); ++column) {
      if (column != 0) std::fputc(':', out);
      std::fputs(CellText(cells[column]).c_str(), out);
    }
  });
  std::fputc(']', out);
}

void WriteTableJson(const Table& table, std::FILE* out) {
  std::fputc('[', out);
  ForEachRow(table, [&](size_t i, const std::vector<Cell>& cells) {
    json object = json::object();
    for (size_t column = 0; column < cells.size() && column < table.columns.size(); ++column) {
      object[std::string(table.columns[column])] = CellJson(cells[column]);
    }
    if (i != 0) std::fputc(',', out);
    std::fputs(DumpJson(object).c_str(), out);
  });
  std::fputc(']', out);
}

}  // namespace

void WriteFieldsText(std::string_view prefix, const RecordFields& record, std::FILE* out) {
  fmt::print(out, "{}{}", prefix, record.headline);
  for (const Field& field : record.fields) {
    if (field.shown == Shown::kJsonOnly || field.text_key.empty()) continue;
    fmt::print(out, " {}=", field.text_key);
    if (const auto* table = std::get_if<Table>(&field.value)) {
      WriteTableText(*table, out);
      continue;
    }
    std::fputs(std::visit(Overloaded{[](const Word& w) { return w.text; },
                                     [](const Table&) { return std::string(); },
                                     [](const auto& cell) { return CellText(Cell(cell)); }},
                          field.value)
                   .c_str(),
               out);
  }
  std::fputc('\n', out);
}

void WriteFieldsJson(const RecordFields& record, json members, std::FILE* out) {
  members["type"] = std::string(record.type);
  std::map<std::string_view, const Table*> tables;
  for (const Field& field : record.fields) {
    if (field.shown == Shown::kTextOnly) continue;
    if (const auto* table = std::get_if<Table>(&field.value)) {
      tables[field.json_key] = table;
      continue;
    }
    members[std::string(field.json_key)] = std::visit(
        Overloaded{[](const Word& w) { return json(w.text); }, [](const Table&) { return json(); },
                   [](const auto& cell) { return CellJson(Cell(cell)); }},
        field.value);
  }
  // What DumpJson prints of the whole object, each table written row by row where its key sorts
  // among the others'.
  bool first = true;
  const auto key = [&](std::string_view name) {
    std::fputs(first ? "{" : ",", out);
    first = false;
    fmt::print(out, "{}:", DumpJson(json(std::string(name))));
  };
  auto table = tables.begin();
  const auto tables_before = [&](const std::string* name) {
    for (; table != tables.end() && (name == nullptr || table->first < *name); ++table) {
      key(table->first);
      WriteTableJson(*table->second, out);
    }
  };
  for (const auto& member : members.items()) {
    tables_before(&member.key());
    key(member.key());
    std::fputs(DumpJson(member.value()).c_str(), out);
  }
  tables_before(nullptr);
  std::fputs(first ? "{}\n" : "}\n", out);
}

}  // namespace jitscope::cli
