// index_set.hpp - a set of job indices with O(1) insert and erase (order
// not kept), for the event loops of replay and simulate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mfprio::host {

class IndexSet {
 public:
  explicit IndexSet(size_t n) : pos_(n, kNone) {}
  void insert(uint32_t j) {
    pos_[j] = items_.size();
    items_.push_back(j);
  }
  void erase(uint32_t j) {
    const size_t at = pos_[j];
    if (at == kNone) return;
    items_[at] = items_.back();
    pos_[items_[at]] = at;
    items_.pop_back();
    pos_[j] = kNone;
  }
  const std::vector<uint32_t>& items() const { return items_; }

 private:
  static constexpr size_t kNone = static_cast<size_t>(-1);
  std::vector<size_t> pos_;
  std::vector<uint32_t> items_;
};

}  // namespace mfprio::host
