// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/symbolize/code_history.h"

#include <algorithm>
#include <unordered_map>

#include "jitscope/symbolize/symbol_index.h"

namespace jitscope::symbolize {
namespace {

// OProfile's code has no method id.
constexpr uint64_t kNoMethodId = 0;

}  // namespace

void CodeHistory::EndOverlapping(uint64_t address, uint64_t size, uint64_t time_ns) {
  if (size == 0) return;
  const uint64_t end = address + size < address ? UINT64_MAX : address + size;
  const uint64_t lowest = address > max_region_size_ ? address - max_region_size_ : 0;
  for (auto it = by_address_.lower_bound(lowest); it != by_address_.end() && it->first < end;
       ++it) {
    CodeVersion& version = versions_[it->second];
    if (version.invalidated_ns <= time_ns) continue;
    for (const CodeVersion::Region& region : version.regions) {
      if (region.address == it->first && region.address + region.size > address) {
        version.invalidated_ns = time_ns;
      }
    }
  }
}

size_t CodeHistory::AddVersion(uint64_t method_id, uint64_t address, uint64_t size,
                               uint64_t time_ns) {
  CodeVersion version;
  version.method_id = method_id;
  version.loaded_ns = time_ns;
  version.regions.push_back({address, size, time_ns});
  versions_.push_back(std::move(version));
  by_address_.emplace(address, versions_.size() - 1);
  max_region_size_ = std::max<uint64_t>(max_region_size_, size);
  return versions_.size() - 1;
}

void CodeHistory::Add(const formats::ParsedJitdump& dump) {
  for (const formats::JitdumpRecord& record : dump.records) {
    if (record.kind == formats::JitdumpRecordKind::kCodeMove) {
      EndOverlapping(record.old_code_addr, record.code_size, record.timestamp);
      continue;
    }
    if (record.code_size == 0) continue;
    EndOverlapping(record.code_addr, record.code_size, record.timestamp);
    CodeVersion& version = versions_[AddVersion(record.code_index, record.code_addr,
                                                record.code_size, record.timestamp)];
    version.eh_frame = record.eh_frame;
    version.eh_frame_address = record.EhFrameAddress();
  }
}

void CodeHistory::Add(const formats::ParsedOprofileDump& dump) {
  for (const formats::OprofileDumpRecord& record : dump.records) {
    const uint64_t time = record.timestamp_ns();
    if (const auto* unload = std::get_if<formats::OprofileDumpUnload>(&record.body)) {
      EndOverlapping(unload->vma, 1, time);
    } else if (const auto* load = std::get_if<formats::OprofileDumpCodeLoad>(&record.body)) {
      if (load->code_size == 0) continue;
      EndOverlapping(load->vma, load->code_size, time);
      AddVersion(kNoMethodId, load->vma, load->code_size, time);
    }
  }
}

void CodeHistory::Add(std::span<const trace::Record> records) {
  Add([records](const trace::RecordVisitor& visit) {
    for (const trace::Record& record : records) visit(record);
  });
}

void CodeHistory::Add(const trace::RecordWalk& records) {
  std::unordered_map<uint32_t, size_t> live;  // method id → its version, while it lives
  records([&](const trace::Record& record) {
    const uint64_t time = record.timestamp;
    if (const auto* code = std::get_if<trace::CodeEvent>(&record.event)) {
      if (code->api_event == trace::kEventMethodInlineLoadFinished || code->size == 0) return;
      EndOverlapping(code->address, code->size, time);
      if (code->api_event == trace::kEventMethodUpdate) return;  // the code changed
      auto it = live.find(code->method_id);
      if (it == live.end() || versions_[it->second].invalidated_ns <= time) {
        live.insert_or_assign(code->method_id,
                              AddVersion(code->method_id, code->address, code->size, time));
        return;
      }
      // A further region of a live method: a split function's.
      versions_[it->second].regions.push_back({code->address, code->size, time});
      by_address_.emplace(code->address, it->second);
      max_region_size_ = std::max<uint64_t>(max_region_size_, code->size);
    } else if (const auto* load = std::get_if<trace::OprofileCodeLoadEvent>(&record.event)) {
      if (load->size == 0) return;
      EndOverlapping(load->address, load->size, time);
      AddVersion(kNoMethodId, load->address, load->size, time);
    } else if (const auto* unload = std::get_if<trace::OprofileUnloadEvent>(&record.event)) {
      EndOverlapping(unload->address, std::max<uint32_t>(unload->size, 1), time);
    } else if (const auto* update = std::get_if<trace::RangeUpdateEvent>(&record.event)) {
      EndOverlapping(update->address, update->size, time);
    } else if (const auto* unload = std::get_if<trace::UnloadEvent>(&record.event)) {
      if (auto it = live.find(unload->method_id); it != live.end()) {
        versions_[it->second].invalidated_ns = std::min(versions_[it->second].invalidated_ns, time);
        live.erase(it);
      }
    }
  });
}

void CodeHistory::AddExec(uint64_t time_ns) {
  for (CodeVersion& version : versions_) {
    if (version.loaded_ns < time_ns) {
      version.invalidated_ns = std::min(version.invalidated_ns, time_ns);
    }
  }
}

void CodeHistory::AddCaptured(std::span<const formats::CodeRange> functions,
                              std::span<const formats::CodeRead> reads) {
  std::vector<formats::CodeRange> sorted(functions.begin(), functions.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::vector<const formats::CodeRead*> by_time;
  for (const formats::CodeRead& read : reads) by_time.push_back(&read);
  std::stable_sort(by_time.begin(), by_time.end(),
                   [](const auto* a, const auto* b) { return a->time_ns < b->time_ns; });
  // Each function's reads, in time order.
  std::map<size_t, std::vector<const formats::CodeRead*>> reads_of;  // by index into sorted
  for (const formats::CodeRead* read : by_time) {
    const uint64_t end = read->address + read->bytes.size();
    auto first = std::lower_bound(
        sorted.begin(), sorted.end(), read->address,
        [](const formats::CodeRange& range, uint64_t address) { return range.begin < address; });
    const formats::CodeRange exact{read->address, end};
    const auto same =
        std::lower_bound(first, sorted.end(), exact, [](const auto& a, const auto& b) {
          return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
        });
    if (same != sorted.end() && *same == exact) {
      reads_of[static_cast<size_t>(same - sorted.begin())].push_back(read);
      continue;
    }
    for (auto it = first; it != sorted.end() && it->begin < end; ++it) {
      if (it->end <= end) reads_of[static_cast<size_t>(it - sorted.begin())].push_back(read);
    }
  }
  for (const auto& [index, function_reads] : reads_of) {
    const formats::CodeRange& function = sorted[index];
    const uint64_t size = function.end - function.begin;
    auto bytes_of = [&](const formats::CodeRead* read) {
      return read->bytes.subspan(function.begin - read->address, size);
    };
    // Runs of reads with the same bytes: (first read, last read's time).
    std::vector<std::pair<const formats::CodeRead*, uint64_t>> runs;
    for (const formats::CodeRead* read : function_reads) {
      if (!runs.empty()) {
        const auto before = bytes_of(runs.back().first), now = bytes_of(read);
        if (std::equal(before.begin(), before.end(), now.begin(), now.end())) {
          runs.back().second = read->time_ns;
          continue;
        }
      }
      runs.emplace_back(read, read->time_ns);
    }
    for (size_t i = 0; i < runs.size(); ++i) {
      CodeVersion& version =
          versions_[AddVersion(kNoMethodId, function.begin, size, runs[i].first->time_ns)];
      // The samples a read was made for came before it: a version answers from the read before.
      version.loaded_ns = i == 0 ? 0 : runs[i - 1].second + 1;
      version.invalidated_ns = i + 1 == runs.size() ? UINT64_MAX : runs[i].second + 1;
      version.captured = true;
    }
  }
}

const CodeVersion* CodeHistory::Find(uint64_t address, uint64_t time_ns) const {
  const uint64_t lowest = address >= max_region_size_ ? address - max_region_size_ + 1 : 0;
  const CodeVersion* latest = nullptr;
  auto it = by_address_.upper_bound(address);
  while (it != by_address_.begin()) {
    --it;
    if (it->first < lowest) break;
    const CodeVersion& version = versions_[it->second];
    if (time_ns != kLatest && (time_ns < version.loaded_ns || time_ns >= version.invalidated_ns)) {
      continue;
    }
    for (const CodeVersion::Region& region : version.regions) {
      if (region.address != it->first || address - region.address >= region.size) continue;
      if (time_ns != kLatest) return &version;
      if (latest == nullptr || version.loaded_ns > latest->loaded_ns) latest = &version;
    }
  }
  return latest;
}

}  // namespace jitscope::symbolize
