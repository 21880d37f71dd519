// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// `jitscope annotate`'s model: the code versions a session's samples landed in (JIT code and
// native functions; code_locator.h says what a version is), and for a chosen version its
// instructions with the samples whose leaf (innermost frame) is each one, the samples below each
// call instruction, and the source lines and inline chains of each instruction. The samples of
// one version are never counted in another, so a re-JIT never mixes two programs' counts; a
// split function is several regions, so several versions, each shown on its own. The code is
// decoded from the version's start to its end by the one decoder (disasm/decoder.h); bytes that
// do not decode are shown as "(bad)" and skipped one at a time, so the decoding resynchronises.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "jitscope/disasm/decoder.h"
#include "jitscope/report/code_locator.h"
#include "jitscope/walk/sample_walker.h"

namespace jitscope::report {

// Gathers the versions samples landed in: each sample counts for the version its leaf
// (innermost frame) is in, and for every version a return address of its stack is in, at that
// call site (once per sample however often recursion repeats it).
class VersionCollector {
 public:
  explicit VersionCollector(CodeLocator& locator) : locator_(locator) {}
  // One sample of process `pid` taken at `time_ns`: its stack, leaf first (SampleWalker).
  void Add(uint32_t pid, uint64_t time_ns, std::span<const walk::StackAddress> stack);
  // The versions, heaviest (by leaf samples) first; ties: lowest pid, then address, then load.
  std::vector<SampledVersion> Take() &&;

 private:
  SampledVersion* VersionAt(uint32_t pid, uint64_t address, uint64_t time_ns);

  CodeLocator& locator_;
  std::map<VersionKey, SampledVersion> versions_;
  std::vector<std::pair<SampledVersion*, uint64_t>> calls_;  // one sample's call sites
};

struct AnnotatedInstruction {
  uint64_t offset = 0;  // from the version's start
  uint32_t length = 0;
  std::vector<uint8_t> bytes;
  std::string text;  // "(bad)" for bytes that do not decode; "" for bytes not recorded
  bool bad = false;
  bool recorded = true;  // false: no file held these bytes
  uint64_t samples = 0;
  // A call instruction: the samples with its return address in their stack (inclusive).
  uint64_t inclusive = 0;
  std::optional<uint64_t> target_offset;  // a direct branch to an offset inside the version
  std::vector<SourceFrame> source;        // innermost first; empty when no line is known
};

struct Annotation {
  SampledVersion version;
  std::vector<AnnotatedInstruction> instructions;
  bool code_recorded = false;  // some byte of the version's code was recorded
  uint64_t shown_bytes = 0;    // how much of the version is disassembled (1 MiB at most)
};

// What an instruction shows: its text, "(bad) 0f 0b" for bytes that do not decode, or
// "(code not recorded: N bytes)".
std::string InstructionText(const AnnotatedInstruction& instruction);

// The source files of a version's instructions and how the headings between its instructions
// name them: by base name ("hotspot.jv:37"), or by the whole path where two of its files share
// one. The version's header gives the whole path of each file it shortens, once.
class SourceNames {
 public:
  explicit SourceNames(const Annotation& annotation);
  // An instruction's source as one line: the innermost frame's place and function, then, for an
  // inlined frame, what it was inlined into, outwards ("sq.jv:3  sq, inlined into series at
  // hotspot.jv:37"); "(no source)" when none is known.
  std::string Heading(const std::vector<SourceFrame>& source) const;
  // The whole paths, in the order the instructions first name them.
  const std::vector<std::string>& files() const { return files_; }
  // What the headings call `file`.
  const std::string& Shown(const std::string& file) const;

 private:
  std::string Place(const SourceFrame& frame) const;
  std::vector<std::string> files_;
  std::map<std::string, std::string> shown_;  // path → what a heading says
};

Annotation Annotate(const SampledVersion& version, CodeLocator& locator,
                    const disasm::Decoder& decoder, disasm::Syntax syntax);

// The versions `selector` names: a function name (every version of it; when no name is exactly
// it, every name that holds it as a word, such as "mixHot" in V8's "JS:*mixHot /app.js:4:16"),
// "#ID" (a method id), or "0xADDR" (every version whose code held that address). Empty when none
// does.
std::vector<const SampledVersion*> SelectVersions(const std::vector<SampledVersion>& versions,
                                                  const std::string& selector);

struct AnnotateOutputOptions {
  bool by_line = false;            // --sort line: per source line instead of per instruction
  uint64_t total_samples = 0;      // every sample of the session, for a version's share
  uint64_t start_time_ns = 0;      // the session's first sample: times are shown from it
  std::string command;             // what was recorded, for the title ("" when unknown)
  std::vector<std::string> notes;  // what the selection said (ambiguous names, ...), shown first
  bool color = false;              // text: hot instructions in bold red (for a terminal)
};

// "series (jitvm-optimized), method #1011, pid 13239": what a version's annotation is headed by.
std::string VersionTitle(const SampledVersion& version);

// The lines under a version's title (without the text format's "## "): where its code is and
// when it was valid, its samples, what of it could not be shown, and its source files.
std::vector<std::string> AnnotationHeader(const Annotation& annotation,
                                          const AnnotateOutputOptions& options);

// Fits 100 columns, names and instruction text cut with "..." if they must be.
std::string RenderAnnotationText(const std::vector<Annotation>& annotations,
                                 const AnnotateOutputOptions& options);
std::string RenderAnnotationJson(const std::vector<Annotation>& annotations,
                                 const AnnotateOutputOptions& options);

// The sentence about sampling skid both formats carry.
extern const char kSkidNote[];

}  // namespace jitscope::report
