// fairshare_depth_oblivious.cpp - the depth-oblivious fair-share factor
// (PriorityFlags=DEPTH_OBLIVIOUS), priority_multifactor.c:_depth_oblivious_set_usage_efctv and Slurm's
// priority_multifactor3 documentation.
//
// S and U as in classic.  For a node under parent p (fair-share parent; the
// siblings are p's sibling group, FairShare=parent users left out of the sum
// because they have no shares of their own):
//   ratio_p = Ue_p / S_p                     (p's own usage-to-share ratio R)
//   ratio_l = (U / S) / (sum of sibling U / S_p)
//   k       = 1                              if ln(ratio_p) * ln(ratio_l) >= 0
//           = 1 / (1 + (5 ln ratio_p)^2)     otherwise
//   Ue      = ratio_p * ratio_l^k * S        (so F = 2^(-R/d) with R = ratio_p ratio_l^k)
//   F       = 2^(-(Ue / S) / dampening), 0 when S = 0.
//
// Edge cases (these follow what Slurm's plugin does, checked as facts against
// its public source; the code here is our own):
//   - children of root: Ue = U (root's R is 1 by construction, and the
//     formula would only reproduce U/S when root has no FairShare=parent users);
//   - S = 0, S_p = 0, Ue_p = 0 or U = 0: the ratios are undefined or 0; Ue = U.
//     So an idle node gets Ue = 0 and F = 1, a zero-share node F = 0;
//   - FairShare=parent nodes take S, Ue, F of their fair-share parent (assoc_mgr.c:assoc_mgr_normalize_assoc_shares);
//   - ln(ratio_p) or ln(ratio_l) is never taken of 0 (the case above), so no
//     NaN can appear; an overflowing product is clamped to the largest double,
//     which gives F = 0.
//
// Cost: O(n): one pass per sibling group for the usage sum, one for the nodes.
#include <cfloat>
#include <cmath>

#include "share_tree.hpp"

namespace mfprio {

namespace {

constexpr double kParentWeight = 5.0;  // Slurm's fixed f in k = 1/(1+(f ln ratio_p)^2)

double depth_oblivious_ue(double ue_parent, double s_parent, double u, double s,
                          double sibling_usage) {
  const double ratio_p = ue_parent / s_parent;
  const double ratio_s = sibling_usage / s_parent;  // > 0: it includes u > 0
  const double ratio_l = (u / s) / ratio_s;
  // ln(ratio_p) * ln(ratio_l) >= 0 exactly when both ratios sit on the same
  // side of 1 (or one equals 1): decide that without the logarithms, and skip
  // pow() in that common case (k = 1).
  const bool same_side = (ratio_p >= 1.0 && ratio_l >= 1.0) || (ratio_p <= 1.0 && ratio_l <= 1.0);
  double ue;
  if (same_side) {
    ue = ratio_p * ratio_l * s;
  } else {
    const double lp = kParentWeight * std::log(ratio_p);
    const double k = 1.0 / (1.0 + lp * lp);
    ue = ratio_p * std::pow(ratio_l, k) * s;
  }
  return std::isfinite(ue) ? ue : DBL_MAX;
}

}  // namespace

void fair_share_depth_oblivious(const ShareTree& tree, const ShareInputs& in, double dampening, ShareResult& out) {
  const size_t n = tree.size();
  out.reset(n);
  fill_path_shares_and_usage(tree, in.usage, out);
  const auto& S = out.norm_shares;
  const auto& U = out.norm_usage;
  auto& Ue = out.eff_usage;

  Ue[0] = U[0];
  // Groups in index order: account a's Ue was set while its own fair-share
  // parent's group (a smaller index) was processed.
  for (size_t a = 0; a < n; ++a) {
    const uint32_t gb = tree.group_begin[a];
    const uint32_t ge = tree.group_begin[a + 1];
    if (gb == ge) continue;
    double sibling_usage = 0.0;
    for (uint32_t j = gb; j < ge; ++j) {
      const uint32_t m = tree.group[j];
      if (!tree.shares_parent[m]) sibling_usage += U[m];
    }
    for (uint32_t j = gb; j < ge; ++j) {
      const uint32_t m = tree.group[j];
      if (tree.shares_parent[m]) {
        Ue[m] = Ue[a];
      } else if (a == 0 || S[m] <= 0.0 || S[a] <= 0.0 || Ue[a] <= 0.0 || U[m] <= 0.0) {
        Ue[m] = U[m];
      } else {
        Ue[m] = depth_oblivious_ue(Ue[a], S[a], U[m], S[m], sibling_usage);
      }
    }
  }
  // Transparent accounts (not in any group) mirror their fair-share parent.
  for (size_t i = 1; i < n; ++i)
    if (tree.transparent(i)) Ue[i] = Ue[static_cast<size_t>(tree.fs_parent[i])];

  for (size_t i = 0; i < n; ++i)
    out.fairshare[i] = S[i] > 0.0 ? std::exp2(-(Ue[i] / S[i]) / dampening) : 0.0;
}

}  // namespace mfprio
