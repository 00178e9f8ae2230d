// Golden tests of flux_fairshare: flux-accounting's weighted tree walk
// (flux-accounting weighted_tree.cpp) and the design-mode factor.
#include <gtest/gtest.h>

#include <map>

#include "flux_fairshare.hpp"

namespace mfprio::flux {
namespace {

// Builds a tree by names: bank("A", "root", shares), user("a1", "A", shares, usage).
struct TreeBuilder {
  std::vector<TreeNode> nodes;
  std::map<std::string, int32_t> index;
  TreeBuilder() { add("root", -1, false, 1, 0); }
  int32_t add(const std::string& name, int32_t parent, bool user, uint64_t shares, double usage) {
    TreeNode n;
    n.name = name;
    n.parent = parent;
    n.is_user = user;
    n.shares = shares;
    n.usage = usage;
    nodes.push_back(n);
    return index[name] = static_cast<int32_t>(nodes.size() - 1);
  }
  TreeBuilder& bank(const std::string& name, const std::string& parent, uint64_t shares = 1) {
    add(name, index.at(parent), false, shares, 0);
    return *this;
  }
  TreeBuilder& user(const std::string& name, const std::string& parent, uint64_t shares, double usage) {
    add(name, index.at(parent), true, shares, usage);
    return *this;
  }
  FairShareResult run(WeightedTreeOptions opt = {}) const {
    FairShareResult r;
    std::string why;
    EXPECT_TRUE(weighted_tree_fairshare(nodes, opt, &r, &why)) << why;
    return r;
  }
  double fs(const FairShareResult& r, const std::string& name) const {
    const int32_t i = index.at(name);
    EXPECT_TRUE(r.ranked[i]) << name << " was not ranked";
    return r.fairshare[i];
  }
};

TEST(FluxWeightedTree, TiedUsersShareARankAndTheNextDropsByTheirCount) {
  TreeBuilder t;
  t.bank("A", "root").user("u1", "A", 1, 10).user("u2", "A", 1, 10).user("u3", "A", 1, 20);
  const auto r = t.run();
  EXPECT_EQ(r.leaf_count, 3);
  EXPECT_NEAR(t.fs(r, "u1"), 1.0, 1e-6);
  EXPECT_NEAR(t.fs(r, "u2"), 1.0, 1e-6);
  EXPECT_NEAR(t.fs(r, "u3"), 0.333333, 1e-6);
}

TEST(FluxWeightedTree, TiedBanksAreMergedSoTheirUsersCompeteDirectly) {
  // A and B: same shares, same usage (40 each) -> equal weights -> one virtual
  // bank.  Their users' weights (computed within A and within B): a1 2,
  // b1 1, b2 1, a2 2/3.  C (usage 60) comes after.
  TreeBuilder t;
  t.bank("A", "root").bank("B", "root").bank("C", "root");
  t.user("a1", "A", 1, 10).user("a2", "A", 1, 30);
  t.user("b1", "B", 1, 20).user("b2", "B", 1, 20);
  t.user("c1", "C", 1, 60);
  const auto r = t.run();
  EXPECT_NEAR(t.fs(r, "a1"), 1.0, 1e-6);
  EXPECT_NEAR(t.fs(r, "b1"), 0.8, 1e-6);
  EXPECT_NEAR(t.fs(r, "b2"), 0.8, 1e-6);
  EXPECT_NEAR(t.fs(r, "a2"), 0.4, 1e-6);
  EXPECT_NEAR(t.fs(r, "c1"), 0.2, 1e-6);
  EXPECT_NEAR(r.weight[t.index.at("A")], (1.0 / 3) / (40.0 / 140), 1e-12);
  EXPECT_NEAR(r.weight[t.index.at("a1")], 2.0, 1e-12);
}

TEST(FluxWeightedTree, ZeroUsageFirstZeroSharesLast) {
  TreeBuilder t;
  t.bank("A", "root").user("busy", "A", 1, 100).user("idle", "A", 1, 0).user("noshare", "A", 0, 0);
  const auto r = t.run();
  EXPECT_DOUBLE_EQ(t.fs(r, "idle"), 1.0);
  EXPECT_DOUBLE_EQ(t.fs(r, "busy"), 0.666667);  // 2/3 through std::to_string
  EXPECT_DOUBLE_EQ(t.fs(r, "noshare"), 0.333333);
  EXPECT_DOUBLE_EQ(r.weight[t.index.at("idle")], 18446744073709551616.0);
  EXPECT_DOUBLE_EQ(r.weight[t.index.at("noshare")], 0.0);
}

TEST(FluxWeightedTree, WithoutSixDecimalRoundingTheExactRatio) {
  TreeBuilder t;
  t.bank("A", "root").user("busy", "A", 1, 100).user("idle", "A", 1, 0).user("noshare", "A", 0, 0);
  WeightedTreeOptions opt;
  opt.round_to_6_decimals = false;
  const auto r = t.run(opt);
  EXPECT_DOUBLE_EQ(t.fs(r, "busy"), 2.0 / 3.0);
}

TEST(FluxWeightedTree, TwoZeroUsageUsersTie) {
  TreeBuilder t;
  t.bank("A", "root").user("x", "A", 1, 0).user("y", "A", 5, 0).user("z", "A", 1, 1);
  const auto r = t.run();
  EXPECT_DOUBLE_EQ(t.fs(r, "x"), 1.0);
  EXPECT_DOUBLE_EQ(t.fs(r, "y"), 1.0);  // 2^64 both, whatever the shares
  EXPECT_DOUBLE_EQ(t.fs(r, "z"), 0.333333);
}

TEST(FluxWeightedTree, UserSortsBeforeBankOfEqualWeight) {
  // Reachable only when users beside sub-banks are kept (upstream's loader
  // drops them, see BankWithSubBanksIgnoresItsOwnUsers).
  TreeBuilder t;
  t.user("r1", "root", 1, 10).bank("B", "root").user("b1", "B", 1, 10);
  WeightedTreeOptions opt;
  opt.drop_users_beside_sub_banks = false;
  const auto r = t.run(opt);
  EXPECT_DOUBLE_EQ(t.fs(r, "r1"), 1.0);
  EXPECT_DOUBLE_EQ(t.fs(r, "b1"), 0.5);
  const auto dropped = t.run();
  EXPECT_EQ(dropped.leaf_count, 1);
  EXPECT_FALSE(dropped.ranked[t.index.at("r1")]);
  EXPECT_DOUBLE_EQ(t.fs(dropped, "b1"), 1.0);
}

TEST(FluxWeightedTree, BankWithSubBanksIgnoresItsOwnUsers) {
  TreeBuilder t;
  t.bank("A", "root").bank("A1", "A").user("x", "A1", 1, 5).user("y", "A", 1, 5);
  const auto r = t.run();
  EXPECT_EQ(r.leaf_count, 1);
  EXPECT_DOUBLE_EQ(t.fs(r, "x"), 1.0);
  EXPECT_FALSE(r.ranked[t.index.at("y")]);
}

TEST(FluxWeightedTree, InactiveAssociationsAreLeftOut) {
  TreeBuilder t;
  t.bank("A", "root").user("x", "A", 1, 5).user("gone", "A", 1, 0);
  t.nodes[t.index.at("gone")].active = false;
  const auto r = t.run();
  EXPECT_EQ(r.leaf_count, 1);
  EXPECT_DOUBLE_EQ(t.fs(r, "x"), 1.0);
  EXPECT_FALSE(r.ranked[t.index.at("gone")]);
}

TEST(FluxWeightedTree, BankUsageIsTheSumOfItsUsers) {
  TreeBuilder t;
  t.bank("A", "root").bank("A1", "A").user("x", "A1", 1, 5).user("y", "A1", 1, 7.5);
  const auto r = t.run();
  EXPECT_DOUBLE_EQ(r.usage[t.index.at("A1")], 12.5);
  EXPECT_DOUBLE_EQ(r.usage[t.index.at("A")], 12.5);
  EXPECT_DOUBLE_EQ(r.usage[0], 12.5);
}

TEST(FluxWeightedTree, TruncatedUsageSumsAsUpstreamChangeTiedBanksUsers) {
  // A, B tied (usage 2 each).  Exact sums: a1 2, b1 = b2 = 1, a2 2/3.
  // Upstream's uint64 accumulator makes A's u_sum trunc(trunc(0.5)+1.5) = 1,
  // so a1 = 0.5/(0.5/1) = 1 and ties b1 and b2 (u_sum 2).
  TreeBuilder t;
  t.bank("A", "root").bank("B", "root");
  t.user("a1", "A", 1, 0.5).user("a2", "A", 1, 1.5);
  t.user("b1", "B", 1, 1.0).user("b2", "B", 1, 1.0);
  const auto exact = t.run();
  EXPECT_DOUBLE_EQ(t.fs(exact, "a1"), 1.0);
  EXPECT_DOUBLE_EQ(t.fs(exact, "b1"), 0.75);
  EXPECT_DOUBLE_EQ(t.fs(exact, "b2"), 0.75);
  EXPECT_DOUBLE_EQ(t.fs(exact, "a2"), 0.25);
  WeightedTreeOptions opt;
  opt.truncate_usage_sums = true;
  const auto trunc = t.run(opt);
  EXPECT_DOUBLE_EQ(t.fs(trunc, "a1"), 1.0);
  EXPECT_DOUBLE_EQ(t.fs(trunc, "b1"), 1.0);
  EXPECT_DOUBLE_EQ(t.fs(trunc, "b2"), 1.0);
  EXPECT_DOUBLE_EQ(t.fs(trunc, "a2"), 0.25);
}

TEST(FluxWeightedTree, InputOrderDoesNotMatter) {
  TreeBuilder t;
  t.bank("A", "root").bank("B", "root").user("a1", "A", 1, 10).user("b1", "B", 3, 10).user("a2", "A", 2, 1);
  // Same tree with the vector reversed (parents re-indexed).
  std::vector<TreeNode> rev(t.nodes.rbegin(), t.nodes.rend());
  const int32_t n = static_cast<int32_t>(rev.size());
  for (auto& x : rev)
    if (x.parent >= 0) x.parent = n - 1 - x.parent;
  FairShareResult a = t.run(), b;
  std::string why;
  ASSERT_TRUE(weighted_tree_fairshare(rev, {}, &b, &why)) << why;
  for (int32_t i = 0; i < n; ++i) EXPECT_DOUBLE_EQ(a.fairshare[i], b.fairshare[n - 1 - i]);
}

TEST(FluxWeightedTree, MalformedTreesAreRefused) {
  std::string why;
  FairShareResult r;
  std::vector<TreeNode> two_roots(2);
  two_roots[0].name = "r1";
  two_roots[1].name = "r2";
  EXPECT_FALSE(weighted_tree_fairshare(two_roots, {}, &r, &why));
  EXPECT_NE(why.find("two roots"), std::string::npos) << why;

  TreeBuilder t;
  t.bank("A", "root").user("u", "A", 1, 0);
  auto cyc = t.nodes;
  cyc[t.index.at("A")].parent = t.index.at("A") + 1;  // A under u: u is a user
  EXPECT_FALSE(weighted_tree_fairshare(cyc, {}, &r, &why));
  auto bad = t.nodes;
  bad[t.index.at("u")].parent = 99;
  EXPECT_FALSE(weighted_tree_fairshare(bad, {}, &r, &why));
  EXPECT_NE(why.find("bad parent"), std::string::npos) << why;
  TreeBuilder c;
  c.bank("X", "root").bank("Y", "X");
  c.nodes[c.index.at("X")].parent = c.index.at("Y");
  EXPECT_FALSE(weighted_tree_fairshare(c.nodes, {}, &r, &why));
  EXPECT_NE(why.find("cycle"), std::string::npos) << why;
}

// ---- flux-accounting's own weighted-tree test data
// (src/fairness/weighted_tree/test/accounts_data/*.csv: level, bank, user,
// shares, usage; the expected orders are those of weighted_tree_test01.cpp).
// Bank usage in those files equals the sum of their users', as we compute it.

struct Row {
  const char* bank;
  const char* user;  // nullptr for a bank row
  uint64_t shares;
  double usage;
};

std::vector<std::string> upstream_order(const std::vector<Row>& rows, bool keep_users_beside_banks,
                                        std::map<std::string, double>* values = nullptr) {
  TreeBuilder t;  // "root" exists; rows name banks under root or users under banks
  for (const Row& r : rows) {
    if (std::string(r.bank) == "root" && !r.user) continue;
    if (!r.user)
      t.bank(r.bank, "root", r.shares);
    else
      t.user(r.user, r.bank, r.shares, r.usage);
  }
  WeightedTreeOptions opt;
  opt.drop_users_beside_sub_banks = !keep_users_beside_banks;
  const auto res = t.run(opt);
  std::vector<std::string> names;
  for (int32_t i : res.order) names.push_back(t.nodes[i].name);
  if (values)
    for (int32_t i : res.order) (*values)[t.nodes[i].name] = res.fairshare[i];
  // The order must also be the fair-share order (non-increasing values).
  for (size_t k = 1; k < res.order.size(); ++k)
    EXPECT_GE(res.fairshare[res.order[k - 1]], res.fairshare[res.order[k]]);
  return names;
}

using Names = std::vector<std::string>;

TEST(FluxWeightedTreeUpstream, SmallNoTie) {
  const std::vector<Row> rows = {
      {"account1", nullptr, 1000, 121}, {"account1", "leaf.1.1", 10000, 100},
      {"account1", "leaf.1.2", 1000, 11}, {"account1", "leaf.1.3", 100000, 10},
      {"account2", nullptr, 100, 11},    {"account2", "leaf.2.1", 100000, 8},
      {"account2", "leaf.2.2", 10000, 3}, {"account3", nullptr, 10, 1},
      {"account3", "leaf.3.1", 100, 0},  {"account3", "leaf.3.2", 10, 1}};
  EXPECT_EQ(upstream_order(rows, false),
            (Names{"leaf.3.1", "leaf.3.2", "leaf.2.1", "leaf.2.2", "leaf.1.3", "leaf.1.1", "leaf.1.2"}));
}

TEST(FluxWeightedTreeUpstream, SmallTieMergesAccounts1And2) {
  const std::vector<Row> rows = {
      {"account1", nullptr, 1000, 120}, {"account1", "leaf.1.1", 10000, 100},
      {"account1", "leaf.1.2", 1000, 10}, {"account1", "leaf.1.3", 100000, 10},
      {"account2", nullptr, 100, 12},    {"account2", "leaf.2.1", 10000, 10},
      {"account2", "leaf.2.2", 1000, 1}, {"account2", "leaf.2.3", 100000, 1},
      {"account3", nullptr, 10, 1},      {"account3", "leaf.3.1", 100, 0},
      {"account3", "leaf.3.2", 10, 1}};
  std::map<std::string, double> fs;
  EXPECT_EQ(upstream_order(rows, false, &fs), (Names{"leaf.3.1", "leaf.3.2", "leaf.1.3", "leaf.2.3", "leaf.1.2",
                                                     "leaf.2.2", "leaf.1.1", "leaf.2.1"}));
  // N = 8: zero usage first; 1.3/2.3 tie at rank 6; the last four tie at 4.
  EXPECT_DOUBLE_EQ(fs["leaf.3.1"], 1.0);
  EXPECT_DOUBLE_EQ(fs["leaf.3.2"], 0.875);
  EXPECT_DOUBLE_EQ(fs["leaf.1.3"], 0.75);
  EXPECT_DOUBLE_EQ(fs["leaf.2.3"], 0.75);
  for (const char* u : {"leaf.1.2", "leaf.2.2", "leaf.1.1", "leaf.2.1"}) EXPECT_DOUBLE_EQ(fs[u], 0.5) << u;
}

TEST(FluxWeightedTreeUpstream, SmallTieDiffTypeUserBeforeBank) {
  const std::vector<Row> rows = {
      {"root", "leaf.0.1", 100, 12},     {"account1", nullptr, 1000, 120},
      {"account1", "leaf.1.1", 10000, 100}, {"account1", "leaf.1.2", 1000, 10},
      {"account1", "leaf.1.3", 100000, 10}, {"account3", nullptr, 10, 1},
      {"account3", "leaf.3.1", 100, 0},  {"account3", "leaf.3.2", 10, 1}};
  EXPECT_EQ(upstream_order(rows, true),
            (Names{"leaf.3.1", "leaf.3.2", "leaf.0.1", "leaf.1.3", "leaf.1.2", "leaf.1.1"}));
}

TEST(FluxWeightedTreeUpstream, SmallTieAllThreeAccountsMerged) {
  const std::vector<Row> rows = {
      {"account1", nullptr, 1000, 120},     {"account1", "leaf.1.1", 10000, 100},
      {"account1", "leaf.1.2", 1000, 10},   {"account1", "leaf.1.3", 100000, 10},
      {"account2", nullptr, 100, 12},        {"account2", "leaf.2.1", 10000, 10},
      {"account2", "leaf.2.2", 1000, 1},    {"account2", "leaf.2.3", 100000, 1},
      {"account3", nullptr, 10000, 1200},    {"account3", "leaf.3.1", 10000, 1000},
      {"account3", "leaf.3.2", 1000, 100},  {"account3", "leaf.3.3", 100000, 100}};
  EXPECT_EQ(upstream_order(rows, false), (Names{"leaf.1.3", "leaf.2.3", "leaf.3.3", "leaf.1.2", "leaf.2.2",
                                                "leaf.3.2", "leaf.1.1", "leaf.2.1", "leaf.3.1"}));
}

TEST(FluxWeightedTreeUpstream, SmallZeroSharesLast) {
  const std::vector<Row> rows = {
      {"account1", nullptr, 1000, 120}, {"account1", "leaf.1.1", 10000, 100},
      {"account1", "leaf.1.2", 1000, 10}, {"account1", "leaf.1.3", 100000, 10},
      {"account2", nullptr, 100, 12},    {"account2", "leaf.2.1", 0, 10},
      {"account2", "leaf.2.2", 0, 1},    {"account2", "leaf.2.3", 100000, 1},
      {"account3", nullptr, 10, 1},      {"account3", "leaf.3.1", 100, 0},
      {"account3", "leaf.3.2", 10, 1}};
  EXPECT_EQ(upstream_order(rows, false), (Names{"leaf.3.1", "leaf.3.2", "leaf.2.3", "leaf.1.3", "leaf.1.2",
                                                "leaf.1.1", "leaf.2.1", "leaf.2.2"}));
}

// ---- design-mode fair share: F = 2^(-U/S)

TEST(FluxDesignFairShare, ExactlyServedIsHalfIdleIsOneNoSharesIsZero) {
  TreeBuilder t;
  t.bank("A", "root").bank("B", "root");
  t.user("a", "A", 1, 50).user("b", "B", 1, 50).user("c", "B", 0, 0);
  FairShareResult r;
  std::string why;
  ASSERT_TRUE(design_fairshare(t.nodes, &r, &why)) << why;
  EXPECT_NEAR(r.fairshare[t.index.at("a")], 0.5, 1e-6);
  EXPECT_NEAR(r.fairshare[t.index.at("b")], 0.5, 1e-6);
  EXPECT_NEAR(r.fairshare[t.index.at("c")], 0.0, 1e-6);
}

TEST(FluxDesignFairShare, UnderServedAboveHalfOverServedBelow) {
  TreeBuilder t;
  t.bank("A", "root").user("a", "A", 1, 0).user("b", "A", 1, 100);
  FairShareResult r;
  ASSERT_TRUE(design_fairshare(t.nodes, &r, nullptr));
  EXPECT_NEAR(r.fairshare[t.index.at("a")], 1.0, 1e-6);   // no usage
  EXPECT_NEAR(r.fairshare[t.index.at("b")], 0.25, 1e-6);  // U 1, S 0.5: 2^-2
  EXPECT_NEAR(r.weight[t.index.at("b")], 0.5, 1e-12);
}

}  // namespace
}  // namespace mfprio::flux
