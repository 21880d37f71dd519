// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/report/annotate.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "jitscope/report/utf8.h"

namespace jitscope::report {

const char kSkidNote[] =
    "samples land on the instruction after the one that was slow (skid): with cpu-clock, the "
    "interrupt is taken once the slow instruction retires, so read a hot instruction as \"the "
    "one before it is slow\" (see docs/annotate.md)";

namespace {

// An instruction is marked hot from this share of its version's samples on.
constexpr double kHotShare = 0.05;
// The most of one version that is disassembled: a region's size is what the engine said, and a
// lying one must not make annotation read and print gigabytes.
constexpr uint64_t kMaxShownBytes = uint64_t{1} << 20;
constexpr size_t kLineWidth = 100;

std::string Share(uint64_t part, uint64_t whole) {
  if (part == 0 || whole == 0) return "";
  return fmt::format("{:.1f}%", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

std::string Hex(std::span<const uint8_t> bytes) {
  std::string out;
  for (uint8_t b : bytes) out += fmt::format("{}{:02x}", out.empty() ? "" : " ", b);
  return out;
}

std::string Seconds(uint64_t time_ns, uint64_t origin_ns) {
  const double seconds = time_ns >= origin_ns ? static_cast<double>(time_ns - origin_ns) / 1e9
                                              : -static_cast<double>(origin_ns - time_ns) / 1e9;
  return fmt::format("{:+.3f} s", seconds);
}

std::string Interval(const SampledVersion& v, uint64_t origin_ns) {
  if (v.native) return "mapped at " + Seconds(v.loaded_ns, origin_ns);
  std::string out = "loaded at " + Seconds(v.loaded_ns, origin_ns);
  if (v.invalidated_ns == symbolize::kForever) return out + ", never replaced";
  return out + ", replaced or unloaded at " + Seconds(v.invalidated_ns, origin_ns);
}

// Per source line of a version (its instructions' innermost frames), in order of samples.
struct LineTotal {
  std::vector<SourceFrame> source;
  uint64_t samples = 0;
  size_t first = 0;
};

std::vector<LineTotal> LineTotals(const Annotation& annotation) {
  std::vector<LineTotal> totals;
  for (size_t i = 0; i < annotation.instructions.size(); ++i) {
    const AnnotatedInstruction& instruction = annotation.instructions[i];
    auto it = std::find_if(totals.begin(), totals.end(),
                           [&](const LineTotal& t) { return t.source == instruction.source; });
    if (it == totals.end()) it = totals.insert(totals.end(), LineTotal{instruction.source, 0, i});
    it->samples += instruction.samples;
  }
  std::stable_sort(totals.begin(), totals.end(),
                   [](const LineTotal& a, const LineTotal& b) { return a.samples > b.samples; });
  return totals;
}

void RenderInstructions(const Annotation& a, uint64_t total_samples, bool color, std::string& out) {
  const SampledVersion& v = a.version;
  const SourceNames names(a);
  const size_t address_width = fmt::format("{:x}", v.start + v.size).size();
  out +=
      fmt::format("#   Share  Samples    Offset  {:<{}}  Instruction\n", "Address", address_width);
  const std::vector<SourceFrame>* previous = nullptr;
  for (const AnnotatedInstruction& in : a.instructions) {
    if (previous == nullptr || *previous != in.source) {
      out += FitToWidth(fmt::format("{:28}{}", "", names.Heading(in.source)), kLineWidth) + "\n";
      previous = &in.source;
    }
    const bool hot = in.samples > 0 &&
                     static_cast<double>(in.samples) >= kHotShare * static_cast<double>(v.samples);
    std::string line = fmt::format(
        "{} {:>6} {:>8} {:>9}  {:>{}x}  ", hot ? '*' : ' ', Share(in.samples, v.samples),
        in.samples == 0 ? "" : fmt::format("{}", in.samples), fmt::format("+{:#x}", in.offset),
        v.start + in.offset, address_width);
    line += InstructionText(in);
    line = FitToWidth(line, kLineWidth);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    if (hot && color) line = "\033[1;31m" + line + "\033[0m";
    out += line + "\n";
    if (in.inclusive > 0) {
      out +=
          fmt::format("{:28}^ {} sample{} ({} of the session) below this call\n", "", in.inclusive,
                      in.inclusive == 1 ? "" : "s", Share(in.inclusive, total_samples));
    }
  }
}

void RenderLines(const Annotation& a, std::string& out) {
  const SourceNames names(a);
  out += "#   Share  Samples  Source\n";
  for (const LineTotal& total : LineTotals(a)) {
    std::string line = fmt::format("  {:>6} {:>8}  {}", Share(total.samples, a.version.samples),
                                   total.samples == 0 ? "" : fmt::format("{}", total.samples),
                                   names.Heading(total.source));
    out += FitToWidth(line, kLineWidth) + "\n";
  }
}

// "<name>" or "<name+0x10>" for code at `address` that no branch inside the version reaches, as
// objdump names a call's target; "" when no function is known there.
std::string TargetName(CodeLocator& locator, const SampledVersion& from, uint64_t address) {
  const uint64_t time = std::max(from.loaded_ns, from.last_seen_ns);
  if (!locator.Locate(from.pid, address, time)) return "";
  const SampledVersion target = locator.Describe(from.pid, address, time);
  if (target.name.empty()) return "";
  return address == target.start ? fmt::format("<{}>", target.name)
                                 : fmt::format("<{}+{:#x}>", target.name, address - target.start);
}

}  // namespace

std::string InstructionText(const AnnotatedInstruction& in) {
  if (!in.recorded) {
    return fmt::format("(code not recorded: {} byte{})", in.length, in.length == 1 ? "" : "s");
  }
  if (in.bad) return "(bad) " + Hex(in.bytes);
  return in.text;
}

SourceNames::SourceNames(const Annotation& annotation) {
  std::map<std::string, std::set<std::string>> by_base;  // base name → paths
  for (const AnnotatedInstruction& in : annotation.instructions) {
    for (const SourceFrame& frame : in.source) {
      if (frame.file.empty() || shown_.contains(frame.file)) continue;
      shown_.emplace(frame.file, "");
      files_.push_back(frame.file);
      by_base[frame.file.substr(frame.file.rfind('/') + 1)].insert(frame.file);
    }
  }
  for (auto& [path, shown] : shown_) {
    const std::string base = path.substr(path.rfind('/') + 1);
    shown = by_base[base].size() > 1 ? path : base;
  }
}

const std::string& SourceNames::Shown(const std::string& file) const {
  auto it = shown_.find(file);
  return it == shown_.end() ? file : it->second;
}

std::string SourceNames::Place(const SourceFrame& frame) const {
  if (frame.file.empty()) return "";
  const std::string& file = Shown(frame.file);
  return frame.line == 0 ? file : fmt::format("{}:{}", file, frame.line);
}

std::string SourceNames::Heading(const std::vector<SourceFrame>& source) const {
  if (source.empty()) return "(no source)";
  std::string out;
  for (size_t i = 0; i < source.size(); ++i) {
    const SourceFrame& frame = source[i];
    std::string place = Place(frame);
    if (i == 0) {
      out = place.empty() ? frame.function + " (no line)" : place + "  " + frame.function;
    } else {
      out += ", inlined into " + frame.function + (place.empty() ? "" : " at " + place);
    }
    if (!frame.inlined) break;
  }
  return out;
}

std::string VersionTitle(const SampledVersion& v) {
  std::string title = v.name;
  if (!v.module.empty()) title += fmt::format(" ({})", v.module);
  if (v.method_id) title += fmt::format(", method #{}", *v.method_id);
  return title + fmt::format(", pid {}", v.pid);
}

std::vector<std::string> AnnotationHeader(const Annotation& a,
                                          const AnnotateOutputOptions& options) {
  const SampledVersion& v = a.version;
  std::vector<std::string> lines;
  lines.push_back(fmt::format("{}code 0x{:x}, {} bytes{}, {}", v.native ? "native " : "", v.start,
                              v.size,
                              v.native ? fmt::format(" at file offset {:#x}", v.file_offset) : "",
                              Interval(v, options.start_time_ns)));
  if (v.samples == 0) {
    lines.push_back("0 samples on its own instructions");
  } else {
    lines.push_back(fmt::format("{} samples, {} of the session", v.samples,
                                Share(v.samples, options.total_samples)));
  }
  if (a.shown_bytes < v.size) {
    lines.push_back(fmt::format("only its first {} bytes are shown", a.shown_bytes));
  }
  if (!a.code_recorded && v.native) {
    lines.push_back("its code could not be read from its file: samples by offset only");
  } else if (!a.code_recorded) {
    lines.push_back(
        "its code bytes were not recorded (a perf map, or JITSCOPE_CODE_BYTES=0): samples by "
        "offset only");
  }
  // The whole path of each file the headings name by less of it.
  const SourceNames names(a);
  for (const std::string& file : names.files()) {
    if (names.Shown(file) != file) lines.push_back("source: " + file);
  }
  return lines;
}

SampledVersion* VersionCollector::VersionAt(uint32_t pid, uint64_t address, uint64_t time_ns) {
  const std::optional<VersionKey> key = locator_.Locate(pid, address, time_ns);
  if (!key) return nullptr;
  auto it = versions_.find(*key);
  if (it == versions_.end()) {
    it = versions_.emplace(*key, locator_.Describe(pid, address, time_ns)).first;
  }
  return &it->second;
}

void VersionCollector::Add(uint32_t pid, uint64_t time_ns,
                           std::span<const walk::StackAddress> stack) {
  calls_.clear();
  for (size_t i = 0; i < stack.size(); ++i) {
    const walk::StackAddress& address = stack[i];
    if (address.kernel) continue;
    if (i == 0) {
      if (SampledVersion* version = VersionAt(pid, address.pc, time_ns)) {
        ++version->samples;
        ++version->samples_at[address.pc];
        version->last_seen_ns = time_ns;
      }
    } else if (address.returns) {
      if (SampledVersion* version = VersionAt(pid, address.Lookup(), time_ns)) {
        calls_.emplace_back(version, address.pc);
        version->last_seen_ns = time_ns;
      }
    }
  }
  std::sort(calls_.begin(), calls_.end());
  calls_.erase(std::unique(calls_.begin(), calls_.end()), calls_.end());
  for (const auto& [version, pc] : calls_) ++version->calls_at[pc];
}

std::vector<SampledVersion> VersionCollector::Take() && {
  std::vector<SampledVersion> sorted;
  for (auto& [key, version] : versions_) sorted.push_back(std::move(version));
  std::stable_sort(
      sorted.begin(), sorted.end(),
      [](const SampledVersion& a, const SampledVersion& b) { return a.samples > b.samples; });
  return sorted;
}

Annotation Annotate(const SampledVersion& version, CodeLocator& locator,
                    const disasm::Decoder& decoder, disasm::Syntax syntax) {
  Annotation annotation;
  annotation.version = version;
  const uint64_t shown = std::min(version.size, kMaxShownBytes);
  annotation.shown_bytes = shown;
  const symbolize::CodeBytes bytes = locator.Code(version, shown);
  annotation.code_recorded =
      std::find(bytes.known.begin(), bytes.known.end(), true) != bytes.known.end();
  std::vector<AnnotatedInstruction>& out = annotation.instructions;
  // Where the run of recorded (or of unrecorded) bytes that holds `offset` ends: found once per
  // run, not once per instruction, which made a large function's annotation quadratic.
  uint64_t run_end = 0;
  for (uint64_t offset = 0; offset < shown;) {
    AnnotatedInstruction& in = out.emplace_back();
    in.offset = offset;
    if (offset >= run_end) {
      run_end = offset;
      while (run_end < shown && bytes.known[run_end] == bytes.known[offset]) ++run_end;
    }
    uint64_t end = run_end;
    if (!bytes.known[offset]) {
      // Bytes no file recorded: nothing to decode there. A row ends where the next sampled
      // address starts, so the samples still show by offset.
      in.recorded = false;
      auto next = version.samples_at.upper_bound(version.start + offset);
      if (next != version.samples_at.end() && next->first - version.start < end) {
        end = next->first - version.start;
      }
      in.length = static_cast<uint32_t>(end - offset);
    } else if (auto decoded = decoder.Decode(std::span(bytes.bytes).subspan(offset, end - offset),
                                             version.start + offset)) {
      in.length = decoded->length;
      in.text = decoder.Format(*decoded, syntax);
      if (auto target = decoded->BranchTarget();
          target && *target >= version.start && *target - version.start < version.size) {
        in.target_offset = *target - version.start;
        // The absolute target the text shows becomes the offset the Offset column shows.
        const std::string absolute = fmt::format("{:#x}", *target);
        if (const size_t at = in.text.rfind(absolute); at != std::string::npos) {
          in.text.replace(at, absolute.size(), fmt::format("<+{:#x}>", *in.target_offset));
        }
      } else if (target) {
        // Code elsewhere (another function, a stub, the version's cold region): named as
        // objdump names it, after the address.
        if (std::string name = TargetName(locator, version, *target); !name.empty()) {
          in.text += " " + name;
        }
      }
    } else {
      // Not an instruction (data, a patched or cut-short one): one byte, then decode again.
      in.bad = true;
      in.length = 1;
    }
    if (in.recorded) {
      const auto first = bytes.bytes.begin() + static_cast<ptrdiff_t>(offset);
      in.bytes.assign(first, first + in.length);
    }
    offset += in.length;
  }
  // Each sample goes to the instruction that holds its address; a call site's samples to the
  // call, the instruction that holds the byte before its return address.
  auto instruction_at = [&](uint64_t address) -> AnnotatedInstruction* {
    const uint64_t offset = address - version.start;
    if (address < version.start || offset >= shown) return nullptr;
    auto it =
        std::upper_bound(out.begin(), out.end(), offset,
                         [](uint64_t o, const AnnotatedInstruction& in) { return o < in.offset; });
    return it == out.begin() ? nullptr : &*std::prev(it);
  };
  for (const auto& [address, count] : version.samples_at) {
    if (AnnotatedInstruction* in = instruction_at(address)) in->samples += count;
  }
  for (const auto& [address, count] : version.calls_at) {
    if (AnnotatedInstruction* in = instruction_at(address - 1)) in->inclusive += count;
  }
  for (AnnotatedInstruction& in : out)
    in.source = locator.SourceAt(version, version.start + in.offset);
  return annotation;
}

namespace {

bool IsIdentifierChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '$';
}

// Whether `word` is in `name` with no identifier character on either side: "mixHot" in V8's
// "JS:*mixHot /app.js:4:16", "Run" in "jitscope::jitvm::Vm::Run(std::span<...>)".
bool ContainsWord(std::string_view name, std::string_view word) {
  if (word.empty()) return false;
  for (size_t at = name.find(word); at != std::string_view::npos; at = name.find(word, at + 1)) {
    const size_t end = at + word.size();
    if ((at == 0 || !IsIdentifierChar(name[at - 1])) &&
        (end == name.size() || !IsIdentifierChar(name[end]))) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::vector<const SampledVersion*> SelectVersions(const std::vector<SampledVersion>& versions,
                                                  const std::string& selector) {
  std::vector<const SampledVersion*> chosen;
  std::optional<uint64_t> number;
  const bool by_id = selector.starts_with("#");
  const bool by_address = selector.starts_with("0x") || selector.starts_with("0X");
  if (by_id || by_address) {
    const std::string digits = selector.substr(by_id ? 1 : 2);
    if (!digits.empty() && digits.size() <= 16 &&
        digits.find_first_not_of(by_id ? "0123456789" : "0123456789abcdefABCDEF") ==
            std::string::npos) {
      number = std::stoull(digits, nullptr, by_id ? 10 : 16);
    }
    for (const SampledVersion& v : versions) {
      const bool match = by_id ? number && v.method_id == number
                               : number && *number >= v.start && *number - v.start < v.size;
      if (match) chosen.push_back(&v);
    }
    return chosen;
  }
  // A whole name; failing that, a name that holds the selector as a word.
  for (const SampledVersion& v : versions) {
    if (v.name == selector) chosen.push_back(&v);
  }
  if (!chosen.empty()) return chosen;
  for (const SampledVersion& v : versions) {
    if (ContainsWord(v.name, selector)) chosen.push_back(&v);
  }
  return chosen;
}

std::string RenderAnnotationText(const std::vector<Annotation>& annotations,
                                 const AnnotateOutputOptions& options) {
  std::string out;
  if (!options.command.empty())
    out += FitToWidth("# jitscope annotate: " + options.command, kLineWidth) + "\n";
  out += fmt::format(
      "# {} samples in the session; an instruction's are those taken on it (the "
      "leaf of their stack)\n",
      options.total_samples);
  // The skid note, wrapped to the width.
  std::string note = std::string("# note: ") + kSkidNote;
  while (note.size() > kLineWidth) {
    size_t cut = note.rfind(' ', kLineWidth);
    out += note.substr(0, cut) + "\n";
    note = "#   " + note.substr(cut + 1);
  }
  out += note + "\n";
  out += fmt::format("# '*': an instruction with {:.0f}% or more of its version's samples\n",
                     kHotShare * 100);
  for (const std::string& line : options.notes) out += FitToWidth("# " + line, kLineWidth) + "\n";
  for (const Annotation& a : annotations) {
    const SampledVersion& v = a.version;
    out += "\n";
    out += FitToWidth("## " + VersionTitle(v), kLineWidth) + "\n";
    for (const std::string& line : AnnotationHeader(a, options)) out += "## " + line + "\n";
    if (options.by_line) {
      RenderLines(a, out);
    } else {
      RenderInstructions(a, options.total_samples, options.color, out);
    }
  }
  return out;
}

std::string RenderAnnotationJson(const std::vector<Annotation>& annotations,
                                 const AnnotateOutputOptions& options) {
  using json = nlohmann::ordered_json;
  auto source_json = [](const std::vector<SourceFrame>& source) {
    json frames = json::array();
    for (const SourceFrame& f : source) {
      frames.push_back(
          {{"function", f.function}, {"file", f.file}, {"line", f.line}, {"inlined", f.inlined}});
    }
    return frames;
  };
  json versions = json::array();
  for (const Annotation& a : annotations) {
    const SampledVersion& v = a.version;
    json instructions = json::array();
    for (const AnnotatedInstruction& in : a.instructions) {
      instructions.push_back(
          {{"offset", in.offset},
           {"address", v.start + in.offset},
           {"length", in.length},
           {"bytes", Hex(in.bytes)},
           {"text", in.bad ? "(bad)" : in.text},
           {"recorded", in.recorded},
           {"samples", in.samples},
           {"inclusive_samples", in.inclusive},
           {"target_offset", in.target_offset ? json(*in.target_offset) : json(nullptr)},
           {"source", source_json(in.source)}});
    }
    json lines = json::array();
    for (const LineTotal& total : LineTotals(a)) {
      lines.push_back({{"samples", total.samples}, {"source", source_json(total.source)}});
    }
    versions.push_back(
        {{"pid", v.pid},
         {"native", v.native},
         {"name", v.name},
         {"method_id", v.method_id ? json(*v.method_id) : json(nullptr)},
         {"module", v.module},
         {"file_offset", v.native ? json(v.file_offset) : json(nullptr)},
         {"start", v.start},
         {"size", v.size},
         {"loaded_ns", v.loaded_ns},
         {"invalidated_ns",
          v.invalidated_ns == symbolize::kForever ? json(nullptr) : json(v.invalidated_ns)},
         {"samples", v.samples},
         {"code_recorded", a.code_recorded},
         {"instructions", std::move(instructions)},
         {"lines", std::move(lines)}});
  }
  json root = {{"command", options.command},
               {"total_samples", options.total_samples},
               {"note", kSkidNote},
               {"notes", options.notes},
               {"versions", std::move(versions)}};
  return root.dump(2) + "\n";
}

}  // namespace jitscope::report
