// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Test support: a whole file as a string, and a string as a whole file; the names in a directory;
// the perf maps an engine left in /tmp.
#pragma once

#include <set>
#include <string>

namespace jitscope::test_support {

// The bytes of the file at `path`; "" if it cannot be read (a test compares the content, so a
// missing file fails there).
std::string ReadFile(const std::string& path);

// Replaces the file at `path` with `content`; false if it cannot be written.
bool WriteFile(const std::string& path, const std::string& content);

// The names of the entries in the directory `dir` (not "." and ".."); none if it cannot be read.
std::set<std::string> ListDirectory(const std::string& dir);

// Removes from /tmp the perf maps (perf-PID.map) of which the session `dir` keeps a copy
// (files/tmp/perf-PID.map): an engine recorded with one leaves it there.
void RemovePerfMapsKeptIn(const std::string& dir);

}  // namespace jitscope::test_support
