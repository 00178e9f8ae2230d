// release.hpp - frees a container's storage now.  `v = {}` does not: it
// assigns an empty initializer list and keeps the capacity; `v.clear()`
// keeps it too.  The load and the pass free their scratch this way before
// the next big allocation, so the process's peak is what is alive.
#pragma once

namespace mfprio {

template <class Container>
void release(Container& c) {
  Container().swap(c);
}

}  // namespace mfprio
