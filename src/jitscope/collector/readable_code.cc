// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/collector/readable_code.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

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

// Follows the lines of /proc/self/maps in order: the run of adjacent readable mappings so far,
// and whether it holds the range asked for.
class AreaScanner {
 public:
  AreaScanner(uint64_t address, uint64_t size) : address_(address), size_(size) {}

  // Takes one line (without its newline); true once the range is found.
  bool Line(const char* line, const char* end) {
    Area mapping;
    bool readable = false;
    if (!ParseLine(line, end, mapping, readable)) return false;
    if (!readable) {
      run_ = {};
    } else if (run_.end == mapping.start && run_.end != 0) {
      run_.end = mapping.end;
    } else {
      run_ = mapping;
    }
    return run_.end != 0 && Inside(run_, address_, size_);
  }
  const Area& run() const { return run_; }

 private:
  uint64_t address_;
  uint64_t size_;
  Area run_;
};

// Feeds every whole line of [begin, end) to `scanner`; returns where the last, unfinished line
// starts (`end` when none is), or nullptr once the range is found.
const char* ScanLines(AreaScanner& scanner, const char* begin, const char* end) {
  for (const char* line = begin; line < end;) {
    const char* newline = static_cast<const char*>(std::memchr(line, '\n', end - line));
    if (newline == nullptr) return line;
    if (scanner.Line(line, newline)) return nullptr;
    line = newline + 1;
  }
  return end;
}

}  // namespace

Area FindReadableArea(const char* maps, uint64_t size_of_maps, uint64_t address, uint64_t size) {
  AreaScanner scanner(address, size);
  const char* const end = maps + size_of_maps;
  const char* rest = ScanLines(scanner, maps, end);
  if (rest == nullptr) return scanner.run();
  // A last line without a newline.
  return rest < end && scanner.Line(rest, end) ? scanner.run() : Area{};
}

bool IsReadableCode(uint64_t address, uint64_t size) {
  if (size == 0 || address + size < address) return false;
  if (Inside(cached_area, address, size)) return true;
  // The slow path: /proc/self/maps read through a buffer on the stack, line by line. No heap:
  // this runs in whatever state the engine's thread is in, a child just forked from a threaded
  // process included, where a lock of the allocator may be held for ever.
  base::ScopedFd fd(::open("/proc/self/maps", O_RDONLY | O_CLOEXEC));
  if (!fd) return false;
  char buffer[8 * 1024];  // engine threads may have small stacks; a maps line is < 4 KiB
  size_t kept = 0;        // bytes of an unfinished line at the start of the buffer
  AreaScanner scanner(address, size);
  for (;;) {
    const ssize_t n = ::read(fd.get(), buffer + kept, sizeof(buffer) - kept);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    const char* end = buffer + kept + n;
    const char* rest = ScanLines(scanner, buffer, end);
    if (rest == nullptr) {
      cached_area = scanner.run();
      return true;
    }
    kept = static_cast<size_t>(end - rest);
    if (kept == sizeof(buffer)) return false;  // a line longer than the buffer: not a maps file
    std::memmove(buffer, rest, kept);
  }
  return false;
}

}  // namespace jitscope::collector
