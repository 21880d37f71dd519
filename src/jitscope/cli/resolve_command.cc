// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/cli/resolve_command.h"

#include <charconv>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "jitscope/session/session_info.h"
#include "jitscope/symbolize/source_set.h"

namespace jitscope::cli {
namespace {

using OrderedJson = nlohmann::ordered_json;

struct Query {
  std::string text;
  uint64_t address = 0;
  std::optional<uint64_t> time;
};

std::optional<Query> ParseQuery(const std::string& text) {
  Query query;
  query.text = text;
  std::string_view s = text;
  std::string_view time;
  if (const size_t at = s.find('@'); at != s.npos) {
    time = s.substr(at + 1);
    s = s.substr(0, at);
  }
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), query.address, 16);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  if (text.find('@') != std::string::npos) {
    uint64_t t = 0;
    auto [tend, tec] = std::from_chars(time.data(), time.data() + time.size(), t, 10);
    if (time.empty() || tec != std::errc() || tend != time.data() + time.size())
      return std::nullopt;
    query.time = t;
  }
  return query;
}

std::string FrameText(const symbolize::Frame& f) {
  std::string line = f.name.empty() ? "(no name)" : std::string(f.name);
  if (f.inlined) line += " (inlined)";
  if (!f.file.empty()) {
    line += fmt::format(" at {}", f.file);
    if (f.line != 0) line += fmt::format(":{}", f.line);
  } else if (f.line != 0) {
    line += fmt::format(" at line {}", f.line);
  }
  std::vector<std::string> tags;
  if (f.method_id) tags.push_back(fmt::format("id {}", *f.method_id));
  if (!f.module.empty()) tags.push_back(fmt::format("module {}", f.module));
  if (!tags.empty()) line += fmt::format(" [{}]", fmt::join(tags, ", "));
  return line;
}

OrderedJson Nullable(std::string_view s) {
  return s.empty() ? OrderedJson(nullptr) : OrderedJson(std::string(s));
}

OrderedJson QueryJson(const Query& q, bool resolved, const symbolize::Resolution& r) {
  OrderedJson frames = OrderedJson::array();
  for (const auto& f : r.frames) {
    frames.push_back({{"name", std::string(f.name)},
                      {"method_id", f.method_id ? OrderedJson(*f.method_id) : OrderedJson(nullptr)},
                      {"module", Nullable(f.module)},
                      {"file", Nullable(f.file)},
                      {"line", f.line != 0 ? OrderedJson(f.line) : OrderedJson(nullptr)},
                      {"inlined", f.inlined}});
  }
  OrderedJson region = nullptr;
  if (resolved) {
    region = {{"start", r.region.start}, {"size", r.region.size}, {"loaded", r.region.loaded}};
  }
  return {{"address", q.address},
          {"time", q.time ? OrderedJson(*q.time) : OrderedJson(nullptr)},
          {"frames", std::move(frames)},
          {"region", std::move(region)}};
}

}  // namespace

std::vector<std::string> SplitResolveQueries(int argc, char** argv,
                                             std::vector<std::string>& queries) {
  std::vector<std::string> args(argv, argv + argc);
  // Only `jitscope resolve ...`: other subcommands (record) give "--" a meaning of their own.
  if (args.size() < 2 || args[1] != "resolve") return args;
  auto mark = std::find(args.begin() + 2, args.end(), "--");
  if (mark == args.end()) return args;
  queries.assign(mark + 1, args.end());
  args.erase(mark, args.end());
  return args;
}

int RunResolve(const ResolveOptions& options, std::FILE* out, std::FILE* err) {
  std::vector<Query> queries;
  if (options.queries.empty()) {
    fmt::print(err, "jitscope resolve: error: no addresses: give them after \"--\"\n");
    return 2;
  }
  for (const std::string& text : options.queries) {
    auto query = ParseQuery(text);
    if (!query) {
      fmt::print(err,
                 "jitscope resolve: error: \"{}\" is not ADDR[@TIME_NS] (hexadecimal address, "
                 "decimal nanoseconds)\n",
                 text);
      return 2;
    }
    queries.push_back(*query);
  }
  // A session's copies of a process in another pid namespace are that process's (session.json).
  std::map<std::string, uint32_t> copies;
  for (const std::string& source : options.sources) {
    if (base::StatusOr<session::SessionInfo> info = session::ReadSessionInfo(source); info.ok()) {
      copies.merge(session::CopiesDirectories(source, *info));
    }
  }
  auto sources = symbolize::SourceSet::Open(options.sources, copies);
  if (!sources.ok()) {
    fmt::print(err, "jitscope resolve: error: {}\n", sources.status().message());
    return 1;
  }
  const std::set<uint32_t> pids = sources->pids();
  if (!options.pid && pids.size() > 1) {
    fmt::print(err,
               "jitscope resolve: error: the sources describe {} processes ({}); choose one "
               "with --pid\n",
               pids.size(), fmt::join(pids, ", "));
    return 2;
  }
  if (options.pid && !pids.contains(*options.pid)) {
    fmt::print(err, "jitscope resolve: error: no source describes process {}\n", *options.pid);
    return 2;
  }
  for (const std::string& problem : sources->problems()) {
    fmt::print(err, "jitscope resolve: error: {} (using what was readable before it)\n", problem);
  }
  const symbolize::SymbolIndex index = sources->BuildIndex(options.pid);
  for (const std::string& warning : index.warnings()) {
    fmt::print(err, "jitscope resolve: warning: {}\n", warning);
  }
  if (index.warning_count() > index.warnings().size()) {
    fmt::print(err, "jitscope resolve: warning: {} more warnings not shown\n",
               index.warning_count() - index.warnings().size());
  }

  symbolize::Resolution resolution;
  OrderedJson array = OrderedJson::array();
  for (const Query& q : queries) {
    const bool resolved = index.Resolve(q.address, q.time.value_or(symbolize::kLatest), resolution);
    if (options.json) {
      array.push_back(QueryJson(q, resolved, resolution));
      continue;
    }
    if (!resolved) fmt::print(out, "{}: ??\n", q.text);
    for (const auto& frame : resolution.frames)
      fmt::print(out, "{}: {}\n", q.text, FrameText(frame));
  }
  if (options.json) {
    fmt::print(out, "{}\n", array.dump(2, ' ', false, OrderedJson::error_handler_t::replace));
  }
  std::fflush(out);
  return sources->problems().empty() ? 0 : 1;
}

}  // namespace jitscope::cli
