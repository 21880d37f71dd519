// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Resolves names and checks types in a parsed program, so the interpreter and the JIT tiers can
// trust the tree: every kLocal and kVar/kAssign gets its slot, every call its function index (or
// builtin), every expression its type. The rules:
//  - int and float never mix implicitly: int(x) and float(x) convert.
//  - + - * / work on two ints or two floats; % on ints only; comparisons give int 0 or 1;
//    && || ! take ints. Conditions of if and while are ints (non-zero is true).
//  - Variables are block-scoped, must be declared (var) before use and not redeclared in the
//    same block; `var` takes the type of its initial value.
//  - Calls must match the callee's parameter count and types; functions may be called before
//    their definition. print(int|float) returns 0; sqrt(float) returns float.
//  - `main` must exist, take only int parameters and return int.
#pragma once

#include "ast.h"
#include "jitscope/base/status.h"

namespace jitscope::jitvm {

base::Status Check(Program& program);

// Parses and checks `source`; `path` is what error messages and profilers show.
base::StatusOr<Program> Compile(std::string_view source, const std::string& path);

// Reads, parses and checks the file at `path`. The program's path becomes the absolute path, so
// profilers that show source lines find the file whatever their working directory.
base::StatusOr<Program> LoadProgram(const std::string& path);

}  // namespace jitscope::jitvm
