// fairshare_classic.cpp - Slurm's classic fair-share factor
// (PriorityFlags=NO_FAIR_TREE), Slurm's Classic Fairshare Algorithm page and Slurm's
// priority_multifactor documentation.
//
//   S  = product along the path of shares / sum of sibling shares (assoc_mgr.c:assoc_mgr_normalize_assoc_shares)
//   U  = raw usage / root raw usage
//   Ue = U                                         for children of root
//      = U + (Ue_parent - U) * shares / level_shares otherwise
//   F  = 2^(-(Ue / S) / dampening), and 0 when S = 0
//
// "parent" and "siblings" are the fair-share ones (ShareTree::fs_parent and
// the sibling group), so a FairShare=parent account is transparent.  A node
// with FairShare=parent (user, or the transparent account itself) takes S, Ue
// and F of its fair-share parent (assoc_mgr.c:assoc_mgr_normalize_assoc_shares: "treated as its account").
// When a whole group has 0 shares (level_shares = 0) a member inherits the
// parent's Ue: the formula is undefined there, and the member's S is 0 anyway,
// so its F is 0 whatever Ue is.
//
// Root: S = 1, Ue = U = 1 when there is any usage (0 otherwise), F by the
// same formula.  Accounts get F too (sshare leaves it blank; the value is
// harmless and sometimes handy when debugging).
//
// Cost: O(n), no allocation beyond the output vectors.
#include <cmath>

#include "share_tree.hpp"

namespace mfprio {

void fair_share_classic(const ShareTree& tree, const ShareInputs& in, double dampening, ShareResult& out) {
  const size_t n = tree.size();
  out.reset(n);
  fill_path_shares_and_usage(tree, in.usage, out);
  const auto& S = out.norm_shares;
  const auto& U = out.norm_usage;
  auto& Ue = out.eff_usage;

  // fs_parent[i] < i, so the parent's Ue is ready when i is reached.
  Ue[0] = U[0];
  for (size_t i = 1; i < n; ++i) {
    const auto f = static_cast<size_t>(tree.fs_parent[i]);
    const double level_shares = tree.group_shares[f];
    if (tree.shares_parent[i]) {
      Ue[i] = Ue[f];
    } else if (f == 0) {
      Ue[i] = U[i];
    } else if (level_shares > 0.0) {
      Ue[i] = U[i] + (Ue[f] - U[i]) * (tree.shares[i] / level_shares);
    } else {
      Ue[i] = Ue[f];
    }
  }
  for (size_t i = 0; i < n; ++i)
    out.fairshare[i] = S[i] > 0.0 ? std::exp2(-(Ue[i] / S[i]) / dampening) : 0.0;
}

}  // namespace mfprio
