// share_tree.hpp - the association tree that the fair-share algorithms read,
// and the per-association numbers they produce (what sshare shows).
//
// Built by the snapshot builder from the accounting store; pure data, no I/O.
// Invariants (checked by ShareTree::validate):
//   - node 0 is root (an account, parent -1); every other node's parent has a
//     smaller index (parents come before children: preorder or BFS order);
//   - users are leaves; accounts may have no children;
//   - usage[] of an account is the sum of its children's usage (finalize()
//     computes it from the users' usage), so root's usage is the cluster total.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace mfprio {

enum class FairShareAlgo : uint8_t {
  FairTree,        // default (Slurm >= 19.05); Slurm 22.05 fair_tree.c
  Classic,         // PriorityFlags=NO_FAIR_TREE; Slurm's Classic Fairshare Algorithm page
  DepthOblivious,  // PriorityFlags=DEPTH_OBLIVIOUS; priority_multifactor.c:_depth_oblivious_set_usage_efctv
  TicketBased,     // PriorityFlags=TICKET_BASED; the "Ticket-Based Multifactor Priority Plugin" page
};

struct ShareTree {
  // One entry per node, all vectors the same length.
  std::vector<int32_t> parent;         // -1 for root
  std::vector<uint8_t> is_user;        // 1 = user association (leaf)
  std::vector<uint8_t> shares_parent;  // 1 = FairShare=parent
  std::vector<double> shares;          // raw shares (ignored when shares_parent)
  std::vector<double> usage;           // raw decayed usage; accounts: see finalize()
  std::vector<uint8_t> active;         // users with pending jobs (TicketBased only)

  // Derived by finalize(): children in CSR form, in index order.
  std::vector<uint32_t> child_begin;  // size n+1
  std::vector<uint32_t> children;     // size n-1

  // Derived by finalize(): the fair-share structure with FairShare=parent
  // resolved (assoc_mgr.c:assoc_mgr_normalize_assoc_shares).  A "transparent" node is a non-root account
  // with FairShare=parent: it belongs to no group, its children are listed in
  // its place among its own parent's children (depth first, sibling order kept).
  // A user with FairShare=parent is a group member whose shares count 0.
  std::vector<int32_t> fs_parent;     // nearest ancestor that is not transparent; -1 for root
  std::vector<uint32_t> group_begin;  // size n+1: the members of account a's sibling group
  std::vector<uint32_t> group;        //   are group[group_begin[a] .. group_begin[a+1])
  std::vector<double> group_shares;   // per account: sum of its group members' raw shares

  size_t size() const { return parent.size(); }
  // True once finalize() has run (and nothing was added since).
  bool finalized() const {
    return !parent.empty() && child_begin.size() == size() + 1 && group_begin.size() == size() + 1 &&
           fs_parent.size() == size() && group_shares.size() == size() && active.size() == size();
  }
  bool transparent(size_t i) const { return i != 0 && !is_user[i] && shares_parent[i]; }
  // Raw shares as the algorithms count them: 0 for FairShare=parent.
  double own_shares(size_t i) const { return shares_parent[i] ? 0.0 : shares[i]; }
  // Appends a node; returns its index.
  uint32_t add(int32_t parent_index, bool user, double raw_shares, double raw_usage,
               bool fairshare_parent = false);
  // Builds the CSR children and sums usage up the tree (accounts' usage is
  // replaced by the sum of their children's).  Throws std::invalid_argument
  // when an invariant above does not hold.
  void finalize();
  // For a copy of a finalized tree given new users' usage: checks the users'
  // usage and sums it into the accounts again (the structure is kept).
  // Throws std::invalid_argument when the tree is not finalized or a usage
  // is bad.
  void finalize_usage();
  // The same for usage kept outside the tree (a structure shared by many
  // snapshots, each with its own usage): `node_usage` has one entry per
  // node; the users' are checked, the accounts' replaced by the sums.
  void sum_usage(std::vector<double>& node_usage) const;
};

// What an algorithm reads besides the structure: per node, the usage
// (accounts summed: finalize / sum_usage) and the active flags
// (TicketBased).  A tree's own vectors (inputs_of), or a snapshot's kept
// beside a structure it shares with its predecessor (no copy of the
// structure per pass).
struct ShareInputs {
  const double* usage = nullptr;
  const uint8_t* active = nullptr;
};
inline ShareInputs inputs_of(const ShareTree& t) { return ShareInputs{t.usage.data(), t.active.data()}; }

// Per-node results.  Vectors have the tree's size.
struct ShareResult {
  std::vector<double> norm_shares;  // S
  std::vector<double> norm_usage;   // U
  std::vector<double> eff_usage;    // Ue (classic, depth-oblivious; ticket: max(U, .01S))
  std::vector<double> level_fs;     // Fair Tree LevelFS (inf when U=0 and S>0)
  std::vector<double> fairshare;    // F in [0,1] for users; accounts: algorithm's own value
  std::vector<double> tickets;      // TicketBased: share of the root's tickets (root = 1 when any
                                    // user is active); 0 for the other algorithms

  // Set by a caller that reads only `fairshare` and `level_fs` (a pass's
  // snapshot): Fair Tree then leaves norm_shares, norm_usage, eff_usage and
  // tickets empty (32 bytes a node less at the pass's peak, beside the state
  // it replaces).
  // The other algorithms fill every field whatever this says.
  bool fairshare_only = false;

  // Sizes every vector to n and zeroes it (each algorithm starts here);
  // with all = false, only norm_shares and level_fs (the others are
  // emptied: Fair Tree sizes fairshare once it no longer needs norm_shares).
  void reset(size_t n, bool all = true);
};

struct FairShareParams {
  FairShareAlgo algo = FairShareAlgo::FairTree;
  double dampening = 1.0;  // FairShareDampeningFactor (classic, depth-oblivious)
};

// Computes every field of `out` for `tree` (which must be finalized); Fair
// Tree skips four when out.fairshare_only is set (see ShareResult).
void compute_fair_share(const ShareTree& tree, const FairShareParams& params, ShareResult& out);
// The same with the per-node inputs given apart (`in.usage` summed as
// sum_usage leaves it; `in.active` read by TicketBased only, may be NULL
// for the others).
void compute_fair_share(const ShareTree& tree, const ShareInputs& in, const FairShareParams& params,
                        ShareResult& out);

// Shared by Classic, DepthOblivious and TicketBased (assoc_mgr.c:assoc_mgr_normalize_assoc_shares): fills
// out.norm_shares / out.norm_usage (already sized by out.reset) with S = product along the
// path of shares / group_shares (FairShare=parent: its fair-share parent's S)
// and U = raw usage / root raw usage (0 when root has none, capped at 1).
void fill_path_shares_and_usage(const ShareTree& tree, const double* usage, ShareResult& out);

// Fair Tree's per-node level values (Slurm 22.05 fair_tree.c), the first half of
// fair_share_fair_tree (everything but the ranking): for node i > 0, given
// norm_shares of its fair-share parent.  Fields left 0 where the algorithm
// leaves them 0.  One definition, so a view that needs these columns without
// the ranking (multifactor's sshare, which takes FairShare from its
// snapshot) computes exactly the same doubles.
struct FairTreeLevel {
  double norm_shares = 0, norm_usage = 0, eff_usage = 0, level_fs = 0;
};
inline FairTreeLevel fair_tree_level(const ShareTree& tree, const double* usage, size_t i,
                                     double fs_parent_norm_shares) {
  FairTreeLevel r;
  const auto f = static_cast<size_t>(tree.fs_parent[i]);
  const double root_usage = usage[0];
  const double parent_usage = usage[f];
  if (root_usage > 0.0) r.norm_usage = std::min(1.0, usage[i] / root_usage);
  if (parent_usage > 0.0) r.eff_usage = std::min(1.0, usage[i] / parent_usage);
  if (tree.shares_parent[i]) {
    r.norm_shares = fs_parent_norm_shares;
    r.level_fs = std::numeric_limits<double>::infinity();
    return r;
  }
  if (tree.group_shares[f] > 0.0) r.norm_shares = tree.shares[i] / tree.group_shares[f];
  if (r.norm_shares <= 0.0)
    r.level_fs = 0.0;
  else if (r.eff_usage <= 0.0)
    r.level_fs = std::numeric_limits<double>::infinity();
  else
    r.level_fs = r.norm_shares / r.eff_usage;
  return r;
}

// The individual algorithms (one file each).
void fair_share_fair_tree(const ShareTree& tree, const ShareInputs& in, ShareResult& out);
void fair_share_classic(const ShareTree& tree, const ShareInputs& in, double dampening, ShareResult& out);
void fair_share_depth_oblivious(const ShareTree& tree, const ShareInputs& in, double dampening, ShareResult& out);
void fair_share_ticket(const ShareTree& tree, const ShareInputs& in, ShareResult& out);

}  // namespace mfprio
