// flux_fairshare.hpp - fair share for the `flux` family.
//
// Two algorithms, one per mode:
//   * weighted_tree_fairshare(): flux-accounting's weighted tree walk
//     (flux-accounting weighted_tree.cpp).  Every sibling set gets weights
//     (shares/s_sum) / (usage/u_sum); the tree is walked depth-first in weight
//     order and each user gets rank / N.  Ties share a rank, tied banks are
//     merged, zero-share associations come last, zero-usage ones first.
//   * design_fairshare(): the design page's factor, 0..1 with 0.5 = exactly served
//     (formula in flux_fairshare.cpp's header comment).
// Input: a plain tree in any order (parent indices, is_user, shares, usage).
// Output: one value per input node; only user associations that the tree
// load keeps get a value (the others keep `ranked[i] == 0`).
// Invariants: pure functions of their input; no I/O; O(n log n).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mfprio::flux {

struct TreeNode {
  std::string name;     // bank name or user name: orders siblings like the
                        // upstream loader (name order) so the walk is deterministic
  int32_t parent = -1;  // index into the same vector; -1 for the one root bank
  bool is_user = false;
  bool active = true;   // inactive nodes (and a bank's whole subtree) are left out
  uint64_t shares = 1;
  double usage = 0.0;   // users: their job_usage; banks: ignored (summed from users)
};

struct WeightedTreeOptions {
  // flux-accounting sums sibling usage in a uint64 accumulator, i.e. truncated
  // to an integer after every addition (flux-accounting weighted_tree.cpp).  Off by
  // default: we sum in double (mfprio-flux(5), DELIBERATE DIFFERENCES).
  bool truncate_usage_sums = false;
  // The value the plugin sees went through std::to_string (6 decimals):
  // 2/3 -> 0.666667.  On by default, as the plugin multiplies that value.
  bool round_to_6_decimals = true;
  // flux-accounting's loader gives a bank that has sub-banks no user
  // children, so users and banks are never siblings there.  Off, such users
  // are kept and compete with the sub-banks (a user sorts before a bank of
  // equal weight, the weighted tree's own rule).
  bool drop_users_beside_sub_banks = true;
};

struct FairShareResult {
  std::vector<double> fairshare;  // per node; meaningful where ranked[i]
  std::vector<uint8_t> ranked;    // 1 for each user association that got a value
  std::vector<double> usage;      // per node: users' own, banks' summed (kept nodes)
  std::vector<double> weight;     // per node: its weight among its siblings (kept nodes)
  int32_t leaf_count = 0;         // N: user associations in the walked tree
  std::vector<int32_t> order;     // users in the order the walk ranked them
                                  // (weighted tree; design: tree order)
};

// flux-accounting's weighted tree.  False (with *why) when the tree is
// malformed: parent out of range, not exactly one root, a root that is a user
// or inactive, a user with children, a cycle.
bool weighted_tree_fairshare(const std::vector<TreeNode>& nodes, const WeightedTreeOptions& opt,
                             FairShareResult* out, std::string* why);

// Design mode: F = 2^(-U/S) (see flux_fairshare.cpp).  Same input and output
// shape (weight[] holds S, usage[] holds the raw summed usage).  Users beside
// sub-banks are kept (they have shares of their own there).
bool design_fairshare(const std::vector<TreeNode>& nodes, FairShareResult* out, std::string* why);

// The floating-point equality flux-accounting's weighted tree uses:
// |a - b| < DBL_EPSILON * max(|a|, |b|, 1).
bool weights_equal(double a, double b);

// printf("%f") then back to double: the 6-decimal value the plugin receives.
double round_6_decimals(double v);

}  // namespace mfprio::flux
