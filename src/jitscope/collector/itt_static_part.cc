// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/collector/itt_static_part.h"

#include <cstring>
#include <string_view>

namespace jitscope::collector::itt {
namespace {

// The entries of an API list of layout `Info`: how many, once each is checked.
template <typename Info>
base::StatusOr<size_t> CountEntries(const Info* list) {
  for (size_t i = 0; i < kMaxApiEntries; ++i) {
    const Info& entry = list[i];
    if (entry.name == nullptr) return i;
    if (std::strncmp(entry.name, "__itt_", 6) != 0 || entry.func_ptr == nullptr) {
      return base::Status::Error("entry %zu of the ITT API list is not a function's", i);
    }
  }
  return base::Status::Error("the ITT API list has no end within %zu entries", kMaxApiEntries);
}

template <typename Info>
base::StatusOr<Wiring> Wire(const Info* list, std::span<const Implementation> implementations) {
  Wiring wiring;
  ASSIGN_OR_RETURN(wiring.entries, CountEntries(list));
  for (size_t i = 0; i < wiring.entries; ++i) {
    const std::string_view name = list[i].name;
    for (const Implementation& implementation : implementations) {
      if (name != implementation.name) continue;
      *list[i].func_ptr = implementation.function;
      ++wiring.wired;
      break;
    }
  }
  return wiring;
}

}  // namespace

base::StatusOr<Wiring> WireStaticPart(Global* global,
                                      std::span<const Implementation> implementations) {
  if (global == nullptr) return base::Status::Error("no ITT global");
  if (std::memcmp(global->magic, kGlobalMagic, sizeof(kGlobalMagic)) != 0) {
    return base::Status::Error("the ITT global has no ittnotify magic");
  }
  if (global->api_list == nullptr) return base::Status::Error("the ITT global has no API list");
  if (global->version_build <= kLastBuildWithoutNullFunc) {
    ASSIGN_OR_RETURN(
        Wiring wiring,
        Wire(static_cast<const ApiInfoBefore20101001*>(global->api_list), implementations));
    wiring.without_null_func = true;
    return wiring;
  }
  return Wire(static_cast<const ApiInfo*>(global->api_list), implementations);
}

}  // namespace jitscope::collector::itt
