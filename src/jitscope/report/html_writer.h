// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// `jitscope report --format html`: one self-contained HTML file a person explores in a browser —
// the profile's data and the page's code inline, nothing fetched (its Content-Security-Policy
// forbids it), no server. The page (html/page.{html,css,js}, plain JavaScript, compiled in as
// text by cmake/embed_text.cmake) draws a flame graph or icicle, the call tree, the callers and
// callees of a function, the annotated code of the hottest versions, and a timeline of the
// samples per thread whose time range selects what every other view counts.
//
// What the page is given (the JSON in its #profile-data element): the frames (one per Location,
// with its label, colour and kind as the SVG flame graph shows them, and its JIT version), the
// tree of the distinct stacks (node 0 the root; a node's parent comes before it), and per thread
// its samples on a CPU as (time, node) pairs, times in microseconds since the recording began (the
// timeline's start, else the first sample), each
// a difference from the one before; from the Timeline (timeline.h), per thread its periods off
// the CPU (with the node of the off-CPU sample the report kept: its time is written there alone),
// ITT slices and markers, and the ITT counters. Counts are not stored: the page sums the samples
// of its selection, so a million samples cost a few bytes each and nothing is counted twice. The
// profile must be built with BuildOptions::sample_times (and jit_versions, for versions).
#pragma once

#include <string>
#include <vector>

#include "jitscope/report/annotate.h"
#include "jitscope/report/profile.h"
#include "jitscope/report/profile_diff.h"

namespace jitscope::report {

// The code the page's Code view shows: annotations of versions the samples ran, and a sentence
// on which versions they are.
struct HtmlCode {
  std::vector<Annotation> annotations;
  std::string note;
  AnnotateOutputOptions output;  // the session's total and start time, for shares and times
};

std::string RenderHtml(const Profile& profile, const HtmlCode& code);

// The difference of two runs (profile_diff.h): the same page over the matched functions' stacks,
// its flame graph as wide as the new run's samples and coloured by the change of each box's
// share (red grown, blue shrunk), and a table of the changes by function. Two whole runs have no
// time range to select: no timeline, and no code.
std::string RenderHtmlDiff(const ProfileDiff& diff);

// The pieces RenderHtml and the difference of two runs share: the page with `title` and the
// JSON object `data` inlined. `data` is made safe to sit inside a <script> element here.
std::string HtmlPage(const std::string& title, std::string data);

}  // namespace jitscope::report
