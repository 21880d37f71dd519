// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/formats/perf_map_reader.h"

#include <algorithm>
#include <charconv>

#include "jitscope/formats/pid_file_name.h"

namespace jitscope::formats {
namespace {

// One hexadecimal number with an optional 0x prefix; advances `text` past it.
std::optional<uint64_t> TakeHex(std::string_view& text) {
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
    text.remove_prefix(2);
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  if (ec != std::errc() || end == text.data()) return std::nullopt;
  text.remove_prefix(static_cast<size_t>(end - text.data()));
  return value;
}

bool TakeSpace(std::string_view& text) {
  if (text.empty() || text[0] != ' ') return false;
  text.remove_prefix(1);
  return true;
}

// Parses "START SIZE NAME" (no line terminator).
std::optional<PerfMapEntry> ParseLine(std::string_view line) {
  PerfMapEntry entry;
  auto start = TakeHex(line);
  if (!start || !TakeSpace(line)) return std::nullopt;
  auto size = TakeHex(line);
  if (!size || !TakeSpace(line) || line.empty()) return std::nullopt;
  entry.start = *start;
  entry.size = *size;
  entry.name = line;
  return entry;
}

std::string_view NextLine(std::string_view text, size_t offset, bool* terminated) {
  const size_t newline = text.find('\n', offset);
  *terminated = newline != std::string_view::npos;
  std::string_view line = text.substr(offset, *terminated ? newline - offset : text.npos);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

}  // namespace

ParsedPerfMap ParsePerfMap(std::string_view text, std::string_view file_name) {
  ParsedPerfMap out;
  // One entry per line at most, and a line that makes one takes at least 6 bytes ("1 1 f\n"):
  // reserving that spares a million-line map its copies and page faults while it grows. The cap
  // keeps a hostile file of empty lines from reserving gigabytes.
  constexpr size_t kMaxReserved = size_t{1} << 24;
  out.entries.reserve(std::min({static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1,
                                text.size() / 6 + 1, kMaxReserved}));
  size_t offset = 0;
  uint64_t line_number = 0;
  while (offset < text.size()) {
    bool terminated = false;
    const std::string_view line = NextLine(text, offset, &terminated);
    ++line_number;
    // Writers write a line at a time, its newline last: a last line without one was cut short
    // (a crash, or a stdio buffer flushed in the middle of it), and its name may be cut too.
    if (!terminated) {
      out.torn_tail_bytes = text.size() - offset;
      break;
    }
    if (!line.empty()) {
      auto entry = ParseLine(line);
      if (!entry) {
        out.error = base::Status::Error(
            "%.*s: offset %zu (line %llu): expected \"START SIZE NAME\" with hexadecimal START "
            "and SIZE",
            static_cast<int>(file_name.size()), file_name.data(), offset,
            static_cast<unsigned long long>(line_number));
        return out;
      }
      entry->line_number = line_number;
      if (entry->size == 0) {
        ++out.empty_entries;
      } else {
        out.entries.push_back(*entry);
      }
    }
    if (!terminated) break;
    offset = text.find('\n', offset) + 1;
  }
  return out;
}

bool LooksLikePerfMap(std::span<const uint8_t> bytes) {
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  bool terminated = false;
  const std::string_view line = NextLine(text, 0, &terminated);
  return ParseLine(line).has_value();
}

std::optional<uint32_t> PerfMapPid(std::string_view path) {
  const size_t slash = path.rfind('/');
  return ParsePidFileName(slash == path.npos ? path : path.substr(slash + 1), "perf-", ".map");
}

}  // namespace jitscope::formats
