// The whole pricing pass (ge_priority.hpp, sgeee.c:sge_do_priority).
#include <gtest/gtest.h>

#include <algorithm>

#include "ge_priority.hpp"
#include "test_ge_util.hpp"

using namespace getest;

TEST(GePriority, PrioIsWeightedSumOfNormalisedParts) {
  Model m;  // code defaults: 0.5 / 0.5 / 0.0
  m.conf.weight_priority = 1.0;
  m.conf.weight_tickets_functional = 1000;
  m.users["alice"].fshare = 10;
  std::vector<Job> q = {JobB(1, "alice").waited(1000).posix(100), JobB(2, "bob").pe(4)};
  PricingResult r;
  std::string why;
  ASSERT_TRUE(price_queue(q, m, kNow, &r, &why)) << why;
  const JobPrice& a = r.jobs[0];
  const JobPrice& b = r.jobs[1];
  EXPECT_DOUBLE_EQ(a.urg, 1000 + 278.0);
  EXPECT_DOUBLE_EQ(b.urg, 4000);
  EXPECT_DOUBLE_EQ(a.nurg, 0.0);
  EXPECT_DOUBLE_EQ(b.nurg, 1.0);
  // Pending: all four configured weights renormalised (0.25 each), only the user's counts.
  EXPECT_NEAR(a.ftckt, 250.0, 1e-6);
  EXPECT_DOUBLE_EQ(a.ntckts, 1.0);
  EXPECT_DOUBLE_EQ(b.ntckts, 0.0);
  EXPECT_DOUBLE_EQ(a.npprior, 1124.0 / 2048);
  EXPECT_EQ(a.ppri, 100);
  EXPECT_NEAR(a.prio, 0.5 * 0 + 0.5 * 1 + 1.0 * 1124.0 / 2048, 1e-12);
  EXPECT_NEAR(b.prio, 0.5 * 1 + 0.5 * 0 + 1.0 * 0.5, 1e-12);
  EXPECT_EQ(q[r.pending_order[0]].id, 1u);
}

TEST(GePriority, PendingOrderBreaksTiesBySubmitTimeThenJobId) {
  Model m;
  m.conf.weight_waiting_time = 0;  // all urgencies equal
  std::vector<Job> q = {JobB(5).submitted(kNow - 10), JobB(3).submitted(kNow - 10),
                        JobB(4).submitted(kNow - 20), JobB(1).running()};
  PricingResult r;
  std::string why;
  ASSERT_TRUE(price_queue(q, m, kNow, &r, &why)) << why;
  ASSERT_EQ(r.pending_order.size(), 3u);
  EXPECT_EQ(q[r.pending_order[0]].id, 4u);
  EXPECT_EQ(q[r.pending_order[1]].id, 3u);
  EXPECT_EQ(q[r.pending_order[2]].id, 5u);
  EXPECT_EQ(r.jobs[0].priority, r.jobs[1].priority);
}

TEST(GePriority, RunningJobsTakePartInUrgencyNormalisation) {
  Model m;
  std::vector<Job> q = {JobB(1).pe(64).running(), JobB(2).pe(2), JobB(3).pe(4)};
  PricingResult r;
  std::string why;
  ASSERT_TRUE(price_queue(q, m, kNow, &r, &why)) << why;
  EXPECT_DOUBLE_EQ(r.max_urg, 64000);
  EXPECT_DOUBLE_EQ(r.min_urg, 2000);
  EXPECT_NEAR(r.jobs[2].nurg, 2000.0 / 62000, 1e-12);
}

TEST(GePriority, U32MappingKeepsOrderAndTies) {
  const double v[] = {-1e300, -3.5, -1e-9, 0.0, -0.0, 1e-9, 0.25, 0.5, 0.5000001, 1.0, 2.0, 1e300};
  for (double a : v)
    for (double b : v) {
      if (a < b) {
        EXPECT_LE(priority_to_u32(a), priority_to_u32(b)) << a << " " << b;
      }
      if (a == b) {
        EXPECT_EQ(priority_to_u32(a), priority_to_u32(b)) << a << " " << b;
      }
    }
  EXPECT_LT(priority_to_u32(0.5), priority_to_u32(0.5000001));
  EXPECT_LT(priority_to_u32(0.0), priority_to_u32(1e-9));
}

TEST(GePriority, TermsExplainTheJob) {
  Model m;
  m.conf.weight_tickets_share = 1000;
  m.tree = tree_from("id=0\nname=Root\ntype=0\nshares=1\nchildnodes=1\n"
                     "id=1\nname=default\ntype=0\nshares=1\nchildnodes=NONE\n");
  std::vector<Job> q = {JobB(1, "nobody").waited(100), JobB(2, "other")};
  PricingResult r;
  std::string why;
  ASSERT_TRUE(price_queue(q, m, kNow, &r, &why)) << why;
  const auto& t = r.jobs[0].terms;
  ASSERT_EQ(t.size(), 9u);
  double sum = 0;
  for (const auto& x : t)
    if (x.parent < 0) sum += x.contribution;
  EXPECT_NEAR(sum, r.jobs[0].prio, 1e-12);
  EXPECT_EQ(t[0].name, "urgency");
  EXPECT_EQ(t[1].name, "rrcontr");
  EXPECT_EQ(t[1].parent, 0);
  EXPECT_NEAR(t[2].contribution, r.jobs[0].wtcontr, 1e-12);
  EXPECT_EQ(t[4].name, "tickets");
  EXPECT_NEAR(t[5].contribution, r.jobs[0].stckt, 1e-12);
  EXPECT_GT(r.jobs[0].stckt, 0);  // owner in no tree: share tickets through `default`
  EXPECT_EQ(t[8].name, "priority");
}

TEST(GePriority, InvalidJobIsRejectedWithItsId) {
  Model m;
  PricingResult r;
  r.max_tix = 42;
  std::string why;
  EXPECT_FALSE(price_queue({JobB(9).posix(2000)}, m, kNow, &r, &why));
  EXPECT_NE(why.find("job 9"), std::string::npos) << why;
  EXPECT_DOUBLE_EQ(r.max_tix, 42);  // untouched
}

TEST(GePriority, DeadlineTermFactorTimesWeightIsDlcontr) {
  Model m;
  std::vector<Job> q = {JobB(1).deadline_in(7200)};
  PricingResult r;
  std::string why;
  ASSERT_TRUE(price_queue(q, m, kNow, &r, &why)) << why;
  EXPECT_DOUBLE_EQ(r.jobs[0].dlcontr, 500.0);
  EXPECT_NEAR(r.jobs[0].terms[3].contribution, 500.0, 1e-9);
}
