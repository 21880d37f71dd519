// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Where print() writes. Output is buffered and written to a FILE* (the CLI passes stdout) in
// large chunks, or kept in memory when there is no file (tests compare it between engines).
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace jitscope::jitvm {

class Output {
 public:
  explicit Output(std::FILE* file = nullptr) : file_(file) {}
  ~Output() { Flush(); }
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;

  void Append(std::string_view text) {
    buffer_.append(text);
    if (file_ != nullptr && buffer_.size() >= kFlushThreshold) Flush();
  }
  void Flush() {
    if (file_ == nullptr || buffer_.empty()) return;
    std::fwrite(buffer_.data(), 1, buffer_.size(), file_);
    std::fflush(file_);
    buffer_.clear();
  }
  // Everything printed so far; only meaningful without a file.
  const std::string& captured() const { return buffer_; }

 private:
  static constexpr size_t kFlushThreshold = 64 * 1024;
  std::FILE* file_;
  std::string buffer_;
};

}  // namespace jitscope::jitvm
