// test_stable_order.cpp - common/stable_order.hpp against its two promises:
// the result is sorted, and equal keys keep their input order (checked by
// carrying each element's input position).  Sizes straddle the insertion-run
// width (16) and odd merge widths.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "stable_order.hpp"

namespace {

struct Item {
  int key;
  size_t pos;  // input position
};

std::vector<Item> random_items(size_t n, int keys, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> k(0, keys - 1);
  std::vector<Item> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = Item{k(rng), i};
  return v;
}

void expect_stably_sorted(const std::vector<Item>& v, size_t n) {
  ASSERT_EQ(v.size(), n);
  std::vector<bool> seen(n, false);
  for (size_t i = 0; i < v.size(); ++i) {
    ASSERT_LT(v[i].pos, n);
    EXPECT_FALSE(seen[v[i].pos]) << "position " << v[i].pos << " twice";
    seen[v[i].pos] = true;
    if (i == 0) continue;
    ASSERT_LE(v[i - 1].key, v[i].key) << "not sorted at " << i << " (n=" << n << ")";
    if (v[i - 1].key == v[i].key) {
      ASSERT_LT(v[i - 1].pos, v[i].pos) << "equal keys reordered at " << i;
    }
  }
}

TEST(StableOrder, SortedAndStableOverManySizes) {
  for (size_t n : {0, 1, 2, 15, 16, 17, 31, 32, 33, 100, 257, 1000, 4097}) {
    for (int keys : {1, 3, 50, 100000}) {
      auto v = random_items(n, keys, n * 7919 + static_cast<size_t>(keys));
      mfprio::stable_order(v.begin(), v.end(), [](const Item& a, const Item& b) { return a.key < b.key; });
      expect_stably_sorted(v, n);
    }
  }
}

TEST(StableOrder, DescendingComparatorAndMoveOnlyPayload) {
  std::vector<std::pair<int, std::string>> v;
  for (int i = 0; i < 300; ++i) v.emplace_back(i % 7, "item" + std::to_string(i));
  mfprio::stable_order(v, [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t i = 1; i < v.size(); ++i) {
    ASSERT_GE(v[i - 1].first, v[i].first);
    if (v[i - 1].first == v[i].first) {
      ASSERT_LT(std::stoi(v[i - 1].second.substr(4)), std::stoi(v[i].second.substr(4)));
    }
  }
  EXPECT_EQ(v.front().first, 6);
  EXPECT_EQ(v.front().second, "item6");
}

TEST(StableOrder, SplitKeepsBothGroupsInOrder) {
  std::vector<int> v;
  for (int i = 0; i < 50; ++i) v.push_back(i);
  auto mid = mfprio::stable_split(v.begin(), v.end(), [](int x) { return x % 3 != 0; });
  ASSERT_EQ(mid - v.begin(), 33);
  for (auto it = v.begin(); it != mid; ++it) EXPECT_NE(*it % 3, 0);
  for (auto it = mid; it != v.end(); ++it) EXPECT_EQ(*it % 3, 0);
  for (auto it = v.begin() + 1; it != mid; ++it) EXPECT_LT(*(it - 1), *it);
  for (auto it = mid + 1; it != v.end(); ++it) EXPECT_LT(*(it - 1), *it);
}

}  // namespace
