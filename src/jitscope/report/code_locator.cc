// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/report/code_locator.h"

#include <fmt/format.h>

namespace jitscope::report {

std::optional<CodeLocator::NativeHit> CodeLocator::FindNative(uint32_t pid, uint64_t address,
                                                              uint64_t time_ns) {
  if (maps_ == nullptr || native_ == nullptr) return std::nullopt;
  const session::Mapping* mapping = maps_->Find(pid, address, time_ns);
  if (mapping == nullptr || !mapping->filename.starts_with("/") ||
      walk::IsAnonymousMemory(mapping->filename)) {
    return std::nullopt;
  }
  const std::string* file = files_ != nullptr ? files_->FileOf(*mapping) : &mapping->filename;
  if (file == nullptr) return std::nullopt;
  const std::optional<NativeSymbolizer::Function> function =
      native_->FunctionAt(*file, address - mapping->start + mapping->file_offset);
  // A function that starts before this mapping of its file is not all in this mapping.
  if (!function || function->file_offset < mapping->file_offset) return std::nullopt;
  return NativeHit{mapping, file, *function,
                   mapping->start + function->file_offset - mapping->file_offset};
}

std::optional<VersionKey> CodeLocator::Locate(uint32_t pid, uint64_t address, uint64_t time_ns) {
  if (index_of_(pid).Resolve(address, JitTime(time_ns), resolution_)) {
    return VersionKey{pid, false, resolution_.region.start, resolution_.region.loaded};
  }
  const std::optional<NativeHit> hit = FindNative(pid, address, time_ns);
  if (!hit) return std::nullopt;
  return VersionKey{pid, true, hit->start, hit->mapping->time_ns};
}

SampledVersion CodeLocator::Describe(uint32_t pid, uint64_t address, uint64_t time_ns) {
  SampledVersion version;
  version.pid = pid;
  if (index_of_(pid).Resolve(address, JitTime(time_ns), resolution_)) {
    const symbolize::MatchedRegion& region = resolution_.region;
    // Frames are innermost first: the last one is the function that holds the code.
    const symbolize::Frame& top = resolution_.frames.back();
    version.name =
        top.name.empty() ? fmt::format("[jit 0x{:x}]", region.start) : std::string(top.name);
    version.method_id = top.method_id;
    version.module = std::string(top.module);
    version.start = region.start;
    version.size = region.size;
    version.loaded_ns = region.loaded;
    version.invalidated_ns = region.invalidated;
    return version;
  }
  if (const std::optional<NativeHit> hit = FindNative(pid, address, time_ns)) {
    version.native = true;
    version.name = Demangle(hit->function.symbol);
    version.module = hit->mapping->filename;
    version.file = *hit->file;
    version.file_offset = hit->function.file_offset;
    version.start = hit->start;
    version.size = hit->function.size;
    version.loaded_ns = hit->mapping->time_ns;
  }
  return version;
}

symbolize::CodeBytes CodeLocator::Code(const SampledVersion& version, uint64_t size) {
  if (!version.native) return code_of_(version.pid).Read(version.start, size, version.loaded_ns);
  symbolize::CodeBytes code;
  if (native_ != nullptr) code.bytes = native_->ReadBytes(version.file, version.file_offset, size);
  code.known.assign(code.bytes.size(), true);
  code.bytes.resize(size);
  code.known.resize(size, false);
  return code;
}

std::vector<SourceFrame> CodeLocator::SourceAt(const SampledVersion& version, uint64_t address) {
  std::vector<SourceFrame> source;
  if (!version.native) {
    if (!index_of_(version.pid).Resolve(address, version.loaded_ns, resolution_)) return source;
    for (const symbolize::Frame& frame : resolution_.frames) {
      source.push_back(
          {std::string(frame.name), std::string(frame.file), frame.line, frame.inlined});
    }
    return source;
  }
  if (native_ == nullptr) return source;
  for (const Location& location :
       native_->Symbolize(version.file, version.file_offset + (address - version.start))) {
    source.push_back({location.function, location.file, location.line, location.inlined});
  }
  return source;
}

}  // namespace jitscope::report
