// test_share_tree.cpp - ShareTree::finalize (children, usage sums, the
// FairShare=parent structure, invariant checks) and compute_fair_share's
// argument checks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "test_fairshare_util.hpp"

namespace mfprio {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::TreeBuilder;

std::vector<uint32_t> children_of(const ShareTree& t, uint32_t a) {
  return {t.children.begin() + t.child_begin[a], t.children.begin() + t.child_begin[a + 1]};
}
std::vector<uint32_t> group_of(const ShareTree& t, uint32_t a) {
  return {t.group.begin() + t.group_begin[a], t.group.begin() + t.group_begin[a + 1]};
}

// Runs finalize() and returns the exception message ("" when none).
std::string finalize_error(ShareTree& t) {
  try {
    t.finalize();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(ShareTree, FinalizeSumsUsageUpTheTreeAndIgnoresAccountUsage) {
  ShareTree t;
  t.add(-1, false, 1, 999);        // 0 root (usage ignored)
  t.add(0, false, 1, 12345);       // 1 A (usage ignored)
  t.add(1, true, 1, 2.5);          // 2
  t.add(1, true, 1, 0.5);          // 3
  t.add(0, true, 1, 7);            // 4
  t.add(1, false, 1, 3);           // 5 empty account
  t.finalize();
  EXPECT_EQ(t.usage[1], 3.0);
  EXPECT_EQ(t.usage[5], 0.0);
  EXPECT_EQ(t.usage[0], 10.0);
  EXPECT_THAT(children_of(t, 0), ElementsAre(1, 4));
  EXPECT_THAT(children_of(t, 1), ElementsAre(2, 3, 5));
  EXPECT_TRUE(children_of(t, 2).empty());
  EXPECT_TRUE(t.finalized());
  // finalize() is repeatable: charging more and finalizing again re-sums.
  t.usage[2] += 1;
  t.finalize();
  EXPECT_EQ(t.usage[0], 11.0);
}

TEST(ShareTree, BreadthFirstOrderWorksToo) {
  ShareTree t;
  t.add(-1, false, 1, 0);  // 0
  t.add(0, false, 1, 0);   // 1 A
  t.add(0, false, 1, 0);   // 2 B
  t.add(1, true, 1, 4);    // 3 under A
  t.add(2, true, 1, 6);    // 4 under B
  t.add(1, true, 1, 1);    // 5 under A
  t.finalize();
  EXPECT_THAT(children_of(t, 1), ElementsAre(3, 5));
  EXPECT_EQ(t.usage[1], 5.0);
  EXPECT_EQ(t.usage[2], 6.0);
}

TEST(ShareTree, ParentAccountsAreExpandedInPlaceDepthFirst) {
  // root -> a(1), T(parent) -> { t1(2), U(parent) -> { u1(3) }, t2(4) }, p(parent user), b(5)
  TreeBuilder b;
  b.user("a", "root", 1, 1)
      .parent_account("T", "root")
      .user("t1", "T", 2, 1)
      .parent_account("U", "T")
      .user("u1", "U", 3, 1)
      .user("t2", "T", 4, 1)
      .parent_user("p", "root", 1)
      .user("b", "root", 5, 1);
  const ShareTree& t = b.finalize();
  EXPECT_THAT(group_of(t, 0), ElementsAre(b["a"], b["t1"], b["u1"], b["t2"], b["p"], b["b"]));
  EXPECT_TRUE(group_of(t, b["T"]).empty());
  EXPECT_EQ(t.group_shares[0], 1 + 2 + 3 + 4 + 5);  // p's shares do not count
  EXPECT_EQ(t.fs_parent[b["u1"]], 0);
  EXPECT_EQ(t.fs_parent[b["U"]], 0);
  EXPECT_EQ(t.fs_parent[b["t1"]], 0);
  EXPECT_EQ(t.fs_parent[b["p"]], 0);
  EXPECT_TRUE(t.transparent(b["T"]));
  EXPECT_FALSE(t.transparent(b["p"]));  // users are never transparent
  EXPECT_EQ(t.usage[b["T"]], 3.0);
}

TEST(ShareTree, InvariantViolationsThrowWithAClearMessage) {
  {
    ShareTree t;
    EXPECT_THAT(finalize_error(t), HasSubstr("empty tree"));
  }
  {
    ShareTree t;
    t.add(3, false, 1, 0);
    EXPECT_THAT(finalize_error(t), HasSubstr("root"));
  }
  {
    ShareTree t;
    t.add(-1, true, 1, 0);
    EXPECT_THAT(finalize_error(t), HasSubstr("must be an account"));
  }
  {
    ShareTree t;
    t.add(-1, false, 1, 0, true);
    EXPECT_THAT(finalize_error(t), HasSubstr("FairShare=parent"));
  }
  {
    ShareTree t;
    t.add(-1, false, 1, 0);
    t.add(2, true, 1, 0);  // parent after the child
    t.add(0, false, 1, 0);
    EXPECT_THAT(finalize_error(t), HasSubstr("node 1: parent 2"));
  }
  {
    ShareTree t;
    t.add(-1, false, 1, 0);
    t.add(-1, false, 1, 0);  // a second root
    EXPECT_THAT(finalize_error(t), HasSubstr("node 1"));
  }
  {
    ShareTree t;
    t.add(-1, false, 1, 0);
    t.add(0, true, 1, 0);
    t.add(1, true, 1, 0);  // child of a user
    EXPECT_THAT(finalize_error(t), HasSubstr("users must be leaves"));
  }
  {
    ShareTree t;
    t.add(-1, false, 1, 0);
    t.add(0, true, -1, 0);
    EXPECT_THAT(finalize_error(t), HasSubstr("shares"));
  }
  {
    ShareTree t;
    t.add(-1, false, 1, 0);
    t.add(0, true, 1, std::numeric_limits<double>::quiet_NaN());
    EXPECT_THAT(finalize_error(t), HasSubstr("usage"));
  }
  {
    ShareTree t;
    t.add(-1, false, 1, 0);
    t.add(0, true, 1, -5);
    EXPECT_THAT(finalize_error(t), HasSubstr("usage"));
  }
  {
    ShareTree t;
    t.add(-1, false, 1, 0);
    t.add(0, true, 1, 1e308);
    t.add(0, true, 1, 1e308);
    EXPECT_THAT(finalize_error(t), HasSubstr("overflow"));
  }
  {
    ShareTree t;
    t.add(-1, false, 1, 0);
    t.shares.push_back(1);  // lengths disagree
    EXPECT_THAT(finalize_error(t), HasSubstr("lengths"));
  }
}

TEST(ShareTree, ParentSharesAreNotValidated) {
  // FairShare=parent ignores the shares value, whatever it is.
  ShareTree t;
  t.add(-1, false, 1, 0);
  t.add(0, true, std::numeric_limits<double>::quiet_NaN(), 3, true);
  EXPECT_NO_THROW(t.finalize());
}

TEST(ComputeFairShare, RejectsUnfinalizedTreesAndBadDampening) {
  ShareTree t;
  t.add(-1, false, 1, 0);
  t.add(0, true, 1, 3);
  ShareResult r;
  FairShareParams p;
  EXPECT_THROW(compute_fair_share(t, p, r), std::invalid_argument);
  t.finalize();
  t.add(0, true, 1, 3);  // added after finalize: stale
  EXPECT_THROW(compute_fair_share(t, p, r), std::invalid_argument);
  t.finalize();
  EXPECT_NO_THROW(compute_fair_share(t, p, r));
  p.algo = FairShareAlgo::Classic;
  for (double d : {0.0, -1.0, std::numeric_limits<double>::quiet_NaN()}) {
    p.dampening = d;
    EXPECT_THROW(compute_fair_share(t, p, r), std::invalid_argument);
  }
}

TEST(ComputeFairShare, EveryAlgorithmSizesEveryVector) {
  auto b = testing::documented_example(false);
  ShareResult r;
  r.fairshare.assign(3, 7.0);  // stale content from a previous, smaller tree
  for (auto algo : {FairShareAlgo::FairTree, FairShareAlgo::Classic, FairShareAlgo::DepthOblivious,
                    FairShareAlgo::TicketBased}) {
    FairShareParams p;
    p.algo = algo;
    compute_fair_share(b.tree(), p, r);
    const size_t n = b.tree().size();
    EXPECT_EQ(r.norm_shares.size(), n);
    EXPECT_EQ(r.norm_usage.size(), n);
    EXPECT_EQ(r.eff_usage.size(), n);
    EXPECT_EQ(r.level_fs.size(), n);
    EXPECT_EQ(r.fairshare.size(), n);
    EXPECT_EQ(r.tickets.size(), n);
  }
}

// A structure shared by many snapshots, each with its own usage (and active
// flags) given apart (ShareInputs): every algorithm gives exactly what it
// gives on a tree holding the same usage, and sum_usage sums the accounts
// as finalize does.  The structure's own usage is not read.
TEST(ComputeFairShare, InputsGivenApartGiveTheSameResultsAsTheTreesOwn) {
  for (bool other_usage : {false, true}) {
    auto b = testing::documented_example(other_usage);
    const ShareTree& full = b.tree();
    const size_t n = full.size();
    ShareTree structure = full;
    std::vector<double> usage = full.usage;
    for (size_t i = 0; i < n; ++i)
      if (!full.is_user[i]) usage[i] = 12345.0;  // replaced by the sums
    structure.usage.assign(n, std::numeric_limits<double>::quiet_NaN());  // never read
    structure.sum_usage(usage);
    EXPECT_EQ(usage, full.usage);
    std::vector<uint8_t> active(n, 0);
    for (size_t i = 0; i < n; ++i) active[i] = full.is_user[i] && i % 2 ? 1 : 0;
    ShareTree with_active = full;
    with_active.active = active;
    for (auto algo : {FairShareAlgo::FairTree, FairShareAlgo::Classic, FairShareAlgo::DepthOblivious,
                      FairShareAlgo::TicketBased}) {
      FairShareParams p;
      p.algo = algo;
      ShareResult own, apart;
      compute_fair_share(with_active, p, own);
      compute_fair_share(structure, ShareInputs{usage.data(), active.data()}, p, apart);
      EXPECT_EQ(own.fairshare, apart.fairshare) << static_cast<int>(algo);
      EXPECT_EQ(own.norm_shares, apart.norm_shares);
      EXPECT_EQ(own.norm_usage, apart.norm_usage);
      EXPECT_EQ(own.eff_usage, apart.eff_usage);
      EXPECT_EQ(own.tickets, apart.tickets);
      ASSERT_EQ(own.level_fs.size(), apart.level_fs.size());
      for (size_t i = 0; i < n; ++i)  // inf == inf; no NaN here
        EXPECT_EQ(own.level_fs[i], apart.level_fs[i]) << i;
    }
    // No usage (or, ticket based, no active flags): refused, not read.
    ShareResult r;
    FairShareParams t;
    t.algo = FairShareAlgo::TicketBased;
    EXPECT_THROW(compute_fair_share(structure, ShareInputs{nullptr, active.data()}, FairShareParams{}, r),
                 std::invalid_argument);
    EXPECT_THROW(compute_fair_share(structure, ShareInputs{usage.data(), nullptr}, t, r), std::invalid_argument);
    // A bad user usage or a wrong length is named, as finalize names it.
    std::vector<double> bad = usage;
    for (size_t i = 0; i < n; ++i)
      if (full.is_user[i]) {
        bad[i] = -1.0;
        break;
      }
    EXPECT_THROW(structure.sum_usage(bad), std::invalid_argument);
    std::vector<double> short_usage(n - 1, 0.0);
    EXPECT_THROW(structure.sum_usage(short_usage), std::invalid_argument);
  }
}

// A pass's snapshot reads only F (and LevelFS): Fair Tree then leaves S, U,
// Ue and the tickets unsized, and every value it does give is the full run's,
// bit for bit.  The other algorithms ignore the flag.
TEST(ComputeFairShare, FairshareOnlyGivesTheSameRanksWithoutTheViewColumns) {
  for (bool other_usage : {false, true}) {
    auto b = testing::documented_example(other_usage);
    const size_t n = b.tree().size();
    ShareResult full, only;
    only.fairshare_only = true;
    only.norm_usage.assign(2, 1.0);  // stale content from a previous run is dropped
    compute_fair_share(b.tree(), FairShareParams{}, full);
    compute_fair_share(b.tree(), FairShareParams{}, only);
    EXPECT_EQ(only.fairshare, full.fairshare);
    EXPECT_TRUE(only.norm_shares.empty());
    ASSERT_EQ(only.level_fs.size(), n);
    for (size_t i = 0; i < n; ++i)  // inf == inf; no NaN here
      EXPECT_EQ(only.level_fs[i], full.level_fs[i]) << i;
    EXPECT_TRUE(only.norm_usage.empty());
    EXPECT_TRUE(only.eff_usage.empty());
    EXPECT_TRUE(only.tickets.empty());
    EXPECT_EQ(full.norm_usage.size(), n);
    for (auto algo : {FairShareAlgo::Classic, FairShareAlgo::DepthOblivious, FairShareAlgo::TicketBased}) {
      FairShareParams p;
      p.algo = algo;
      ShareResult r;
      r.fairshare_only = true;
      compute_fair_share(b.tree(), p, r);
      EXPECT_EQ(r.norm_usage.size(), n);
      EXPECT_EQ(r.eff_usage.size(), n);
      EXPECT_EQ(r.tickets.size(), n);
    }
  }
}

}  // namespace
}  // namespace mfprio
