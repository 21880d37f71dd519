// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Where record finds what it puts into other processes: the libraries installed beside the
// running jitscope (<prefix>/bin/jitscope → <prefix>/lib/NAME). The build tree mirrors the install
// prefix (build/bin, build/lib), so a build runs as an installation does.
#pragma once

#include <string>

#include "jitscope/base/status.h"

namespace jitscope::record {

// The absolute, resolved path of <prefix>/<lib_directory>/<file_name>; fails if it is not there,
// naming it `what` ("the collector").
base::StatusOr<std::string> FindInstalledLibrary(const std::string& file_name, const char* what,
                                                 const char* lib_directory = "lib");

}  // namespace jitscope::record
