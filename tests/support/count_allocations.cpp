// count_allocations.cpp - replaces the global operator new/delete of the test
// binary that links it (one per binary) with counting versions over malloc.
#include "count_allocations.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<long> g_allocations{0};
}  // namespace

// GCC's -Wmismatched-new-delete misfires on replaced global operators once
// they are inlined: malloc/free are the matching pair here.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void* operator new(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

namespace mfprio::test {

long allocations() { return g_allocations.load(); }

}  // namespace mfprio::test
