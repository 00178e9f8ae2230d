// count_allocations.hpp - for tests that prove a path allocates nothing: a
// test binary that links tests/support/count_allocations.cpp counts every
// allocation made through the global operator new.
#pragma once

namespace mfprio::test {

// How many times operator new has run in this process so far.
long allocations();

}  // namespace mfprio::test
