// test_fairshare_classic.cpp - golden tests for fairshare_classic.cpp
// (Slurm's Classic Fairshare Algorithm page, Slurm's documented example).
#include <gtest/gtest.h>

#include <cmath>

#include "test_fairshare_util.hpp"

namespace mfprio {
namespace {

using namespace testing;  // the builders, run, expect_near and kSix (test_fairshare_util.hpp)

TEST(ClassicFairShare, DocumentedExampleMatchesToSixDecimals) {
  // Root usage 100 (see documented_example): U is exactly the documented one.
  auto b = documented_example(true);
  const auto r = run(b.tree(), FairShareAlgo::Classic);

  expect_near(r.norm_shares, b,
              {{"User1", 0.30}, {"User2", 0.05}, {"User3", 0.05}, {"User4", 0.25}, {"User5", 0.35}});

  expect_near(r.norm_usage, b,
              {{"User1", 0.20}, {"User2", 0.25}, {"User3", 0.00}, {"User4", 0.25}, {"User5", 0.00}});

  expect_near(r.eff_usage, b,
              {{"A", 0.45}, {"D", 0.25}, {"B", 0.3875}, {"C", 0.30}, {"E", 0.25}, {"F", 0.145833},
               {"User1", 0.3875}, {"User2", 0.275}, {"User3", 0.15}, {"User4", 0.25}, {"User5", 0.145833}});

  expect_near(r.fairshare, b,
              {{"User1", 0.408479}, {"User2", 0.022097}, {"User3", 0.125000}, {"User4", 0.500000},
               {"User5", 0.749154}});
}

TEST(ClassicFairShare, LiteralExampleTreeNormalizesByItsOwnTotal) {
  // The same tree with nothing else charged: root usage is 20+25+25 = 70, so
  // U differs from the documentation.  Hand-computed:
  //   U: A 45/70 = 9/14, D 5/14, B 2/7, C 5/14, User1 2/7, User2 5/14, User4 5/14
  //   Ue_B  = 2/7 + (9/14 - 2/7) * 30/40 = 31/56;   Ue_User1 = Ue_B
  //   Ue_C  = 5/14 + (9/14 - 5/14) * 10/40 = 3/7
  //   Ue_User2 = 5/14 + (3/7 - 5/14) / 2 = 11/28; Ue_User3 = 3/7 / 2 = 3/14
  //   Ue_F  = (5/14) * 35/60 = 5/24 = Ue_User5;    Ue_User4 = 5/14
  auto b = documented_example(false);
  const auto r = run(b.tree(), FairShareAlgo::Classic);
  EXPECT_NEAR(r.norm_usage[b["User1"]], 2.0 / 7, 1e-12);
  EXPECT_NEAR(r.eff_usage[b["User1"]], 31.0 / 56, 1e-12);
  EXPECT_NEAR(r.eff_usage[b["User2"]], 11.0 / 28, 1e-12);
  EXPECT_NEAR(r.eff_usage[b["User3"]], 3.0 / 14, 1e-12);
  EXPECT_NEAR(r.eff_usage[b["User5"]], 5.0 / 24, 1e-12);
  EXPECT_NEAR(r.fairshare[b["User1"]], std::exp2(-(31.0 / 56) / 0.3), 1e-12);
  EXPECT_NEAR(r.fairshare[b["User2"]], std::exp2(-(11.0 / 28) / 0.05), 1e-12);
  EXPECT_NEAR(r.fairshare[b["User3"]], std::exp2(-(3.0 / 14) / 0.05), 1e-12);
  EXPECT_NEAR(r.fairshare[b["User4"]], std::exp2(-(5.0 / 14) / 0.25), 1e-12);
  EXPECT_NEAR(r.fairshare[b["User5"]], std::exp2(-(5.0 / 24) / 0.35), 1e-12);
}

TEST(ClassicFairShare, DampeningFactorDividesTheExponent) {
  auto b = documented_example(true);
  const auto r = run(b.tree(), FairShareAlgo::Classic, 4.0);
  // User2: Ue/S = 0.275/0.05 = 5.5 -> 2^(-5.5/4)
  EXPECT_NEAR(r.fairshare[b["User2"]], std::exp2(-5.5 / 4), 1e-12);
}

TEST(ClassicFairShare, ParentUserTakesItsAccountsSharesAndUsage) {
  TreeBuilder b;
  b.account("A", "root", 1)
      .user("a1", "A", 1, 10)
      .parent_user("ap", "A", 30)
      .account("B", "root", 3)
      .user("b1", "B", 1, 60);
  b.finalize();
  const auto r = run(b.tree(), FairShareAlgo::Classic);
  EXPECT_DOUBLE_EQ(r.norm_shares[b["ap"]], r.norm_shares[b["A"]]);
  EXPECT_DOUBLE_EQ(r.eff_usage[b["ap"]], r.eff_usage[b["A"]]);
  EXPECT_DOUBLE_EQ(r.fairshare[b["ap"]], r.fairshare[b["A"]]);
  // ap's shares do not count: a1 has all of A's shares, S = 0.25.
  EXPECT_DOUBLE_EQ(r.norm_shares[b["a1"]], 0.25);
  // A's usage includes ap's: U_A = 40/100.
  EXPECT_DOUBLE_EQ(r.eff_usage[b["A"]], 0.4);
  EXPECT_NEAR(r.fairshare[b["ap"]], std::exp2(-0.4 / 0.25), 1e-12);
}

TEST(ClassicFairShare, ParentAccountIsTransparent) {
  // root -> A(1) -> { T(parent) -> { t1(1), t2(3) }, a1(4) }, B(1) -> b1(1)
  // T's children compete directly with a1 under A: level shares 1+3+4 = 8.
  TreeBuilder b;
  b.account("A", "root", 1)
      .parent_account("T", "A")
      .user("t1", "T", 1, 10)
      .user("t2", "T", 3, 20)
      .user("a1", "A", 4, 30)
      .account("B", "root", 1)
      .user("b1", "B", 1, 40);
  b.finalize();
  const auto r = run(b.tree(), FairShareAlgo::Classic);
  EXPECT_DOUBLE_EQ(r.norm_shares[b["t1"]], 0.5 * 1 / 8);
  EXPECT_DOUBLE_EQ(r.norm_shares[b["t2"]], 0.5 * 3 / 8);
  EXPECT_DOUBLE_EQ(r.norm_shares[b["a1"]], 0.5 * 4 / 8);
  // Ue_A = U_A = 0.6; Ue_t1 = 0.1 + (0.6 - 0.1) * 1/8
  EXPECT_NEAR(r.eff_usage[b["t1"]], 0.1 + 0.5 / 8, 1e-12);
  EXPECT_NEAR(r.eff_usage[b["t2"]], 0.2 + 0.4 * 3 / 8, 1e-12);
  EXPECT_NEAR(r.fairshare[b["t1"]], std::exp2(-(0.1 + 0.5 / 8) / (0.5 / 8)), 1e-12);
  // The transparent account mirrors its fair-share parent.
  EXPECT_DOUBLE_EQ(r.norm_shares[b["T"]], r.norm_shares[b["A"]]);
  EXPECT_DOUBLE_EQ(r.fairshare[b["T"]], r.fairshare[b["A"]]);
}

TEST(ClassicFairShare, ZeroSharesGiveZeroFairShare) {
  TreeBuilder b;
  b.account("A", "root", 1).user("a1", "A", 0, 10).user("a2", "A", 1, 10).account("Z", "root", 0).user("z1", "Z", 5, 0);
  b.finalize();
  const auto r = run(b.tree(), FairShareAlgo::Classic);
  EXPECT_EQ(r.fairshare[b["a1"]], 0.0);
  EXPECT_EQ(r.fairshare[b["z1"]], 0.0);  // its account has S = 0, so it has too
  EXPECT_EQ(r.norm_shares[b["z1"]], 0.0);
  EXPECT_GT(r.fairshare[b["a2"]], 0.0);
}

TEST(ClassicFairShare, AllUsageZeroGivesFullFairShare) {
  TreeBuilder b;
  b.account("A", "root", 1).user("a1", "A", 1, 0).user("a2", "A", 2, 0).user("r1", "root", 3, 0);
  b.finalize();
  const auto r = run(b.tree(), FairShareAlgo::Classic);
  for (const char* u : {"a1", "a2", "r1"}) {
    EXPECT_EQ(r.norm_usage[b[u]], 0.0);
    EXPECT_EQ(r.eff_usage[b[u]], 0.0);
    EXPECT_EQ(r.fairshare[b[u]], 1.0);
  }
}

TEST(ClassicFairShare, SingleUserAtItsFairShareGetsOneHalf) {
  TreeBuilder b;
  b.user("only", "root", 7, 1234.5);
  b.finalize();
  const auto r = run(b.tree(), FairShareAlgo::Classic);
  EXPECT_EQ(r.norm_shares[b["only"]], 1.0);
  EXPECT_EQ(r.eff_usage[b["only"]], 1.0);
  EXPECT_EQ(r.fairshare[b["only"]], 0.5);
}

TEST(ClassicFairShare, HugeAndFractionalUsageGiveTheSameFactors) {
  // Only ratios of usage matter: scaling every raw usage by 1e16 (to ~1e18)
  // or by 1e-3 changes nothing beyond rounding.
  auto make = [](double scale) {
    TreeBuilder b;
    b.account("A", "root", 40)
        .account("B", "A", 30)
        .user("User1", "B", 1, 20 * scale)
        .account("C", "A", 10)
        .user("User2", "C", 1, 25 * scale)
        .user("User3", "C", 1, 0)
        .account("D", "root", 60)
        .account("E", "D", 25)
        .user("User4", "E", 1, 25 * scale)
        .account("F", "D", 35)
        .user("User5", "F", 1, 0)
        .user("Other", "root", 0, 30 * scale);
    b.finalize();
    return b;
  };
  auto base = make(1.0);
  const auto r0 = run(base.tree(), FairShareAlgo::Classic);
  for (double scale : {1e16, 1e-3}) {
    auto b = make(scale);
    const auto r = run(b.tree(), FairShareAlgo::Classic);
    for (size_t i = 0; i < b.tree().size(); ++i) EXPECT_NEAR(r.fairshare[i], r0.fairshare[i], 1e-12);
  }
}

}  // namespace
}  // namespace mfprio
