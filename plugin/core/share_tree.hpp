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

#include <cstdint>
#include <string>
#include <vector>

namespace mfprio {

enum class FairShareAlgo : uint8_t {
  FairTree,        // default (Slurm >= 19.05); REFERENCE §1.8
  Classic,         // PriorityFlags=NO_FAIR_TREE; §1.6
  DepthOblivious,  // PriorityFlags=DEPTH_OBLIVIOUS; §1.7
  TicketBased,     // PriorityFlags=TICKET_BASED; §1.9, seed 003
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

  size_t size() const { return parent.size(); }
  // Appends a node; returns its index.
  uint32_t add(int32_t parent_index, bool user, double raw_shares, double raw_usage,
               bool fairshare_parent = false);
  // Builds the CSR children and sums usage up the tree (accounts' usage is
  // replaced by the sum of their children's).  Throws std::invalid_argument
  // when an invariant above does not hold.
  void finalize();
};

// Per-node results.  Vectors have the tree's size.
struct ShareResult {
  std::vector<double> norm_shares;  // S
  std::vector<double> norm_usage;   // U
  std::vector<double> eff_usage;    // Ue (classic, depth-oblivious; ticket: max(U, .01S))
  std::vector<double> level_fs;     // Fair Tree LevelFS (inf when U=0 and S>0)
  std::vector<double> fairshare;    // F in [0,1] for users; accounts: algorithm's own value
};

struct FairShareParams {
  FairShareAlgo algo = FairShareAlgo::FairTree;
  double dampening = 1.0;  // FairShareDampeningFactor (classic, depth-oblivious)
};

// Computes every field of `out` for `tree` (which must be finalized).
void compute_fair_share(const ShareTree& tree, const FairShareParams& params, ShareResult& out);

// The individual algorithms (one file each).
void fair_share_fair_tree(const ShareTree& tree, ShareResult& out);
void fair_share_classic(const ShareTree& tree, double dampening, ShareResult& out);
void fair_share_depth_oblivious(const ShareTree& tree, double dampening, ShareResult& out);
void fair_share_ticket(const ShareTree& tree, ShareResult& out);

}  // namespace mfprio
