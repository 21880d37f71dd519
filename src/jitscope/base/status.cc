// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/base/status.h"

#include <cstdio>
#include <cstring>

namespace jitscope::base {
namespace {
// Namespace scope, not a function-local static: no initialisation guard that a fork() could
// leave locked in a child of the profiled process.
const std::string empty_message;
}  // namespace

const std::string& Status::EmptyMessage() { return empty_message; }

std::string Status::Format(const char* format, va_list args) {
  va_list copy;
  va_copy(copy, args);
  const int length = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  std::string message(length > 0 ? static_cast<size_t>(length) : 0, '\0');
  if (length > 0) std::vsnprintf(message.data(), message.size() + 1, format, args);
  return message.empty() ? std::string("unknown error") : message;
}

Status Status::Error(const char* format, ...) {
  va_list args;
  va_start(args, format);
  Status status;
  status.error_ = Format(format, args);
  va_end(args);
  return status;
}

Status Status::WithContext(const std::string& context) const {
  if (ok()) return *this;
  Status status = *this;
  status.error_ = context + ": " + *error_;
  return status;
}

Status Status::Errno(int error, const char* format, ...) {
  va_list args;
  va_start(args, format);
  Status status;
  status.error_ = Format(format, args) + ": " + std::strerror(error);
  status.errno_value_ = error;
  va_end(args);
  return status;
}

}  // namespace jitscope::base
