// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// `jitscope annotate`'s model: the JIT code versions a session's samples landed in, and for a
// chosen version its instructions with the samples whose leaf (innermost frame) is each one,
// beside the source lines and inline chains the engine reported for them.
//
// A version is one region as it was from one load to its end (symbolize/symbol_index.h's
// MatchedRegion): a re-JIT at the same address, a tier change or an update makes another version,
// and the samples of one are never counted in another. A split function is several regions, so
// several versions, each shown on its own. The code is what the files recorded when the version
// was loaded (symbolize/code_store.h), decoded from the region's start to its end by the one
// decoder (disasm/decoder.h); bytes that do not decode are shown as "(bad)" and skipped one at a
// time, so the decoding resynchronises.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "jitscope/disasm/decoder.h"
#include "jitscope/symbolize/code_store.h"
#include "jitscope/symbolize/symbol_index.h"

namespace jitscope::report {

// A sample as annotation needs it: where it was taken, when, in which process.
struct LeafSample {
  uint32_t pid = 0;
  uint64_t ip = 0;
  uint64_t time_ns = 0;
};

struct CodeVersion {
  uint32_t pid = 0;
  std::string name;  // the top-level function's; "[jit 0x...]" when the engine gave none
  std::optional<uint64_t> method_id;
  std::string module;  // "" when none was reported
  uint64_t start = 0;
  uint64_t size = 0;
  uint64_t loaded_ns = 0;
  uint64_t invalidated_ns = symbolize::kForever;
  uint64_t samples = 0;
  std::map<uint64_t, uint64_t> samples_at;  // leaf address → samples
  bool operator==(const CodeVersion&) const = default;
};

// The versions `samples` landed in, heaviest first (ties: lowest pid, then address, then load
// time). `index_of(pid)` gives the symbol index of a process.
using IndexOf = std::function<const symbolize::SymbolIndex&(uint32_t pid)>;
std::vector<CodeVersion> CollectVersions(std::span<const LeafSample> samples,
                                         const IndexOf& index_of);

// One frame of the source an instruction came from.
struct SourceFrame {
  std::string function;
  std::string file;  // "" when unknown
  uint32_t line = 0;
  bool inlined = false;
  bool operator==(const SourceFrame&) const = default;
};

struct AnnotatedInstruction {
  uint64_t offset = 0;  // from the version's start
  uint32_t length = 0;
  std::vector<uint8_t> bytes;
  std::string text;  // "(bad)" for bytes that do not decode; "" for bytes not recorded
  bool bad = false;
  bool recorded = true;  // false: no file held these bytes
  uint64_t samples = 0;
  std::optional<uint64_t> target_offset;  // a direct branch to an offset inside the version
  std::vector<SourceFrame> source;        // innermost first; empty when no line is known
};

struct Annotation {
  CodeVersion version;
  std::vector<AnnotatedInstruction> instructions;
  bool code_recorded = false;  // some byte of the version's code was recorded
  uint64_t shown_bytes = 0;    // how much of the version is disassembled (1 MiB at most)
};

Annotation Annotate(const CodeVersion& version, const symbolize::SymbolIndex& index,
                    const symbolize::CodeStore& code, const disasm::Decoder& decoder,
                    disasm::Syntax syntax);

// The versions `selector` names: a function name (every version of it), "#ID" (a method id),
// or "0xADDR" (every version whose code held that address). Empty when none does.
std::vector<const CodeVersion*> SelectVersions(const std::vector<CodeVersion>& versions,
                                               const std::string& selector);

struct AnnotateOutputOptions {
  bool by_line = false;            // --sort line: per source line instead of per instruction
  uint64_t total_samples = 0;      // every sample of the session, for a version's share
  uint64_t start_time_ns = 0;      // the session's first sample: times are shown from it
  std::string command;             // what was recorded, for the title ("" when unknown)
  std::vector<std::string> notes;  // what the selection said (ambiguous names, ...), shown first
  bool color = false;              // text: hot instructions in bold red (for a terminal)
};

// Fits 100 columns, names and instruction text cut with "..." if they must be.
std::string RenderAnnotationText(const std::vector<Annotation>& annotations,
                                 const AnnotateOutputOptions& options);
std::string RenderAnnotationJson(const std::vector<Annotation>& annotations,
                                 const AnnotateOutputOptions& options);

// The sentence about sampling skid both formats carry.
extern const char kSkidNote[];

}  // namespace jitscope::report
