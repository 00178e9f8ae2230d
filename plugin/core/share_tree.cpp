// share_tree.cpp - building and checking the association tree, the
// FairShare=parent resolution every algorithm shares, and the dispatcher.
//
// Entry points:  ShareTree::add (builder), ShareTree::finalize (once, after the
// last add), compute_fair_share (any number of times on a finalized tree),
// fill_path_shares_and_usage (S and U for the three "classic-family" algorithms).
//
// finalize() derives, in O(n):
//   - CSR children in index order (the builder adds siblings sorted by name, so
//     index order is sibling order);
//   - account usage = sum of the children's usage, bottom-up (the usage passed
//     to add() for an account is ignored);
//   - the fair-share structure of assoc_mgr.c:assoc_mgr_normalize_assoc_shares: fs_parent (the nearest
//     ancestor that is not a FairShare=parent account) and, for every other
//     account, its sibling group: its children with every FairShare=parent
//     account replaced, in place and depth first, by that account's children.
//     This is the set a node competes in (shares sum, Fair Tree ranking).
#include "share_tree.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "release.hpp"

namespace mfprio {

namespace {

[[noreturn]] void invalid(const std::string& what) {
  throw std::invalid_argument("share tree: " + what);
}

std::string node_name(size_t i) { return "node " + std::to_string(i); }

}  // namespace

uint32_t ShareTree::add(int32_t parent_index, bool user, double raw_shares, double raw_usage,
                        bool fairshare_parent) {
  const auto index = static_cast<uint32_t>(parent.size());
  parent.push_back(parent_index);
  is_user.push_back(user ? 1 : 0);
  shares_parent.push_back(fairshare_parent ? 1 : 0);
  shares.push_back(raw_shares);
  usage.push_back(raw_usage);
  // Keep `active` aligned with the other vectors even if a caller filled some
  // of them directly (finalize() checks the lengths).
  if (active.size() + 1 == parent.size()) active.push_back(0);
  return index;
}

void ShareTree::finalize() {
  const size_t n = parent.size();
  if (n == 0) invalid("empty tree: node 0 must be the root account");
  if (n > static_cast<size_t>(INT32_MAX)) invalid("too many nodes");
  if (is_user.size() != n || shares_parent.size() != n || shares.size() != n ||
      usage.size() != n)
    invalid("per-node vectors have different lengths");
  if (active.empty()) active.assign(n, 0);
  if (active.size() != n) invalid("active[] has a different length from parent[]");

  // --- Invariants (validate everything before deriving anything). ---
  if (parent[0] != -1) invalid("node 0 must be the root (parent -1)");
  if (is_user[0]) invalid("node 0 (root) must be an account, not a user");
  if (shares_parent[0]) invalid("node 0 (root) cannot have FairShare=parent");
  for (size_t i = 1; i < n; ++i) {
    const int32_t p = parent[i];
    if (p < 0 || static_cast<size_t>(p) >= i)
      invalid(node_name(i) + ": parent " + std::to_string(p) +
              " must be an existing node with a smaller index");
    if (is_user[static_cast<size_t>(p)])
      invalid(node_name(i) + ": parent " + std::to_string(p) + " is a user; users must be leaves");
  }
  for (size_t i = 0; i < n; ++i)
    if (!shares_parent[i] && !(std::isfinite(shares[i]) && shares[i] >= 0.0))
      invalid(node_name(i) + ": raw shares must be finite and >= 0");
  sum_usage(usage);

  // --- CSR children, index order (a counting sort by parent). ---
  child_begin.assign(n + 1, 0);
  for (size_t i = 1; i < n; ++i) ++child_begin[static_cast<size_t>(parent[i]) + 1];
  for (size_t i = 0; i < n; ++i) child_begin[i + 1] += child_begin[i];
  children.assign(n - 1, 0);
  {
    std::vector<uint32_t> fill(child_begin.begin(), child_begin.end() - 1);
    for (size_t i = 1; i < n; ++i) children[fill[static_cast<size_t>(parent[i])]++] = static_cast<uint32_t>(i);
  }

  // --- FairShare=parent resolution. ---
  fs_parent.assign(n, -1);
  for (size_t i = 1; i < n; ++i) {
    const auto p = static_cast<size_t>(parent[i]);
    fs_parent[i] = transparent(p) ? fs_parent[p] : static_cast<int32_t>(p);
  }
  // Group sizes: every node except root and transparent accounts is a member
  // of exactly one group, its fs_parent's.
  group_begin.assign(n + 1, 0);
  for (size_t i = 1; i < n; ++i)
    if (!transparent(i)) ++group_begin[static_cast<size_t>(fs_parent[i]) + 1];
  for (size_t i = 0; i < n; ++i) group_begin[i + 1] += group_begin[i];
  group.assign(group_begin[n], 0);
  group_shares.assign(n, 0.0);
  std::vector<uint32_t> stack;  // scratch for the depth-first expansion
  for (size_t a = 0; a < n; ++a) {
    if (is_user[a] || transparent(a)) continue;
    uint32_t pos = group_begin[a];
    double sum = 0.0;
    // Push children in reverse so they pop in sibling order.
    for (uint32_t k = child_begin[a + 1]; k > child_begin[a]; --k) stack.push_back(children[k - 1]);
    while (!stack.empty()) {
      const uint32_t c = stack.back();
      stack.pop_back();
      if (transparent(c)) {
        for (uint32_t k = child_begin[c + 1]; k > child_begin[c]; --k) stack.push_back(children[k - 1]);
      } else {
        group[pos++] = c;
        sum += own_shares(c);
      }
    }
    group_shares[a] = sum;
  }
}

void ShareTree::sum_usage(std::vector<double>& u) const {
  const size_t n = parent.size();
  if (u.size() != n) invalid("usage has " + std::to_string(u.size()) + " entries for " + std::to_string(n) + " nodes");
  for (size_t i = 0; i < n; ++i)
    if (is_user[i] && !(std::isfinite(u[i]) && u[i] >= 0.0))
      invalid(node_name(i) + ": raw usage must be finite and >= 0");
  // --- Usage: accounts are the sum of their children, bottom-up. ---
  // Children have larger indices than their parent, so one reverse sweep adds
  // every subtree into its parent after the subtree itself is complete.
  for (size_t i = 0; i < n; ++i)
    if (!is_user[i]) u[i] = 0.0;
  for (size_t i = n - 1; i >= 1; --i) u[static_cast<size_t>(parent[i])] += u[i];
  if (!std::isfinite(u[0])) invalid("total usage overflows a double");
}

void ShareTree::finalize_usage() {
  if (!finalized() || usage.size() != size()) invalid("finalize_usage: the tree is not finalized");
  sum_usage(usage);
}

void ShareResult::reset(size_t n, bool all) {
  for (std::vector<double>* v : {&norm_shares, &level_fs}) v->assign(n, 0.0);
  for (std::vector<double>* v : {&fairshare, &norm_usage, &eff_usage, &tickets}) {
    if (all) v->assign(n, 0.0);
    else release(*v);
  }
}

void fill_path_shares_and_usage(const ShareTree& tree, const double* usage, ShareResult& out) {
  const size_t n = tree.size();
  auto& S = out.norm_shares;
  auto& U = out.norm_usage;
  const double root_usage = usage[0];
  S[0] = 1.0;
  U[0] = root_usage > 0.0 ? 1.0 : 0.0;
  for (size_t i = 1; i < n; ++i) {
    const auto f = static_cast<size_t>(tree.fs_parent[i]);
    if (tree.shares_parent[i]) {
      S[i] = S[f];  // FairShare=parent: the fair-share parent's S (assoc_mgr.c:assoc_mgr_normalize_assoc_shares)
    } else if (tree.group_shares[f] > 0.0) {
      S[i] = S[f] * (tree.shares[i] / tree.group_shares[f]);
    }  // else: nobody in the group has shares, S = 0
    if (root_usage > 0.0) U[i] = std::min(1.0, usage[i] / root_usage);
  }
}

void compute_fair_share(const ShareTree& tree, const FairShareParams& params, ShareResult& out) {
  if (tree.usage.size() != tree.size())
    throw std::invalid_argument("compute_fair_share: the share tree's usage has a different length");
  compute_fair_share(tree, inputs_of(tree), params, out);
}

void compute_fair_share(const ShareTree& tree, const ShareInputs& in, const FairShareParams& params,
                        ShareResult& out) {
  if (!tree.finalized())
    throw std::invalid_argument("compute_fair_share: the share tree is not finalized");
  const bool damped =
      params.algo == FairShareAlgo::Classic || params.algo == FairShareAlgo::DepthOblivious;
  if (damped && !(std::isfinite(params.dampening) && params.dampening > 0.0))
    throw std::invalid_argument("compute_fair_share: FairShareDampeningFactor must be > 0");
  if (!in.usage || (params.algo == FairShareAlgo::TicketBased && !in.active))
    throw std::invalid_argument("compute_fair_share: no usage (or, ticket based, no active flags) given");
  switch (params.algo) {
    case FairShareAlgo::FairTree:
      fair_share_fair_tree(tree, in, out);
      return;
    case FairShareAlgo::Classic:
      fair_share_classic(tree, in, params.dampening, out);
      return;
    case FairShareAlgo::DepthOblivious:
      fair_share_depth_oblivious(tree, in, params.dampening, out);
      return;
    case FairShareAlgo::TicketBased:
      fair_share_ticket(tree, in, out);
      return;
  }
  throw std::invalid_argument("compute_fair_share: unknown algorithm");
}

}  // namespace mfprio
