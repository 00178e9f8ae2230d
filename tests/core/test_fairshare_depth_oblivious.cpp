// test_fairshare_depth_oblivious.cpp - golden and edge tests for
// fairshare_depth_oblivious.cpp (priority_multifactor.c:_depth_oblivious_set_usage_efctv).
#include <gtest/gtest.h>

#include <cmath>

#include "test_fairshare_util.hpp"

namespace mfprio {
namespace {

using namespace testing;  // the builders, run, expect_near and kSix (test_fairshare_util.hpp)

TEST(DepthObliviousFairShare, DocumentedExampleTreeMatchesHandComputation) {
  // Root usage 100 (documented_example(true)), so U is the documented one.
  // Children of root: Ue = U (A .45, D .25).
  // B under A: ratio_p = .45/.4 = 1.125; sibling ratio = (.2+.25)/.4 = 1.125;
  //   ratio_l = (.2/.3)/1.125 = .592593; signs differ, k = 1/(1+(5 ln 1.125)^2) = .742488;
  //   R = 1.125 * .592593^k = .762826; Ue = R * .3 = .228848.
  // C: ratio_l = (.25/.1)/1.125 = 2.2222, same sign, k = 1, R = 2.5, Ue = .25.
  // E under D: ratio_p = .25/.6, ratio_l = (.25/.25)/(.25/.6) = 2.4, k = .049621,
  //   R = .416667 * 2.4^k = .435161, Ue = .108790.   F: U = 0 -> Ue = 0.
  // User1 (only child of B): ratio_l = 1 -> R = R_B.  User2 under C: ratio_p = 2.5,
  //   ratio_l = (.25/.05)/2.5 = 2, k = 1, R = 5, Ue = .25.  User3/User5: U = 0, Ue = 0.
  // User4 (only child of E): R = R_E.
  auto b = documented_example(true);
  const auto r = run(b.tree(), FairShareAlgo::DepthOblivious);
  expect_near(r.eff_usage, b,
              {{"A", 0.45}, {"D", 0.25}, {"B", 0.228848}, {"C", 0.25}, {"E", 0.108790}, {"F", 0.0},
               {"User1", 0.228848}, {"User2", 0.25}, {"User3", 0.0}, {"User4", 0.108790}, {"User5", 0.0}});

  expect_near(r.fairshare, b,
              {{"User1", 0.589340}, {"User2", 0.031250}, {"User3", 1.0}, {"User4", 0.739613}, {"User5", 1.0}});
}

TEST(DepthObliviousFairShare, ChildrenOfRootMatchClassic) {
  auto b = documented_example(true);
  const auto dob = run(b.tree(), FairShareAlgo::DepthOblivious);
  const auto cls = run(b.tree(), FairShareAlgo::Classic);
  for (const char* a : {"A", "D"}) EXPECT_DOUBLE_EQ(dob.fairshare[b[a]], cls.fairshare[b[a]]);
}

TEST(DepthObliviousFairShare, DepthDoesNotChangeTheFactorOfALoneChain) {
  // A user that is the only child all the way down inherits its account's
  // ratio unchanged, however deep it sits: the point of "depth oblivious".
  TreeBuilder b;
  b.account("A", "root", 1).account("A2", "A", 1).account("A3", "A2", 1).user("deep", "A3", 1, 30);
  b.user("flat", "root", 1, 30);
  b.finalize();
  const auto r = run(b.tree(), FairShareAlgo::DepthOblivious);
  EXPECT_NEAR(r.fairshare[b["deep"]], r.fairshare[b["A"]], 1e-12);
  EXPECT_NEAR(r.fairshare[b["deep"]], r.fairshare[b["flat"]], 1e-12);
  EXPECT_NEAR(r.fairshare[b["deep"]], 0.5, 1e-12);
}

TEST(DepthObliviousFairShare, ZeroUsageZeroSharesAndZeroTotalsAreFinite) {
  TreeBuilder b;
  b.account("A", "root", 1)
      .user("idle", "A", 1, 0)       // U = 0: Ue = 0, F = 1
      .user("noshare", "A", 0, 50)   // S = 0: F = 0
      .user("busy", "A", 1, 50)
      .account("Z", "root", 0)       // S = 0 account, its user too
      .user("z1", "Z", 1, 10)
      .account("Q", "root", 1)       // no usage under Q at all
      .user("q1", "Q", 1, 0);
  b.finalize();
  const auto r = run(b.tree(), FairShareAlgo::DepthOblivious);
  EXPECT_EQ(r.eff_usage[b["idle"]], 0.0);
  EXPECT_EQ(r.fairshare[b["idle"]], 1.0);
  EXPECT_EQ(r.fairshare[b["noshare"]], 0.0);
  EXPECT_EQ(r.fairshare[b["z1"]], 0.0);
  EXPECT_EQ(r.fairshare[b["q1"]], 1.0);
  for (size_t i = 0; i < b.tree().size(); ++i) {
    EXPECT_TRUE(std::isfinite(r.eff_usage[i])) << i;
    EXPECT_GE(r.fairshare[i], 0.0) << i;
    EXPECT_LE(r.fairshare[i], 1.0) << i;
  }

  TreeBuilder z;
  z.account("A", "root", 1).user("a1", "A", 1, 0).user("a2", "A", 2, 0);
  z.finalize();
  const auto rz = run(z.tree(), FairShareAlgo::DepthOblivious);
  EXPECT_EQ(rz.fairshare[z["a1"]], 1.0);
  EXPECT_EQ(rz.fairshare[z["a2"]], 1.0);
}

TEST(DepthObliviousFairShare, ParentUserAndTransparentAccount) {
  TreeBuilder b;
  b.account("A", "root", 1)
      .parent_user("ap", "A", 10)
      .parent_account("T", "A")
      .user("t1", "T", 1, 20)
      .user("a1", "A", 1, 30)
      .account("B", "root", 1)
      .user("b1", "B", 1, 40);
  b.finalize();
  const auto r = run(b.tree(), FairShareAlgo::DepthOblivious);
  EXPECT_DOUBLE_EQ(r.eff_usage[b["ap"]], r.eff_usage[b["A"]]);
  EXPECT_DOUBLE_EQ(r.fairshare[b["ap"]], r.fairshare[b["A"]]);
  EXPECT_DOUBLE_EQ(r.norm_shares[b["t1"]], 0.25);
  // t1 under A: ratio_p = .6/.5 = 1.2; sibling sum skips ap: (.2 + .3)/.5 = 1;
  // ratio_l = (.2/.25)/1 = .8; signs differ: k = 1/(1+(5 ln 1.2)^2).
  const double k = 1.0 / (1.0 + std::pow(5 * std::log(1.2), 2));
  EXPECT_NEAR(r.eff_usage[b["t1"]], 1.2 * std::pow(0.8, k) * 0.25, 1e-12);
}

}  // namespace
}  // namespace mfprio
