// fairshare_fair_tree.cpp - Slurm's Fair Tree fair-share factor (the
// default since Slurm 19.05), Slurm 22.05 fair_tree.c and Slurm's fair_tree
// documentation.
//
// Per node, against its fair-share parent f and sibling group (assoc_mgr.c:assoc_mgr_normalize_assoc_shares):
//   U        = raw usage / raw usage of f (0 when f has none)   -> eff_usage
//   S        = shares / sum of the group's shares                -> norm_shares
//   LevelFS  = S / U; 0 when S = 0; +inf when U = 0 and S > 0    -> level_fs
// FairShare=parent users get LevelFS = +inf (and S of f); a FairShare=parent
// account is not ranked: its children sit in its place in f's group (and
// count in that group's share sum); it shows S of f and LevelFS +inf.
// norm_usage is raw / root raw (sshare's NormUsage column): the level U above
// is what sshare shows as EffectvUsage under Fair Tree.  Root: S = 1, U = 1
// when there is any usage.
//
// Ranking (as Slurm 22.05 src/plugins/priority/multifactor/fair_tree.c does it, which differs
// from its Fair Tree documentation: tied sibling accounts are NOT merged):
//   N = number of users (idle ones too); rank = rnt = N
//   visit(group, parent_tied): order the group by LevelFS descending, users
//   before accounts on equal LevelFS, builder order after that; for each
//   member, tied = (first and parent_tied) or LevelFS == previous LevelFS
//   (exact floating-point equality, see same_level_fs); a user takes
//   rank = rnt unless tied, FairShare = rank / N, and rnt decreases; an
//   account is visited with its own `tied`.
// Users therefore come out with FairShare in (0, 1]; accounts get 0 (sshare
// leaves their FairShare blank).
//
// Cost: O(n log n) for the per-group sorts, O(n) otherwise; the traversal
// uses an explicit stack so a deep tree cannot overflow the C++ stack.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "release.hpp"
#include "share_tree.hpp"

namespace mfprio {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The one place Fair Tree compares LevelFS values.  Slurm ties siblings only
// on exact equality (two idle siblings: inf == inf), never with a tolerance;
// the tests' numbers, taken from fair_tree.c's behaviour, depend on that.
bool same_level_fs(double a, double b) { return a == b; }

// 16 bytes (the node is tree.group[pos]): the keys are the largest scratch
// of a pass, alive beside the result and the state it replaces.
struct SortKey {
  double level_fs;
  uint32_t pos;   // position in ShareTree::group (builder order)
  uint8_t user;
};

// Visit order within a group: LevelFS descending, users first on equal
// LevelFS, then builder order.  A function object so std::sort inlines it.
struct VisitOrder {
  bool operator()(const SortKey& x, const SortKey& y) const {
    if (!same_level_fs(x.level_fs, y.level_fs)) return x.level_fs > y.level_fs;
    if (x.user != y.user) return x.user > y.user;
    return x.pos < y.pos;
  }
};

struct Frame {
  uint32_t account;   // whose group is being visited
  uint32_t next;      // next position in the ordered group
  bool parent_tied;
  bool have_prev;
  double prev;        // LevelFS of the previous member
};

}  // namespace

void fair_share_fair_tree(const ShareTree& tree, const ShareInputs& in, ShareResult& out) {
  const size_t n = tree.size();
  const bool all = !out.fairshare_only;  // U and Ue too (views), or only what the ranking needs
  const double* usage = in.usage;
  out.reset(n, all);  // fairshare_only: no fairshare yet (sized once S, read only here, is gone)
  auto& S = out.norm_shares;
  auto& lfs = out.level_fs;

  const double root_usage = usage[0];
  const double u0 = root_usage > 0.0 ? 1.0 : 0.0;
  S[0] = 1.0;
  if (all) out.eff_usage[0] = out.norm_usage[0] = u0;
  lfs[0] = u0 > 0.0 ? 1.0 : kInf;
  for (size_t i = 1; i < n; ++i) {
    const FairTreeLevel l = fair_tree_level(tree, usage, i, S[static_cast<size_t>(tree.fs_parent[i])]);
    S[i] = l.norm_shares;
    if (all) {
      out.eff_usage[i] = l.eff_usage;
      out.norm_usage[i] = l.norm_usage;
    }
    lfs[i] = l.level_fs;
  }
  if (!all) {
    release(S);  // a pass's peak: S, LevelFS and F are never all alive at once
    out.fairshare.assign(n, 0.0);
  }

  // Order every group.  Keys are sorted by value (no indirect lookups in the
  // comparator); ties beyond LevelFS and kind keep the builder's order (the
  // position in tree.group), which makes std::sort behave as a stable sort.
  // One group's keys at a time: the scratch is the largest group's, not the
  // tree's.
  std::vector<uint32_t> order(tree.group.size());
  std::vector<SortKey> keys;
  for (size_t a = 0; a < n; ++a) {
    const uint32_t gb = tree.group_begin[a];
    const uint32_t ge = tree.group_begin[a + 1];
    if (ge - gb == 1) order[gb] = tree.group[gb];
    if (ge - gb <= 1) continue;
    keys.resize(ge - gb);
    for (uint32_t j = gb; j < ge; ++j) {
      const uint32_t m = tree.group[j];
      keys[j - gb] = SortKey{lfs[m], j, tree.is_user[m]};
    }
    std::sort(keys.begin(), keys.end(), VisitOrder{});
    for (uint32_t j = gb; j < ge; ++j) order[j] = tree.group[keys[j - gb].pos];
  }
  release(keys);

  size_t users = 0;
  for (size_t i = 0; i < n; ++i) users += tree.is_user[i] ? 1 : 0;
  if (users == 0) return;
  const double N = static_cast<double>(users);
  size_t rank = users;
  size_t rnt = users;

  std::vector<Frame> stack;
  stack.push_back(Frame{0, tree.group_begin[0], false, false, 0.0});
  while (!stack.empty()) {
    Frame& fr = stack.back();
    const uint32_t end = tree.group_begin[fr.account + 1];
    if (fr.next == end) {
      stack.pop_back();
      continue;
    }
    const uint32_t j = fr.next++;
    const uint32_t m = order[j];
    const bool first = j == tree.group_begin[fr.account];
    const bool tied = (first && fr.parent_tied) || (fr.have_prev && same_level_fs(fr.prev, lfs[m]));
    fr.have_prev = true;
    fr.prev = lfs[m];
    if (tree.is_user[m]) {
      if (!tied) rank = rnt;
      out.fairshare[m] = static_cast<double>(rank) / N;
      --rnt;
    } else {
      // `fr` may dangle after this push; it is not used again in this turn.
      stack.push_back(Frame{m, tree.group_begin[m], tied, false, 0.0});
    }
  }
}

}  // namespace mfprio
