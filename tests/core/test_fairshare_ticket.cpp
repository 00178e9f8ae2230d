// test_fairshare_ticket.cpp - golden tests for fairshare_ticket.cpp
// (Slurm's "Ticket-Based Multifactor Priority Plugin" page).
#include <gtest/gtest.h>

#include <cmath>

#include "test_fairshare_util.hpp"

namespace mfprio {
namespace {

using namespace testing;  // the builders, run, expect_near and kSix (test_fairshare_util.hpp)

// The seed's example: the documented tree (root usage 100) with only User2
// and User5 pending.
testing::TreeBuilder seed_example() {
  auto b = documented_example(true);
  b.tree().active[b["User2"]] = 1;
  b.tree().active[b["User5"]] = 1;
  return b;
}

double factor(const ShareResult& r, uint32_t i) { return r.norm_shares[i] / r.eff_usage[i]; }

TEST(TicketFairShare, SeedExamplePerNodeFactorsMatch) {
  auto b = seed_example();
  const auto r = run(b.tree(), FairShareAlgo::TicketBased);
  // Effective usage = max(U, 0.01 S): F's is 0.01*0.35, User3's 0.01*0.05.
  expect_near(r.eff_usage, b, {{"F", 0.0035}, {"User3", 0.0005}, {"User5", 0.0035}, {"User1", 0.2}});

  EXPECT_NEAR(factor(r, b["A"]), 0.4 / 0.45, kSix);  // the ticket-based page prints 0.89
  EXPECT_NEAR(factor(r, b["B"]), 1.5, kSix);
  EXPECT_NEAR(factor(r, b["C"]), 0.4, kSix);
  EXPECT_NEAR(factor(r, b["D"]), 2.4, kSix);
  EXPECT_NEAR(factor(r, b["E"]), 1.0, kSix);
  EXPECT_NEAR(factor(r, b["F"]), 100.0, kSix);
  EXPECT_NEAR(factor(r, b["User1"]), 1.5, kSix);
  EXPECT_NEAR(factor(r, b["User2"]), 0.2, kSix);
  EXPECT_NEAR(factor(r, b["User3"]), 100.0, kSix);
  EXPECT_NEAR(factor(r, b["User4"]), 1.0, kSix);
  EXPECT_NEAR(factor(r, b["User5"]), 100.0, kSix);
}

TEST(TicketFairShare, SeedExampleTicketsAndPriorities) {
  auto b = seed_example();
  const auto r = run(b.tree(), FairShareAlgo::TicketBased);
  // A: 1000 * .4*(.4/.45) / (.4*(.4/.45) + .6*2.4) = 198.02; D = 801.98.
  const double wa = 0.4 * (0.4 / 0.45);
  const double wd = 0.6 * 2.4;
  EXPECT_NEAR(r.tickets[b["A"]], wa / (wa + wd), kSix);
  EXPECT_NEAR(r.tickets[b["D"]], wd / (wa + wd), kSix);
  EXPECT_EQ(std::lround(1000 * r.tickets[b["A"]]), 198);
  EXPECT_EQ(std::lround(1000 * r.tickets[b["D"]]), 802);
  // Only C (under A) and F (under D) are active: they get everything.
  EXPECT_DOUBLE_EQ(r.tickets[b["C"]], r.tickets[b["A"]]);
  EXPECT_DOUBLE_EQ(r.tickets[b["User2"]], r.tickets[b["A"]]);
  EXPECT_DOUBLE_EQ(r.tickets[b["User5"]], r.tickets[b["D"]]);
  EXPECT_EQ(r.tickets[b["B"]], 0.0);
  EXPECT_EQ(r.tickets[b["User1"]], 0.0);

  EXPECT_EQ(r.fairshare[b["User5"]], 1.0);
  // The seed's 198 / 802 = 0.25 is rounded: exactly wa / wd = 0.246914.
  EXPECT_NEAR(r.fairshare[b["User2"]], wa / wd, kSix);
  EXPECT_NEAR(r.fairshare[b["User2"]], 0.246914, kSix);
  EXPECT_NEAR(std::round(r.fairshare[b["User2"]] * 100) / 100, 0.25, 1e-12);
  // Inactive users and all accounts get 0.
  for (const char* n : {"User1", "User3", "User4", "A", "D", "root"}) EXPECT_EQ(r.fairshare[b[n]], 0.0) << n;
}

TEST(TicketFairShare, NobodyActiveGivesNoTickets) {
  auto b = documented_example(true);
  const auto r = run(b.tree(), FairShareAlgo::TicketBased);
  for (size_t i = 0; i < b.tree().size(); ++i) {
    EXPECT_EQ(r.tickets[i], 0.0);
    EXPECT_EQ(r.fairshare[i], 0.0);
  }
}

TEST(TicketFairShare, SingleActiveUserGetsOne) {
  TreeBuilder b;
  b.account("A", "root", 1).user("a1", "A", 1, 100, true).user("a2", "A", 1, 0);
  b.finalize();
  const auto r = run(b.tree(), FairShareAlgo::TicketBased);
  EXPECT_EQ(r.fairshare[b["a1"]], 1.0);
  EXPECT_EQ(r.fairshare[b["a2"]], 0.0);
  EXPECT_EQ(r.tickets[b["a1"]], 1.0);
}

TEST(TicketFairShare, AllUsageZeroSplitsTicketsByShares) {
  // U = 0 everywhere: Ueff = .01 S, F = 100, S*F = 100 S: tickets follow S.
  TreeBuilder b;
  b.user("u1", "root", 1, 0, true).user("u3", "root", 3, 0, true);
  b.finalize();
  const auto r = run(b.tree(), FairShareAlgo::TicketBased);
  EXPECT_NEAR(r.tickets[b["u1"]], 0.25, 1e-12);
  EXPECT_NEAR(r.tickets[b["u3"]], 0.75, 1e-12);
  EXPECT_NEAR(r.fairshare[b["u1"]], 1.0 / 3, 1e-12);
  EXPECT_EQ(r.fairshare[b["u3"]], 1.0);
}

TEST(TicketFairShare, ZeroShareUsersGetNoTicketsUnlessAloneInZero) {
  // z has no shares: weight 0, no tickets while a sibling with shares is active.
  TreeBuilder b;
  b.user("z", "root", 0, 10, true).user("s", "root", 1, 10, true);
  b.finalize();
  const auto r = run(b.tree(), FairShareAlgo::TicketBased);
  EXPECT_EQ(r.fairshare[b["z"]], 0.0);
  EXPECT_EQ(r.fairshare[b["s"]], 1.0);
  // Only zero-share users pending: the tickets are split evenly among them.
  TreeBuilder c;
  c.user("z1", "root", 0, 10, true).user("z2", "root", 0, 30, true).user("s", "root", 1, 10);
  c.finalize();
  const auto rc = run(c.tree(), FairShareAlgo::TicketBased);
  EXPECT_EQ(rc.fairshare[c["z1"]], 1.0);
  EXPECT_EQ(rc.fairshare[c["z2"]], 1.0);
}

TEST(TicketFairShare, ParentUserAndTransparentAccount) {
  // root -> A(1) -> { T(parent) -> t1(1, 10), a1(1, 30), ap(parent, 20) }, B(1) -> b1(1, 40)
  TreeBuilder b;
  b.account("A", "root", 1)
      .parent_account("T", "A")
      .user("t1", "T", 1, 10, true)
      .user("a1", "A", 1, 30, true)
      .parent_user("ap", "A", 20, true)
      .account("B", "root", 1)
      .user("b1", "B", 1, 40);
  b.finalize();
  const auto r = run(b.tree(), FairShareAlgo::TicketBased);
  // S: A .5, t1 = a1 = .25 (ap's shares do not count); ap takes A's S and Ueff.
  EXPECT_DOUBLE_EQ(r.norm_shares[b["t1"]], 0.25);
  EXPECT_DOUBLE_EQ(r.norm_shares[b["ap"]], 0.5);
  EXPECT_DOUBLE_EQ(r.eff_usage[b["ap"]], r.eff_usage[b["A"]]);
  // B is inactive: A gets all tickets; within A weights S^2/Ueff:
  // t1 .0625/.1 = .625, a1 .0625/.3 = .208333, ap .25/.6 = .416667.
  const double wt = 0.625, wa = 0.0625 / 0.3, wp = 0.25 / 0.6, sum = wt + wa + wp;
  EXPECT_NEAR(r.tickets[b["t1"]], wt / sum, 1e-12);
  EXPECT_NEAR(r.tickets[b["a1"]], wa / sum, 1e-12);
  EXPECT_NEAR(r.tickets[b["ap"]], wp / sum, 1e-12);
  EXPECT_NEAR(r.tickets[b["T"]], wt / sum, 1e-12);  // what passed through T
  EXPECT_EQ(r.fairshare[b["t1"]], 1.0);
  EXPECT_NEAR(r.fairshare[b["a1"]], wa / wt, 1e-12);
}

}  // namespace
}  // namespace mfprio
