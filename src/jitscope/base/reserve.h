// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Room for more elements in a vector that is reserved for once per input (a file of a chain, a
// batch), not once in all. vector::reserve(size() + n) allocates exactly that, so reserving for
// each of a thousand files copies everything read so far a thousand times; this grows the
// capacity at least twofold, as push_back does. And a vector's memory freed as soon as it is no
// longer needed (Discard).
#pragma once

#include <algorithm>
#include <cstddef>

namespace jitscope::base {

template <typename Vector>
void ReserveMore(Vector& vector, size_t more) {
  const size_t wanted = vector.size() + more;
  if (wanted <= vector.capacity()) return;
  vector.reserve(std::max(wanted, 2 * vector.capacity()));
}

// Frees a vector's memory now. clear() keeps the capacity, and so does `vector = {}`, which
// assigns an empty initializer list.
template <typename Vector>
void Discard(Vector& vector) {
  Vector().swap(vector);
}

}  // namespace jitscope::base
