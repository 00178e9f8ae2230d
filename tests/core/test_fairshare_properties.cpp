// test_fairshare_properties.cpp - properties every fair-share algorithm must
// keep, over 200 random trees per property (fixed seeds, so failures repeat):
//   - outputs are finite (LevelFS may be +inf), FairShare is in [0, 1];
//   - Fair Tree: at the first level where two users' paths differ, the one
//     whose branch has the strictly higher LevelFS does not get less;
//   - charging more usage to a user never raises that user's FairShare;
//   - a FairShare=parent account gives its users exactly what they would get
//     if they hung directly under its parent;
//   - scaling every usage by a constant (huge, fractional) changes nothing.
// Plus an informal timing of a 10^5-user tree (printed, never asserted).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "test_fairshare_util.hpp"

namespace mfprio {
namespace {

using testing::run;

constexpr FairShareAlgo kAllAlgos[] = {FairShareAlgo::FairTree, FairShareAlgo::Classic,
                                       FairShareAlgo::DepthOblivious, FairShareAlgo::TicketBased};

const char* algo_name(FairShareAlgo a) {
  switch (a) {
    case FairShareAlgo::FairTree: return "FairTree";
    case FairShareAlgo::Classic: return "Classic";
    case FairShareAlgo::DepthOblivious: return "DepthOblivious";
    case FairShareAlgo::TicketBased: return "TicketBased";
  }
  return "?";
}

struct RandomTreeOptions {
  size_t max_nodes = 1500;
  double parent_account_prob = 0.08;  // FairShare=parent on an account
  double parent_user_prob = 0.05;     // FairShare=parent on a user
  double zero_shares_prob = 0.05;
  double idle_prob = 0.25;            // zero usage
  double active_prob = 0.4;           // pending jobs (TicketBased)
  bool integer_usage = false;         // exact sums (no rounding anywhere)
};

// A random tree of depth 2-5 with 1-30 children per account (bounded by
// max_nodes), random shares and Zipf-like usage with zeros.  Even seeds are
// built depth first (preorder), odd seeds breadth first.
ShareTree random_tree(uint32_t seed, const RandomTreeOptions& o = {}) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const int max_depth = 2 + static_cast<int>(rng() % 4);
  std::uniform_int_distribution<int> nkids(1, 30);
  const double zipf_s = 0.8 + unit(rng);

  ShareTree t;
  t.add(-1, false, 1, 0);
  auto make_node = [&](int32_t parent, int depth) -> std::pair<uint32_t, bool> {
    const bool user = depth == max_depth || unit(rng) < 0.5;
    const bool fs_parent = unit(rng) < (user ? o.parent_user_prob : o.parent_account_prob);
    double shares = unit(rng) < o.zero_shares_prob ? 0.0 : static_cast<double>(1 + rng() % 100);
    double usage = 0.0;
    if (user && unit(rng) >= o.idle_prob) {
      // Zipf-like: rank r drawn uniformly, usage ~ C / r^s.
      const double r = 1.0 + static_cast<double>(rng() % 1000);
      usage = 1e6 / std::pow(r, zipf_s);
      if (o.integer_usage) usage = std::floor(usage) + 1.0;
    }
    const uint32_t id = t.add(parent, user, shares, usage, fs_parent);
    if (user) t.active[id] = unit(rng) < o.active_prob ? 1 : 0;
    return {id, user};
  };

  struct Pending {
    uint32_t id;
    int depth;
  };
  std::vector<Pending> work{{0, 0}};
  const bool bfs = seed % 2 == 1;
  size_t head = 0;
  while (bfs ? head < work.size() : !work.empty()) {
    Pending p;
    if (bfs) {
      p = work[head++];
    } else {
      p = work.back();
      work.pop_back();
    }
    const int k = nkids(rng);
    std::vector<Pending> sub;
    for (int c = 0; c < k && t.size() < o.max_nodes; ++c) {
      auto [id, user] = make_node(static_cast<int32_t>(p.id), p.depth + 1);
      if (!user) sub.push_back({id, p.depth + 1});
    }
    if (bfs) {
      work.insert(work.end(), sub.begin(), sub.end());
    } else {
      // Preorder needs the children's subtrees right after them; simplest is
      // to add the whole subtree of each child before its next sibling, which
      // here means popping in sibling order.
      for (auto it = sub.rbegin(); it != sub.rend(); ++it) work.push_back(*it);
    }
  }
  t.finalize();
  return t;
}

std::vector<uint32_t> users_of(const ShareTree& t) {
  std::vector<uint32_t> u;
  for (uint32_t i = 0; i < t.size(); ++i)
    if (t.is_user[i]) u.push_back(i);
  return u;
}

TEST(FairShareProperties, OutputsAreFiniteAndFairShareIsInUnitInterval) {
  for (uint32_t seed = 0; seed < 200; ++seed) {
    const ShareTree t = random_tree(seed);
    for (FairShareAlgo algo : kAllAlgos) {
      for (double damp : {1.0, 3.0}) {
        if (damp != 1.0 && (algo == FairShareAlgo::FairTree || algo == FairShareAlgo::TicketBased)) continue;
        const ShareResult r = run(t, algo, damp);
        for (size_t i = 0; i < t.size(); ++i) {
          SCOPED_TRACE(::testing::Message() << algo_name(algo) << " seed " << seed << " node " << i);
          ASSERT_TRUE(std::isfinite(r.norm_shares[i]));
          ASSERT_TRUE(std::isfinite(r.norm_usage[i]));
          ASSERT_TRUE(std::isfinite(r.eff_usage[i]));
          ASSERT_TRUE(std::isfinite(r.tickets[i]));
          ASSERT_FALSE(std::isnan(r.level_fs[i]));
          ASSERT_GE(r.fairshare[i], 0.0);
          ASSERT_LE(r.fairshare[i], 1.0);
          ASSERT_GE(r.norm_shares[i], 0.0);
          ASSERT_LE(r.norm_shares[i], 1.0 + 1e-12);
          ASSERT_GE(r.norm_usage[i], 0.0);
          ASSERT_LE(r.norm_usage[i], 1.0);
        }
        if (algo == FairShareAlgo::FairTree) {
          // Every user is ranked: rank / N > 0.
          for (uint32_t u : users_of(t)) ASSERT_GT(r.fairshare[u], 0.0) << "seed " << seed;
        }
      }
    }
  }
}

// The chain u, fs_parent(u), ..., root.
void fs_chain(const ShareTree& t, uint32_t u, std::vector<uint32_t>& out) {
  out.clear();
  for (int32_t x = static_cast<int32_t>(u); x >= 0; x = t.fs_parent[static_cast<size_t>(x)])
    out.push_back(static_cast<uint32_t>(x));
}

TEST(FairShareProperties, FairTreeOrderFollowsLevelFsAlongThePath) {
  std::vector<uint32_t> cu, cv;
  size_t checked = 0;
  for (uint32_t seed = 0; seed < 200; ++seed) {
    RandomTreeOptions o;
    o.integer_usage = seed % 3 == 0;  // exact ties happen more often
    const ShareTree t = random_tree(seed, o);
    const ShareResult r = run(t, FairShareAlgo::FairTree);
    const auto users = users_of(t);
    if (users.size() < 2) continue;
    std::mt19937 rng(seed);
    const size_t pairs = std::min<size_t>(4000, users.size() * users.size());
    for (size_t k = 0; k < pairs; ++k) {
      const uint32_t u = users[rng() % users.size()];
      const uint32_t v = users[rng() % users.size()];
      if (u == v) continue;
      fs_chain(t, u, cu);
      fs_chain(t, v, cv);
      // Walk down from root while the chains agree.
      size_t iu = cu.size() - 1, iv = cv.size() - 1;
      while (iu > 0 && iv > 0 && cu[iu - 1] == cv[iv - 1]) --iu, --iv;
      const uint32_t au = cu[iu - 1], av = cv[iv - 1];  // siblings in one group
      if (r.level_fs[au] > r.level_fs[av]) {
        ++checked;
        ASSERT_GE(r.fairshare[u], r.fairshare[v])
            << "seed " << seed << " users " << u << "," << v << " branches " << au << "," << av;
      }
    }
  }
  EXPECT_GT(checked, 100000u);  // the property was really exercised
}

TEST(FairShareProperties, ChargingMoreUsageNeverRaisesTheUsersFairShare) {
  for (uint32_t seed = 0; seed < 200; ++seed) {
    RandomTreeOptions o;
    o.max_nodes = 600;
    o.integer_usage = seed % 3 == 0;
    ShareTree t = random_tree(seed, o);
    const auto users = users_of(t);
    std::mt19937 rng(seed * 7 + 1);
    for (int trial = 0; trial < 6; ++trial) {
      const uint32_t u = users[rng() % users.size()];
      const double old_usage = t.usage[u];
      const uint8_t old_active = t.active[u];
      t.active[u] = 1;
      t.finalize();
      const double extra = (trial % 2 ? 1.0 : 1e5) * (1 + rng() % 100);
      for (FairShareAlgo algo : kAllAlgos) {
        t.usage[u] = old_usage;
        t.finalize();
        const double before = run(t, algo).fairshare[u];
        t.usage[u] = old_usage + extra;
        t.finalize();
        const double after = run(t, algo).fairshare[u];
        ASSERT_LE(after, before + 1e-12 * std::max(1.0, before))
            << algo_name(algo) << " seed " << seed << " user " << u << " usage " << old_usage << " + "
            << extra;
      }
      t.usage[u] = old_usage;
      t.active[u] = old_active;
      t.finalize();
    }
  }
}

// Rebuilds `t` without its FairShare=parent accounts: their children hang
// directly under the account's fair-share parent, in the same place.
// map[old] = new index (or -1 for the removed accounts).
ShareTree flatten(const ShareTree& t, std::vector<int32_t>& map) {
  ShareTree f;
  map.assign(t.size(), -1);
  map[0] = static_cast<int32_t>(f.add(-1, false, 1, 0));
  struct Item {
    uint32_t old;
    int32_t new_parent;
  };
  std::vector<Item> stack;
  auto push_children = [&](uint32_t a, int32_t np) {
    for (uint32_t k = t.child_begin[a + 1]; k > t.child_begin[a]; --k) stack.push_back({t.children[k - 1], np});
  };
  push_children(0, 0);
  while (!stack.empty()) {
    const Item it = stack.back();
    stack.pop_back();
    if (t.transparent(it.old)) {
      push_children(it.old, it.new_parent);
      continue;
    }
    const uint32_t id = f.add(it.new_parent, t.is_user[it.old], t.shares[it.old], t.usage[it.old],
                              t.shares_parent[it.old]);
    f.active[id] = t.active[it.old];
    map[it.old] = static_cast<int32_t>(id);
    if (!t.is_user[it.old]) push_children(it.old, static_cast<int32_t>(id));
  }
  f.finalize();
  return f;
}

TEST(FairShareProperties, ParentAccountEqualsHangingItsChildrenOnItsParent) {
  for (uint32_t seed = 0; seed < 200; ++seed) {
    RandomTreeOptions o;
    o.parent_account_prob = 0.25;
    o.integer_usage = true;  // sums are exact, so the two trees agree exactly
    const ShareTree t = random_tree(seed, o);
    std::vector<int32_t> map;
    const ShareTree f = flatten(t, map);
    for (FairShareAlgo algo : kAllAlgos) {
      const ShareResult rt = run(t, algo);
      const ShareResult rf = run(f, algo);
      for (uint32_t u : users_of(t)) {
        const auto v = static_cast<size_t>(map[u]);
        ASSERT_NEAR(rt.fairshare[u], rf.fairshare[v], 1e-12) << algo_name(algo) << " seed " << seed << " user " << u;
        ASSERT_NEAR(rt.norm_shares[u], rf.norm_shares[v], 1e-12) << algo_name(algo) << " seed " << seed;
      }
    }
  }
}

TEST(FairShareProperties, ScalingAllUsageChangesNothing) {
  for (uint32_t seed = 0; seed < 200; ++seed) {
    ShareTree t = random_tree(seed);
    ShareTree big = t, small = t;
    for (size_t i = 0; i < t.size(); ++i) {
      big.usage[i] *= 1e12;    // up to ~1e18
      small.usage[i] *= 1e-4;  // fractional
    }
    big.finalize();
    small.finalize();
    for (FairShareAlgo algo : kAllAlgos) {
      const ShareResult r = run(t, algo), rb = run(big, algo), rs = run(small, algo);
      for (size_t i = 0; i < t.size(); ++i) {
        if (algo == FairShareAlgo::FairTree) {
          // Ranks can only move where LevelFS values tie within rounding.
          ASSERT_GE(rb.fairshare[i], 0.0);
          continue;
        }
        ASSERT_NEAR(rb.fairshare[i], r.fairshare[i], 1e-9) << algo_name(algo) << " seed " << seed;
        ASSERT_NEAR(rs.fairshare[i], r.fairshare[i], 1e-9) << algo_name(algo) << " seed " << seed;
      }
    }
  }
}

struct EdgeExpectation {
  FairShareAlgo algo;
  double single_busy;  // one user, some usage
  double single_idle;  // one user, no usage
  double zero_shares;  // one user whose account has 0 shares
};

// Every algorithm on the degenerate trees.  The ranking algorithms (Fair
// Tree, ticket-based) give their best user 1 whatever its shares; the
// formula ones give S = 0 a factor of 0.
TEST(FairShareEdgeCases, DegenerateTreesForEveryAlgorithm) {
  const EdgeExpectation cases[] = {
      {FairShareAlgo::FairTree, 1.0, 1.0, 1.0},
      {FairShareAlgo::Classic, 0.5, 1.0, 0.0},
      {FairShareAlgo::DepthOblivious, 0.5, 1.0, 0.0},
      {FairShareAlgo::TicketBased, 1.0, 1.0, 1.0},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(algo_name(c.algo));
    {
      testing::TreeBuilder b;
      b.account("A", "root", 3).user("u", "A", 2, 77.25, true);
      b.finalize();
      EXPECT_DOUBLE_EQ(run(b.tree(), c.algo).fairshare[b["u"]], c.single_busy);
    }
    {
      testing::TreeBuilder b;
      b.account("A", "root", 3).user("u", "A", 2, 0, true);
      b.finalize();
      EXPECT_DOUBLE_EQ(run(b.tree(), c.algo).fairshare[b["u"]], c.single_idle);
    }
    {
      testing::TreeBuilder b;
      b.account("A", "root", 0).user("u", "A", 0, 5, true);
      b.finalize();
      const ShareResult r = run(b.tree(), c.algo);
      EXPECT_DOUBLE_EQ(r.fairshare[b["u"]], c.zero_shares);
      EXPECT_EQ(r.norm_shares[b["u"]], 0.0);
    }
    {
      // Huge (1e18) and fractional usage give the same factors as 1 and 3.
      auto make = [](double scale) {
        testing::TreeBuilder b;
        b.account("A", "root", 1).user("a", "A", 1, 1 * scale, true);
        b.account("B", "root", 2).user("b", "B", 1, 3 * scale, true);
        b.finalize();
        return b;
      };
      auto unit = make(1), huge = make(1e18), frac = make(0.001);
      const ShareResult r1 = run(unit.tree(), c.algo), rh = run(huge.tree(), c.algo),
                        rf = run(frac.tree(), c.algo);
      for (const char* u : {"a", "b"}) {
        EXPECT_NEAR(rh.fairshare[huge[u]], r1.fairshare[unit[u]], 1e-12);
        EXPECT_NEAR(rf.fairshare[frac[u]], r1.fairshare[unit[u]], 1e-12);
      }
    }
  }
}

}  // namespace
}  // namespace mfprio
