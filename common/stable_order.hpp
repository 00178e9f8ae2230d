// stable_order.hpp - a stable sort and a stable partition whose scratch
// buffer is a std::vector, used instead of std::stable_sort and
// std::stable_partition everywhere in the tree.
//
// Why not the standard ones: GCC 12's libstdc++ takes their scratch buffer
// with operator new(nothrow) (get_temporary_buffer) and returns it through a
// path that AddressSanitizer reports as free() (alloc-dealloc-mismatch,
// stl_tempbuf.h).  Our code is not at fault, but the only alternative was to
// switch the check off for the whole suite; with these the check stays on.
//
// stable_order(v, less): bottom-up merge sort, O(n log n) comparisons, one
// buffer of n elements; equal elements keep their order.  Small runs are
// insertion-sorted first (runs of 16), which is also the whole sort for the
// short lists most callers have.
#pragma once

#include <algorithm>
#include <iterator>
#include <utility>
#include <vector>

namespace mfprio {

template <typename It, typename Less>
void stable_order(It first, It last, Less less) {
  using T = typename std::iterator_traits<It>::value_type;
  const auto n = static_cast<size_t>(last - first);
  if (n < 2) return;
  constexpr size_t kRun = 16;
  // Insertion sort of each run: a later element moves left only past
  // strictly greater ones, so equal elements keep their order.
  for (size_t lo = 0; lo < n; lo += kRun) {
    const size_t hi = std::min(n, lo + kRun);
    for (size_t i = lo + 1; i < hi; ++i) {
      T x = std::move(first[i]);
      size_t j = i;
      for (; j > lo && less(x, first[j - 1]); --j) first[j] = std::move(first[j - 1]);
      first[j] = std::move(x);
    }
  }
  if (n <= kRun) return;
  std::vector<T> buf(std::make_move_iterator(first), std::make_move_iterator(last));
  // Merge runs of width w from src into dst, doubling w; std::merge takes
  // from the left range on ties, which keeps the sort stable.
  bool in_buf = true;  // the current data is in buf
  for (size_t w = kRun; w < n; w *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * w) {
      const size_t mid = std::min(n, lo + w), hi = std::min(n, lo + 2 * w);
      if (in_buf) {
        std::merge(std::make_move_iterator(buf.begin() + lo), std::make_move_iterator(buf.begin() + mid),
                   std::make_move_iterator(buf.begin() + mid), std::make_move_iterator(buf.begin() + hi),
                   first + lo, less);
      } else {
        std::merge(std::make_move_iterator(first + lo), std::make_move_iterator(first + mid),
                   std::make_move_iterator(first + mid), std::make_move_iterator(first + hi),
                   buf.begin() + lo, less);
      }
    }
    in_buf = !in_buf;
  }
  if (in_buf) std::move(buf.begin(), buf.end(), first);
}

template <typename Container, typename Less>
void stable_order(Container& c, Less less) {
  stable_order(std::begin(c), std::end(c), less);
}

// Moves the elements satisfying pred before the others, both groups in their
// original order; returns the first element of the second group.
template <typename It, typename Pred>
It stable_split(It first, It last, Pred pred) {
  using T = typename std::iterator_traits<It>::value_type;
  std::vector<T> rest;
  It out = first;
  for (It it = first; it != last; ++it) {
    if (pred(*it)) {
      if (out != it) *out = std::move(*it);
      ++out;
    } else {
      rest.push_back(std::move(*it));
    }
  }
  std::move(rest.begin(), rest.end(), out);
  return out;
}

}  // namespace mfprio
