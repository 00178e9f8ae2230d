// flux_fairshare.cpp - see flux_fairshare.hpp.
//
// Weighted tree (flux-accounting weighted_tree.cpp, flux-accounting's weighted_tree /
// weighted_walk / data_reader_db), restated:
//   Load: from the root bank, active sub-banks; a bank with an active sub-bank
//     gets no user children (its users are left out; an option keeps them);
//     otherwise its active users.  Bank usage = sum of its kept users' usage, up every ancestor.
//     N = number of kept user associations.
//   Weights, per sibling set: s_sum = sum of shares, u_sum = sum of usage;
//     shares == 0 -> 0; |usage| < 1e-9 -> 2^64 (UINT64_MAX + 1 as a double);
//     else (shares / s_sum) / (usage / u_sum).
//   Order: a user and a bank of equal weight (weights_equal): the user first;
//     otherwise raw weight descending, then name (upstream's std::sort leaves
//     exactly equal elements in any order: that changes no value, we just make
//     it deterministic).
//   Walk: rank = N, stride = 0.  In a sibling list a user whose weight equals
//     the next user's is "tied with next"; a run of consecutive banks with
//     equal weights becomes one virtual bank whose children are all theirs,
//     re-sorted by the weights they got among their own original siblings.
//     Depth first; at a user fshare = rank / N; tied -> stride += 1, else
//     rank -= 1 + stride and stride = 0.
//
// Design fair share (the design page: 0.5 = exactly served, 0 over-served, 1
// under-served), our formula:
//     S = product along the path from the root of shares / sibling share sum
//     U = usage / root usage (0 when the root has none)
//     F = 2^(-U/S);  S = 0 gives 0.
//   U = S (usage exactly matches the allotment) gives 0.5; no usage gives 1;
//   F falls towards 0 as usage grows past the allotment.  This is the curve
//   of Slurm's classic factor (Slurm's Classic Fairshare Algorithm page) without its effective-usage
//   blending, chosen because it meets all three of the design page's anchor points.
#include "flux_fairshare.hpp"
#include "stable_order.hpp"
#include "tree_walk.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace mfprio::flux {
namespace {

constexpr double kZeroUsageWeight = 18446744073709551616.0;  // (double)UINT64_MAX + 1

struct Prepared {
  int32_t root = -1;
  std::vector<std::vector<int32_t>> kids;  // kept children, name order
  std::vector<int32_t> order;              // kept nodes, parents before children
  std::vector<uint8_t> kept;
};

bool prepare(const std::vector<TreeNode>& nodes, bool drop_users_beside_sub_banks, Prepared* p,
             std::string* why) {
  const int32_t n = static_cast<int32_t>(nodes.size());
  auto fail = [&](std::string m) {
    if (why) *why = std::move(m);
    return false;
  };
  std::vector<std::vector<int32_t>> all(n);
  for (int32_t i = 0; i < n; ++i) {
    const int32_t par = nodes[i].parent;
    if (par == -1) {
      if (p->root != -1)
        return fail("fair-share tree has two roots: '" + nodes[p->root].name + "' and '" +
                    nodes[i].name + "'");
      p->root = i;
    } else if (par < 0 || par >= n || par == i) {
      return fail("fair-share tree: node '" + nodes[i].name + "' has a bad parent index " +
                  std::to_string(par));
    } else {
      if (nodes[par].is_user)
        return fail("fair-share tree: user '" + nodes[par].name + "' has a child '" +
                    nodes[i].name + "'");
      all[par].push_back(i);
    }
  }
  if (p->root == -1) return fail("fair-share tree has no root (a node with parent -1)");
  if (nodes[p->root].is_user) return fail("fair-share tree: the root '" + nodes[p->root].name + "' is a user");
  if (!nodes[p->root].active) return fail("fair-share tree: the root '" + nodes[p->root].name + "' is inactive");

  // Every node must be reachable from the root, else it sits on a cycle.
  std::vector<uint8_t> seen(n, 0);
  std::vector<int32_t> bfs{p->root};
  seen[p->root] = 1;
  for (size_t h = 0; h < bfs.size(); ++h)
    for (int32_t c : all[bfs[h]])
      if (!seen[c]) seen[c] = 1, bfs.push_back(c);
  for (int32_t i = 0; i < n; ++i)
    if (!seen[i]) return fail("fair-share tree: node '" + nodes[i].name + "' is on a parent cycle");

  auto by_name = [&](int32_t a, int32_t b) {
    return nodes[a].name != nodes[b].name ? nodes[a].name < nodes[b].name : a < b;
  };
  p->kids.assign(n, {});
  p->kept.assign(n, 0);
  p->kept[p->root] = 1;
  p->order.push_back(p->root);
  for (size_t h = 0; h < p->order.size(); ++h) {
    const int32_t b = p->order[h];
    if (nodes[b].is_user) continue;
    bool has_sub_bank = false;
    for (int32_t c : all[b])
      if (!nodes[c].is_user && nodes[c].active) has_sub_bank = true;
    for (int32_t c : all[b]) {
      if (!nodes[c].active) continue;
      if (nodes[c].is_user && has_sub_bank && drop_users_beside_sub_banks) continue;  // upstream loader
      p->kids[b].push_back(c);
    }
    std::sort(p->kids[b].begin(), p->kids[b].end(), by_name);
    for (int32_t c : p->kids[b]) {
      p->kept[c] = 1;
      p->order.push_back(c);
    }
  }
  return true;
}

// Users' usage as given; banks' = sum over kept users below.
void aggregate_usage(const std::vector<TreeNode>& nodes, const Prepared& p, std::vector<double>* u) {
  u->assign(nodes.size(), 0.0);
  for (int32_t i : p.order)
    if (nodes[i].is_user) (*u)[i] = nodes[i].usage;
  for (size_t k = p.order.size(); k-- > 1;) {
    const int32_t i = p.order[k];
    (*u)[nodes[i].parent] += (*u)[i];
  }
}

struct Walker {
  const std::vector<TreeNode>& nodes;
  const Prepared& p;
  const std::vector<double>& w;
  FairShareResult* out;
  bool round6;
  int64_t rank = 0;
  int64_t stride = 0;

  // Equal-within-epsilon user and bank: the user first; otherwise the raw
  // weight decides, so tied users come out in upstream's order (its own test
  // data puts a weight one ulp larger first: weighted_tree_test01's
  // small_tie).  The order inside a tie never changes a value.
  bool before(int32_t a, int32_t b) const {
    if (nodes[a].is_user != nodes[b].is_user && weights_equal(w[a], w[b])) return nodes[a].is_user;
    if (w[a] != w[b]) return w[a] > w[b];
    return nodes[a].name != nodes[b].name ? nodes[a].name < nodes[b].name : a < b;
  }

  void sort(std::vector<int32_t>* v) const {
    mfprio::stable_order(v->begin(), v->end(), [this](int32_t a, int32_t b) { return before(a, b); });
  }

  void leaf(int32_t u, bool tied_with_next) {
    const double n = static_cast<double>(out->leaf_count);
    const double f = static_cast<double>(rank) / n;
    out->fairshare[u] = round6 ? round_6_decimals(f) : f;
    out->ranked[u] = 1;
    out->order.push_back(u);
    if (tied_with_next) {
      ++stride;
    } else {
      rank -= 1 + stride;
      stride = 0;
    }
  }

  // One step of the walk: a user to rank, or a (possibly virtual) bank: the
  // children of a run of tied sibling banks, merged and sorted.
  struct Step {
    int32_t user = -1;
    bool tie = false;
    std::vector<int32_t> list;
  };

  // A bank's steps in order: its users one by one, each run of tied banks
  // as one merged bank.
  std::vector<Step> steps(const Step& s) const {
    std::vector<Step> out;
    const std::vector<int32_t>& list = s.list;
    size_t i = 0;
    while (i < list.size()) {
      const int32_t c = list[i];
      if (nodes[c].is_user) {
        const bool tie = i + 1 < list.size() && nodes[list[i + 1]].is_user &&
                         weights_equal(w[c], w[list[i + 1]]);
        out.push_back(Step{c, tie, {}});
        ++i;
        continue;
      }
      size_t j = i + 1;
      while (j < list.size() && !nodes[list[j]].is_user && weights_equal(w[list[j - 1]], w[list[j]]))
        ++j;
      Step merged;
      for (size_t k = i; k < j; ++k)
        merged.list.insert(merged.list.end(), p.kids[list[k]].begin(), p.kids[list[k]].end());
      sort(&merged.list);
      out.push_back(std::move(merged));
      i = j;
    }
    return out;
  }

  // `list` is the root's children, already sorted.  Depth first without
  // recursion (tree_walk.hpp): a bank tree may be a chain 10^5 deep.
  void walk(std::vector<int32_t> list) {
    walk_preorder(Step{-1, false, std::move(list)}, [this](const Step& s) { return steps(s); },
                  [this](Step& s) {
                    if (s.user >= 0) leaf(s.user, s.tie);
                  });
  }
};

}  // namespace

bool weights_equal(double a, double b) {
  const double m = std::max({std::fabs(a), std::fabs(b), 1.0});
  return std::fabs(a - b) < DBL_EPSILON * m;
}

double round_6_decimals(double v) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%f", v);
  return std::strtod(buf, nullptr);
}

bool weighted_tree_fairshare(const std::vector<TreeNode>& nodes, const WeightedTreeOptions& opt,
                             FairShareResult* out, std::string* why) {
  Prepared p;
  if (!prepare(nodes, opt.drop_users_beside_sub_banks, &p, why)) return false;
  FairShareResult r;
  const size_t n = nodes.size();
  r.fairshare.assign(n, 0.0);
  r.ranked.assign(n, 0);
  r.weight.assign(n, 0.0);
  aggregate_usage(nodes, p, &r.usage);
  for (int32_t i : p.order)
    if (nodes[i].is_user) ++r.leaf_count;

  // Weights per sibling set (the root has none of its own: weight 0).
  for (int32_t b : p.order) {
    const auto& sib = p.kids[b];
    if (sib.empty()) continue;
    uint64_t s_sum = 0;
    double u_sum = 0.0;
    uint64_t u_sum_trunc = 0;
    for (int32_t c : sib) {
      s_sum += nodes[c].shares;
      u_sum += r.usage[c];
      // upstream: pair<uint64_t,uint64_t> accumulator, truncated per addition
      const double t = static_cast<double>(u_sum_trunc) + r.usage[c];
      u_sum_trunc = t > 0.0 ? static_cast<uint64_t>(t) : 0;
    }
    const double usum = opt.truncate_usage_sums ? static_cast<double>(u_sum_trunc) : u_sum;
    for (int32_t c : sib) {
      double wt;
      if (nodes[c].shares == 0) {
        wt = 0.0;
      } else if (std::fabs(r.usage[c]) < 1e-9) {
        wt = kZeroUsageWeight;
      } else {
        wt = (static_cast<double>(nodes[c].shares) / static_cast<double>(s_sum)) /
             (r.usage[c] / usum);  // usum 0 -> inf -> weight 0, as upstream
      }
      r.weight[c] = wt;
    }
  }

  if (r.leaf_count > 0) {
    Walker wk{nodes, p, r.weight, &r, opt.round_to_6_decimals};
    wk.rank = r.leaf_count;
    std::vector<int32_t> top = p.kids[p.root];
    wk.sort(&top);
    wk.walk(std::move(top));
  }
  *out = std::move(r);
  return true;
}

bool design_fairshare(const std::vector<TreeNode>& nodes, FairShareResult* out, std::string* why) {
  Prepared p;
  if (!prepare(nodes, false, &p, why)) return false;
  FairShareResult r;
  const size_t n = nodes.size();
  r.fairshare.assign(n, 0.0);
  r.ranked.assign(n, 0);
  r.weight.assign(n, 0.0);
  aggregate_usage(nodes, p, &r.usage);
  r.weight[p.root] = 1.0;  // S of the root
  for (int32_t b : p.order) {
    uint64_t s_sum = 0;
    for (int32_t c : p.kids[b]) s_sum += nodes[c].shares;
    for (int32_t c : p.kids[b])
      r.weight[c] = s_sum == 0 ? 0.0
                               : r.weight[b] * static_cast<double>(nodes[c].shares) /
                                     static_cast<double>(s_sum);
  }
  const double root_usage = r.usage[p.root];
  for (int32_t i : p.order) {
    if (!nodes[i].is_user) continue;
    ++r.leaf_count;
    const double S = r.weight[i];
    const double U = root_usage > 0.0 ? r.usage[i] / root_usage : 0.0;
    r.fairshare[i] = S > 0.0 ? std::exp2(-U / S) : 0.0;
    r.ranked[i] = 1;
    r.order.push_back(i);
  }
  *out = std::move(r);
  return true;
}

}  // namespace mfprio::flux
