// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Errors as values. C++20 has no std::expected, so library code returns Status or StatusOr<T>
// (modelled on Perfetto's status_or.h): a Status is OK or carries one human-readable message
// with context; a StatusOr<T> holds a value or a non-OK status — an OK status without a value
// is a programming error. Exceptions never cross these APIs.
#pragma once

#include <cassert>
#include <cstdarg>
#include <optional>
#include <string>
#include <utility>

namespace jitscope::base {

class Status {
 public:
  Status() = default;  // OK

  static Status Ok() { return Status(); }
  [[gnu::format(printf, 1, 2)]] static Status Error(const char* format, ...);
  // An error caused by a failed system call: the message gets ": <strerror(error)>" appended
  // and the errno value is kept for callers that branch on it (e.g. EEXIST).
  [[gnu::format(printf, 2, 3)]] static Status Errno(int error, const char* format, ...);

  bool ok() const { return !error_.has_value(); }
  const std::string& message() const { return error_ ? *error_ : EmptyMessage(); }
  int errno_value() const { return errno_value_; }  // 0 unless made by Errno()
  // The same error, its message preceded by "`context`: " (the errno value kept).
  Status WithContext(const std::string& context) const;

 private:
  static std::string Format(const char* format, va_list args);
  static const std::string& EmptyMessage();

  std::optional<std::string> error_;
  int errno_value_ = 0;
};

template <typename T>
class StatusOr {
 public:
  StatusOr(T value) : value_(std::move(value)) {}         // NOLINT: implicit by design
  StatusOr(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    assert(!status_.ok() && "StatusOr constructed from an OK status without a value");
    if (status_.ok()) status_ = Status::Error("internal error: OK status without a value");
  }

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace jitscope::base

#define JITSCOPE_CONCAT_INNER(a, b) a##b
#define JITSCOPE_CONCAT(a, b) JITSCOPE_CONCAT_INNER(a, b)

// Returns the status of `expr` from the enclosing function if it is not OK. `expr` is evaluated
// exactly once.
#define RETURN_IF_ERROR(expr)                            \
  do {                                                   \
    ::jitscope::base::Status jitscope_status_ = (expr);  \
    if (!jitscope_status_.ok()) return jitscope_status_; \
  } while (0)

// `ASSIGN_OR_RETURN(lhs, expr)`: evaluates `expr` (a StatusOr) once; returns its status if not
// OK, otherwise moves the value into `lhs` (which may be a declaration such as `auto x`).
#define ASSIGN_OR_RETURN(lhs, expr) \
  JITSCOPE_ASSIGN_OR_RETURN_IMPL(JITSCOPE_CONCAT(jitscope_status_or_, __LINE__), lhs, expr)
#define JITSCOPE_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                   \
  if (!tmp.ok()) return tmp.status();                  \
  lhs = std::move(tmp).value()
