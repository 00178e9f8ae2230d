// test_fairshare_fair_tree.cpp - golden tests for fairshare_fair_tree.cpp
// (Slurm 22.05 fair_tree.c).  Every expected value is computed by hand in the comments.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "test_fairshare_util.hpp"

namespace mfprio {
namespace {

using namespace testing;  // the builders, run, expect_near and kSix (test_fairshare_util.hpp)

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(FairTreeFairShare, DocumentedExampleTreeRanksByLevelFs) {
  // Root usage 70.  LevelFS = S / U at each level:
  //   root: A .4 / (45/70) = .622222, D .6 / (25/70) = 1.68          -> D, A
  //   D:    E (25/60) / (25/25) = .416667, F .35/.6 / 0 = inf        -> F, E
  //   A:    B .75 / (20/45) = 1.6875, C .25 / (25/45) = .45          -> B, C
  //   B: User1 1/1 = 1; C: User2 .5/1 = .5, User3 .5/0 = inf; E: User4 1; F: User5 inf
  // N = 5, visit order User5, User4, User1, User3, User2 -> 5/5 .. 1/5.
  auto b = documented_example(false);
  const auto r = run(b.tree(), FairShareAlgo::FairTree);
  expect_near(r.level_fs, b, {{"A", 0.622222}, {"D", 1.68}, {"B", 1.6875}, {"C", 0.45}, {"E", 0.416667}});
  EXPECT_EQ(r.level_fs[b["F"]], kInf);
  EXPECT_NEAR(r.level_fs[b["User1"]], 1.0, kSix);
  EXPECT_NEAR(r.level_fs[b["User2"]], 0.5, kSix);
  EXPECT_EQ(r.level_fs[b["User3"]], kInf);
  EXPECT_NEAR(r.level_fs[b["User4"]], 1.0, kSix);
  EXPECT_EQ(r.level_fs[b["User5"]], kInf);

  // Level-local S and U (U -> eff_usage, as sshare's EffectvUsage).
  EXPECT_NEAR(r.norm_shares[b["B"]], 0.75, kSix);
  EXPECT_NEAR(r.norm_shares[b["User2"]], 0.5, kSix);
  EXPECT_NEAR(r.eff_usage[b["B"]], 20.0 / 45, kSix);
  EXPECT_NEAR(r.norm_usage[b["B"]], 20.0 / 70, kSix);  // NormUsage stays raw / root

  expect_near(r.fairshare, b,
              {{"User5", 1.0}, {"User4", 0.8}, {"User1", 0.6}, {"User3", 0.4}, {"User2", 0.2}});
  for (const char* a : {"root", "A", "B", "C", "D", "E", "F"}) EXPECT_EQ(r.fairshare[b[a]], 0.0) << a;
}

TEST(FairTreeFairShare, DocumentedExampleWithOtherUsageRanksZeroShareUserLast) {
  // Root usage 100; root level: A .4/.45 = .888889, D .6/.25 = 2.4, Other S = 0 -> 0.
  // Order D (User5, User4), A (B: User1; C: User3, User2), Other.  N = 6.
  auto b = documented_example(true);
  const auto r = run(b.tree(), FairShareAlgo::FairTree);
  EXPECT_NEAR(r.level_fs[b["A"]], 0.888889, kSix);
  EXPECT_NEAR(r.level_fs[b["D"]], 2.4, kSix);
  EXPECT_EQ(r.level_fs[b["Other"]], 0.0);
  EXPECT_NEAR(r.fairshare[b["User5"]], 6.0 / 6, kSix);
  EXPECT_NEAR(r.fairshare[b["User4"]], 5.0 / 6, kSix);
  EXPECT_NEAR(r.fairshare[b["User1"]], 4.0 / 6, kSix);
  EXPECT_NEAR(r.fairshare[b["User3"]], 3.0 / 6, kSix);
  EXPECT_NEAR(r.fairshare[b["User2"]], 2.0 / 6, kSix);
  EXPECT_NEAR(r.fairshare[b["Other"]], 1.0 / 6, kSix);
}

TEST(FairTreeFairShare, TiedSiblingUsersShareARank) {
  // root -> u1(1, 10), u2(1, 10), u3(2, 10).  U = 1/3 each.
  // LevelFS: u1 = u2 = .25/(1/3) = .75, u3 = .5/(1/3) = 1.5.  N = 3.
  // u3 rank 3 -> 1; u1 rank 2 -> 2/3; u2 tied with u1 -> 2/3.
  TreeBuilder b;
  b.user("u1", "root", 1, 10).user("u2", "root", 1, 10).user("u3", "root", 2, 10);
  b.finalize();
  const auto r = run(b.tree(), FairShareAlgo::FairTree);
  EXPECT_EQ(r.level_fs[b["u1"]], r.level_fs[b["u2"]]);
  EXPECT_NEAR(r.fairshare[b["u3"]], 1.0, kSix);
  EXPECT_NEAR(r.fairshare[b["u1"]], 2.0 / 3, kSix);
  EXPECT_NEAR(r.fairshare[b["u2"]], 2.0 / 3, kSix);
}

TEST(FairTreeFairShare, AccountTiedWithPreviousSiblingPassesTheTieToItsFirstChild) {
  // root -> A(1) -> { a1(1, 8), a2(1, 2) }, B(1) -> { b1(1, 10), b2(3, 0) }.
  // Root level: A .5/(10/20) = 1, B .5/(10/20) = 1: tied, A first (builder order).
  // A: a2 .5/.2 = 2.5 -> rank 4 -> 1.0; a1 .5/.8 = .625 -> rank 3 -> .75.  rnt = 2.
  // B is tied with A, so its first child inherits the last rank given (3):
  //   b2 .75/0 = inf first -> tied -> .75;  b1 .25/1 = .25 -> rank = rnt = 1 -> .25.
  // (The documentation's "merge tied accounts" would interleave A's and B's
  // users instead; we follow fair_tree.c, which does not.)
  TreeBuilder b;
  b.account("A", "root", 1)
      .user("a1", "A", 1, 8)
      .user("a2", "A", 1, 2)
      .account("B", "root", 1)
      .user("b1", "B", 1, 10)
      .user("b2", "B", 3, 0);
  b.finalize();
  const auto r = run(b.tree(), FairShareAlgo::FairTree);
  EXPECT_EQ(r.level_fs[b["A"]], r.level_fs[b["B"]]);
  expect_near(r.fairshare, b, {{"a2", 1.0}, {"a1", 0.75}, {"b2", 0.75}, {"b1", 0.25}});
}

TEST(FairTreeFairShare, UsersComeBeforeAccountsOnEqualLevelFs) {
  // root -> A(1) -> a1(1, 10); u(1, 10).  Both LevelFS .5/.5 = 1, u first
  // although A was added first.  u rank 2 -> 1; a1 tied (A tied with u) -> 1.
  TreeBuilder b;
  b.account("A", "root", 1).user("a1", "A", 1, 10).user("u", "root", 1, 10);
  b.finalize();
  const auto r = run(b.tree(), FairShareAlgo::FairTree);
  EXPECT_NEAR(r.fairshare[b["u"]], 1.0, kSix);
  EXPECT_NEAR(r.fairshare[b["a1"]], 1.0, kSix);

  // Break the tie: a1 uses less, A's LevelFS rises above u's: a1 1, u 1/2.
  TreeBuilder c;
  c.account("A", "root", 1).user("a1", "A", 1, 5).user("u", "root", 1, 10);
  c.finalize();
  const auto rc = run(c.tree(), FairShareAlgo::FairTree);
  EXPECT_NEAR(rc.fairshare[c["a1"]], 1.0, kSix);
  EXPECT_NEAR(rc.fairshare[c["u"]], 0.5, kSix);
}

TEST(FairTreeFairShare, IdleUserRanksFirstButBelowOneWhenOthersAreIdleToo) {
  // root -> idle(1, 0), busy(1, 10): idle inf -> 2/2, busy .5/1 -> 1/2.
  TreeBuilder b;
  b.user("idle", "root", 1, 0).user("busy", "root", 1, 10);
  b.finalize();
  const auto r = run(b.tree(), FairShareAlgo::FairTree);
  EXPECT_EQ(r.level_fs[b["idle"]], kInf);
  EXPECT_NEAR(r.fairshare[b["idle"]], 1.0, kSix);
  EXPECT_NEAR(r.fairshare[b["busy"]], 0.5, kSix);

  // An idle user in a busy account: ranked after the users of a better
  // account, so below 1 (the known complaint about Fair Tree in Slurm's sshare(1) output), but still in (0, 1].
  // root -> A(1) -> { a_idle(1, 0), a_busy(1, 30) }, B(1) -> b(1, 10).
  // Root: A .5/.75 = .667, B .5/.25 = 2 -> B first: b rank 3 -> 1;
  // A: a_idle inf -> 2/3, a_busy .5/1 -> 1/3.
  TreeBuilder c;
  c.account("A", "root", 1).user("a_idle", "A", 1, 0).user("a_busy", "A", 1, 30);
  c.account("B", "root", 1).user("b", "B", 1, 10);
  c.finalize();
  const auto rc = run(c.tree(), FairShareAlgo::FairTree);
  EXPECT_NEAR(rc.fairshare[c["b"]], 1.0, kSix);
  EXPECT_NEAR(rc.fairshare[c["a_idle"]], 2.0 / 3, kSix);
  EXPECT_NEAR(rc.fairshare[c["a_busy"]], 1.0 / 3, kSix);
}

TEST(FairTreeFairShare, AllUsageZeroTiesEveryUserAtOne) {
  TreeBuilder b;
  b.account("A", "root", 1).user("a1", "A", 1, 0).account("B", "root", 3).user("b1", "B", 1, 0).user("u", "root", 2, 0);
  b.finalize();
  const auto r = run(b.tree(), FairShareAlgo::FairTree);
  for (const char* u : {"a1", "b1", "u"}) {
    EXPECT_EQ(r.level_fs[b[u]], kInf);
    EXPECT_EQ(r.fairshare[b[u]], 1.0) << u;
  }
}

TEST(FairTreeFairShare, SingleUserGetsOne) {
  TreeBuilder b;
  b.user("only", "root", 1, 42);
  b.finalize();
  const auto r = run(b.tree(), FairShareAlgo::FairTree);
  EXPECT_EQ(r.level_fs[b["only"]], 1.0);
  EXPECT_EQ(r.fairshare[b["only"]], 1.0);
}

TEST(FairTreeFairShare, ParentUserHasInfiniteLevelFsAndNoShares) {
  // root -> A(1) -> { x(1, 5), p(parent, 5) }, B(1) -> y(1, 5).  N = 3.
  // Root: A .5/(10/15) = .75, B .5/(5/15) = 1.5 -> B first: y rank 3 -> 1.
  // A's group: p inf first (rank 2 -> 2/3); x has all of A's shares: S = 1,
  // U = 5/10, LevelFS 2 -> rank 1 -> 1/3.
  TreeBuilder b;
  b.account("A", "root", 1).user("x", "A", 1, 5).parent_user("p", "A", 5);
  b.account("B", "root", 1).user("y", "B", 1, 5);
  b.finalize();
  const auto r = run(b.tree(), FairShareAlgo::FairTree);
  EXPECT_EQ(r.level_fs[b["p"]], kInf);
  EXPECT_EQ(r.norm_shares[b["x"]], 1.0);
  EXPECT_NEAR(r.level_fs[b["x"]], 2.0, kSix);
  EXPECT_NEAR(r.fairshare[b["y"]], 1.0, kSix);
  EXPECT_NEAR(r.fairshare[b["p"]], 2.0 / 3, kSix);
  EXPECT_NEAR(r.fairshare[b["x"]], 1.0 / 3, kSix);
}

TEST(FairTreeFairShare, ParentAccountChildrenCompeteWithTheirGrandparentsChildren) {
  // root -> T(parent) -> { t1(1, 10), t2(1, 50) }, u(2, 40).  Root group: t1, t2, u;
  // level shares 1+1+2 = 4, root usage 100.
  // t1 .25/.1 = 2.5, u .5/.4 = 1.25, t2 .25/.5 = .5 -> t1 1, u 2/3, t2 1/3.
  TreeBuilder b;
  b.parent_account("T", "root").user("t1", "T", 1, 10).user("t2", "T", 1, 50).user("u", "root", 2, 40);
  b.finalize();
  const auto r = run(b.tree(), FairShareAlgo::FairTree);
  EXPECT_NEAR(r.norm_shares[b["t1"]], 0.25, kSix);
  EXPECT_NEAR(r.norm_shares[b["u"]], 0.5, kSix);
  expect_near(r.level_fs, b, {{"t1", 2.5}, {"u", 1.25}, {"t2", 0.5}});
  EXPECT_NEAR(r.fairshare[b["t1"]], 1.0, kSix);
  EXPECT_NEAR(r.fairshare[b["u"]], 2.0 / 3, kSix);
  EXPECT_NEAR(r.fairshare[b["t2"]], 1.0 / 3, kSix);
  EXPECT_EQ(r.fairshare[b["T"]], 0.0);
}

TEST(FairTreeFairShare, ZeroSharesRankLastWithZeroLevelFs) {
  // root -> z(0, 0), a(1, 10): z LevelFS 0 although idle; a .. 1 -> a 1, z 1/2.
  TreeBuilder b;
  b.user("z", "root", 0, 0).user("a", "root", 1, 10);
  b.finalize();
  const auto r = run(b.tree(), FairShareAlgo::FairTree);
  EXPECT_EQ(r.level_fs[b["z"]], 0.0);
  EXPECT_NEAR(r.fairshare[b["a"]], 1.0, kSix);
  EXPECT_NEAR(r.fairshare[b["z"]], 0.5, kSix);
}

TEST(FairTreeFairShare, DeepChainDoesNotOverflowTheStack) {
  // 200,000 nested accounts: the traversal must be iterative.
  ShareTree t;
  t.add(-1, false, 1, 0);
  int32_t p = 0;
  for (int i = 0; i < 200000; ++i) p = static_cast<int32_t>(t.add(p, false, 1, 0));
  const uint32_t u = t.add(p, true, 1, 5);
  t.finalize();
  const auto r = run(t, FairShareAlgo::FairTree);
  EXPECT_EQ(r.fairshare[u], 1.0);
}

}  // namespace
}  // namespace mfprio
