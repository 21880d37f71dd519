// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/collector/readable_code.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>

#include "jitscope/base/scoped_resource.h"
#include "jitscope/base/thread_local.h"

namespace jitscope::collector {
namespace {

// The last area this thread found readable (16 bytes of static TLS, thread_local.h).
JITSCOPE_THREAD_LOCAL Area cached_area;

bool Inside(const Area& area, uint64_t address, uint64_t size) {
  return address >= area.start && address < area.end && size <= area.end - address;
}

// Parses "start-end perms ..." at the start of a maps line; false for anything else.
bool ParseLine(const char* line, const char* end, Area& area, bool& readable) {
  auto hex = [&](uint64_t& value) {
    value = 0;
    const char* start = line;
    for (; line < end; ++line) {
      const char c = *line;
      const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      if (digit < 0) break;
      value = value << 4 | static_cast<uint64_t>(digit);
    }
    return line != start;
  };
  if (!hex(area.start) || line == end || *line++ != '-' || !hex(area.end)) return false;
  if (line == end || *line++ != ' ' || line == end) return false;
  readable = *line == 'r';
  return area.start < area.end;
}

}  // namespace

Area FindReadableArea(const char* maps, uint64_t size_of_maps, uint64_t address, uint64_t size) {
  Area found;  // the run of adjacent readable mappings being followed
  const char* const end = maps + size_of_maps;
  for (const char* line = maps; line < end;) {
    const char* newline = static_cast<const char*>(std::memchr(line, '\n', end - line));
    const char* line_end = newline ? newline : end;
    Area mapping;
    bool readable = false;
    if (ParseLine(line, line_end, mapping, readable)) {
      if (!readable) {
        found = {};
      } else if (found.end == mapping.start && found.end != 0) {
        found.end = mapping.end;
      } else {
        found = mapping;
      }
      if (found.end != 0 && Inside(found, address, size)) return found;
    }
    line = line_end + 1;
  }
  return {};
}

bool IsReadableCode(uint64_t address, uint64_t size) {
  if (size == 0 || address + size < address) return false;
  if (Inside(cached_area, address, size)) return true;
  // The slow path: read /proc/self/maps whole into a buffer that grows as needed. A JIT process
  // has a few hundred to a few thousand mappings (~100 bytes each).
  base::ScopedFd fd(::open("/proc/self/maps", O_RDONLY | O_CLOEXEC));
  if (!fd) return false;
  static constexpr size_t kChunk = 8 * 1024;  // engine threads may have small stacks
  char stack_buffer[kChunk];
  char* buffer = stack_buffer;
  size_t capacity = sizeof(stack_buffer);
  size_t used = 0;
  bool ok = true;
  for (;;) {
    if (used == capacity) {
      char* bigger = static_cast<char*>(::operator new(capacity * 2, std::nothrow));
      if (bigger == nullptr) {
        ok = false;
        break;
      }
      std::memcpy(bigger, buffer, used);
      if (buffer != stack_buffer) ::operator delete(buffer);
      buffer = bigger;
      capacity *= 2;
    }
    const ssize_t n = ::read(fd.get(), buffer + used, capacity - used);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) ok = false;
    if (n <= 0) break;
    used += static_cast<size_t>(n);
  }
  const Area area = ok ? FindReadableArea(buffer, used, address, size) : Area{};
  if (buffer != stack_buffer) ::operator delete(buffer);
  if (area.end == 0) return false;
  cached_area = area;
  return true;
}

}  // namespace jitscope::collector
