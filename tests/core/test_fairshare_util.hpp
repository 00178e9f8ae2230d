// test_fairshare_util.hpp - builders shared by the fair-share tests.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "share_tree.hpp"

namespace mfprio::testing {

// Builds a ShareTree by name: root is "root"; accounts and users are added
// under a named parent.  Names must be unique within one builder.
class TreeBuilder {
 public:
  TreeBuilder() { ids_["root"] = tree_.add(-1, false, 1.0, 0.0); }

  TreeBuilder& account(const std::string& name, const std::string& parent, double shares) {
    ids_[name] = tree_.add(id_signed(parent), false, shares, 0.0);
    return *this;
  }
  // An account with FairShare=parent.
  TreeBuilder& parent_account(const std::string& name, const std::string& parent) {
    ids_[name] = tree_.add(id_signed(parent), false, 0.0, 0.0, true);
    return *this;
  }
  TreeBuilder& user(const std::string& name, const std::string& parent, double shares, double usage,
                    bool active = false) {
    ids_[name] = tree_.add(id_signed(parent), true, shares, usage);
    tree_.active[ids_[name]] = active ? 1 : 0;
    return *this;
  }
  // A user with FairShare=parent.
  TreeBuilder& parent_user(const std::string& name, const std::string& parent, double usage,
                           bool active = false) {
    ids_[name] = tree_.add(id_signed(parent), true, 0.0, usage, true);
    tree_.active[ids_[name]] = active ? 1 : 0;
    return *this;
  }

  uint32_t operator[](const std::string& name) const {
    auto it = ids_.find(name);
    if (it == ids_.end()) throw std::out_of_range("no node named " + name);
    return it->second;
  }
  ShareTree& tree() { return tree_; }
  const ShareTree& finalize() {
    tree_.finalize();
    return tree_;
  }

 private:
  int32_t id_signed(const std::string& name) const { return static_cast<int32_t>((*this)[name]); }
  ShareTree tree_;
  std::map<std::string, uint32_t> ids_;
};

// Slurm's documented example (Slurm's "Classic Fairshare Algorithm" page; the "Ticket-Based Multifactor Priority Plugin" page reuses it):
//   root -> A(40) -> { B(30) -> User1, C(10) -> { User2, User3 } },
//           D(60) -> { E(25) -> User4, F(35) -> User5 }
// every user 1 share; raw usage User1 20, User2 25, User3 0, User4 25, User5 0.
//
// The documentation lists normalized usage 0.2, 0.25, 0, 0.25, 0: that is the
// raw usage divided by 100, while the tree's own total is 70.  With
// `with_other_usage` an extra user "Other" (0 shares, usage 30) under root
// makes root's usage 100 without changing any share sum, which is the only
// way the documented numbers come out of U = raw / root raw.
inline TreeBuilder documented_example(bool with_other_usage) {
  TreeBuilder b;
  b.account("A", "root", 40)
      .account("B", "A", 30)
      .user("User1", "B", 1, 20)
      .account("C", "A", 10)
      .user("User2", "C", 1, 25)
      .user("User3", "C", 1, 0)
      .account("D", "root", 60)
      .account("E", "D", 25)
      .user("User4", "E", 1, 25)
      .account("F", "D", 35)
      .user("User5", "F", 1, 0);
  if (with_other_usage) b.user("Other", "root", 0, 30);
  b.finalize();
  return b;
}

// The golden tests' tolerance: six decimals, as the references print them.
inline constexpr double kSix = 1e-6;

// Each named node's entry of `values` (a ShareResult vector) is within `tol`
// of its expected value.
inline void expect_near(const std::vector<double>& values, const TreeBuilder& b,
                        std::initializer_list<std::pair<const char*, double>> want, double tol = kSix) {
  for (const auto& [name, expected] : want) EXPECT_NEAR(values[b[name]], expected, tol) << name;
}

inline ShareResult run(const ShareTree& tree, FairShareAlgo algo, double dampening = 1.0) {
  ShareResult r;
  FairShareParams p;
  p.algo = algo;
  p.dampening = dampening;
  compute_fair_share(tree, p, r);
  return r;
}

}  // namespace mfprio::testing
