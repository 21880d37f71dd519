// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/record/touched_files.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <vector>

namespace jitscope::record {
namespace {

// One process's file mappings, by start address, each with the index of its file.
class FileRanges {
 public:
  void Add(const session::Mapping& mapping, size_t file) {
    if (mapping.length == 0) return;
    ranges_.push_back({mapping.start, mapping.start + mapping.length, file});
    longest_ = std::max(longest_, mapping.length);
    lowest_ = std::min(lowest_, mapping.start);
    highest_ = std::max(highest_, mapping.start + mapping.length);
  }
  void Sort() {
    std::sort(ranges_.begin(), ranges_.end(),
              [](const Range& a, const Range& b) { return a.start < b.start; });
  }
  // Marks in `touched` every file with a mapping that covers `address`.
  void Mark(uint64_t address, std::vector<bool>& touched) const {
    if (address < lowest_ || address >= highest_) return;  // most stack words
    auto it = std::upper_bound(ranges_.begin(), ranges_.end(), address,
                               [](uint64_t a, const Range& r) { return a < r.start; });
    // The mappings that start at or before it, back to the longest one's reach.
    while (it != ranges_.begin()) {
      --it;
      if (address - it->start >= longest_) break;
      if (address < it->end) touched[it->file] = true;
    }
  }

 private:
  struct Range {
    uint64_t start;
    uint64_t end;
    size_t file;
  };
  std::vector<Range> ranges_;
  uint64_t longest_ = 0;
  uint64_t lowest_ = UINT64_MAX;
  uint64_t highest_ = 0;
};

// Whether a mapping's name is a file's path that may still be opened: not "//anon" (perf's name
// for anonymous memory), nor a file deleted since it was mapped ("PATH (deleted)": another file
// may have its path now; a memfd's name ends so too).
bool IsPath(std::string_view name) {
  return name.starts_with('/') && !name.starts_with("//") && !name.ends_with(" (deleted)");
}

}  // namespace

std::map<uint32_t, std::set<std::string>> TouchedFiles(const session::SampleData& data,
                                                       const std::set<uint32_t>& pids) {
  std::vector<std::string> files;  // of every process, by index
  std::map<std::string, size_t> index;
  std::map<uint32_t, FileRanges> ranges;
  for (const session::Mapping& mapping : data.mappings) {
    if (!pids.contains(mapping.pid) || !IsPath(mapping.filename)) continue;
    auto [it, inserted] = index.try_emplace(mapping.filename, files.size());
    if (inserted) files.push_back(mapping.filename);
    ranges[mapping.pid].Add(mapping, it->second);
  }
  std::map<uint32_t, std::vector<bool>> touched;
  for (auto& [pid, process] : ranges) {
    process.Sort();
    touched[pid].assign(files.size(), false);
  }
  if (!ranges.empty()) {
    data.ForEachSample([&](const session::Sample& sample) {
      const auto process = ranges.find(sample.pid);
      if (process == ranges.end()) return;
      std::vector<bool>& marks = touched[sample.pid];
      process->second.Mark(sample.ip, marks);
      for (const session::CallchainEntry& frame : sample.callchain) {
        if (!frame.kernel) process->second.Mark(frame.ip, marks);
      }
      const size_t word = sample.regs.abi == PERF_SAMPLE_REGS_ABI_32 ? 4 : 8;
      for (size_t at = 0; at + word <= sample.stack.size(); at += word) {
        uint64_t value = 0;  // little-endian: a 4-byte word is the low half
        std::memcpy(&value, sample.stack.data() + at, word);
        process->second.Mark(value, marks);
      }
    });
  }
  std::map<uint32_t, std::set<std::string>> paths;
  for (const auto& [pid, marks] : touched) {
    for (size_t i = 0; i < marks.size(); ++i) {
      if (marks[i]) paths[pid].insert(files[i]);
    }
  }
  return paths;
}

}  // namespace jitscope::record
