// Tickets (ge_tickets.hpp, reference §3; share-tree pending tickets as 8.1.9).
#include <gtest/gtest.h>

#include "ge_priority.hpp"
#include "ge_sharemon.hpp"
#include "ge_tickets.hpp"
#include "test_ge_util.hpp"

using namespace getest;

namespace {
Model share_model(const std::string& tree) {
  Model m;
  m.conf.weight_tickets_share = 1000;
  m.tree = tree_from(tree);
  return m;
}
const char* kTwoUsers =
    "id=0\nname=Root\ntype=0\nshares=1\nchildnodes=1,2\n"
    "id=1\nname=alice\ntype=0\nshares=50\nchildnodes=NONE\n"
    "id=2\nname=bob\ntype=0\nshares=50\nchildnodes=NONE\n";
int node_named(const TicketResult& r, const std::string& name) {
  for (size_t i = 0; i < r.nodes.size(); ++i)
    if (r.nodes[i].name == name) return static_cast<int>(i);
  return -1;
}
}  // namespace

TEST(GeShareTree, CompensationFactorBindsOncePerLevel) {
  Model m = share_model(kTwoUsers);
  m.conf.compensation_factor = 1.5;
  m.user_usage["bob"] = Usage{1000, 0, 0};
  std::vector<Job> q = {JobB(1, "alice"), JobB(2, "bob")};
  TicketResult r = compute_tickets(q, m);
  const auto& a = r.nodes[node_named(r, "alice")];
  const auto& b = r.nodes[node_named(r, "bob")];
  EXPECT_TRUE(a.compensated);
  EXPECT_FALSE(b.compensated);
  EXPECT_NEAR(a.shr, 3751.875, 1e-6);  // 2500 / (0.5 * (0.99950025 / 0.75))
  EXPECT_NEAR(a.stt, 0.999334, 1e-6);  // still above CF*ltt = 0.75: one pass only
  EXPECT_NEAR(r.jobs[0].stckt, 999.334110, 1e-6);
  EXPECT_NEAR(r.jobs[1].stckt, 0.665890, 1e-6);
  EXPECT_TRUE(r.jobs[0].share_bound);
  // With the default factor 5 nothing binds: alice keeps shr 5000.
  m.conf.compensation_factor = 5;
  r = compute_tickets(q, m);
  EXPECT_FALSE(r.nodes[node_named(r, "alice")].compensated);
  EXPECT_NEAR(r.nodes[node_named(r, "alice")].stt, 5000 / 5002.5, 1e-12);
}

TEST(GeShareTree, InactiveNodesAreLeftOutOfEverySum) {
  Model m = share_model(
      "id=0\nname=Root\ntype=0\nshares=1\nchildnodes=1,2,3\n"
      "id=1\nname=a\ntype=0\nshares=60\nchildnodes=NONE\n"
      "id=2\nname=b\ntype=0\nshares=30\nchildnodes=NONE\n"
      "id=3\nname=c\ntype=0\nshares=10\nchildnodes=NONE\n");
  std::vector<Job> q = {JobB(1, "a"), JobB(2, "c")};
  TicketResult r = compute_tickets(q, m);
  EXPECT_FALSE(r.nodes[node_named(r, "b")].active);
  EXPECT_NEAR(r.nodes[node_named(r, "a")].ltt, 0.857143, 1e-6);  // 60 / (60 + 10)
  EXPECT_NEAR(r.nodes[node_named(r, "c")].ltt, 0.142857, 1e-6);
  EXPECT_NEAR(r.jobs[0].stckt, 857.142857, 1e-6);
  EXPECT_NEAR(r.jobs[1].stckt, 142.857143, 1e-6);
  EXPECT_DOUBLE_EQ(r.nodes[node_named(r, "b")].ostt, 0.0);
}

TEST(GeShareTree, PendingJobsInOneListGetSttOverOnePlusSlotsBefore) {
  Model m = share_model("id=0\nname=Root\ntype=0\nshares=1\nchildnodes=1\n"
                        "id=1\nname=alice\ntype=0\nshares=10\nchildnodes=NONE\n");
  std::vector<Job> q = {JobB(3, "alice"), JobB(1, "alice"), JobB(2, "alice")};
  TicketResult r = compute_tickets(q, m);
  EXPECT_NEAR(r.jobs[1].stckt, 1000.0, 1e-6);  // job 1 first (id order at equal key)
  EXPECT_NEAR(r.jobs[2].stckt, 500.0, 1e-6);
  EXPECT_NEAR(r.jobs[0].stckt, 333.333333, 1e-6);
  // Behind a running 8-slot job: stt / 9.
  std::vector<Job> q2 = {JobB(1, "alice").pe(8).running(), JobB(2, "alice")};
  r = compute_tickets(q2, m);
  EXPECT_NEAR(r.jobs[1].stckt, 111.111111, 1e-6);
  EXPECT_NEAR(r.jobs[0].stckt, 1000.0, 1e-6);  // pass 2: the running job alone on its leaf
  EXPECT_NEAR(r.jobs[0].pass1_tckts, 500.0, 1e-6);  // pass 1: ostt*1000 / (running+pending)
}

TEST(GeShareTree, OwnerInNoTreeUsesAPerUserCopyOfDefault) {
  Model m = share_model("id=0\nname=Root\ntype=0\nshares=1\nchildnodes=1,2\n"
                        "id=1\nname=default\ntype=0\nshares=10\nchildnodes=NONE\n"
                        "id=2\nname=alice\ntype=0\nshares=10\nchildnodes=NONE\n");
  std::vector<Job> q = {JobB(1, "alice"), JobB(2, "bob"), JobB(3, "carol")};
  TicketResult r = compute_tickets(q, m);
  for (const auto& t : r.jobs) EXPECT_NEAR(t.stckt, 333.333333, 1e-6);
  EXPECT_TRUE(r.nodes[r.jobs[1].share_node].user_copy);
  EXPECT_NE(r.jobs[1].share_node, r.jobs[2].share_node);
  EXPECT_FALSE(r.nodes[node_named(r, "default")].active);
  // Without a default leaf an unknown owner gets no share-tree tickets.
  Model m2 = share_model(kTwoUsers);
  r = compute_tickets({JobB(1, "zed")}, m2);
  EXPECT_EQ(r.jobs[0].share_node, -1);
  EXPECT_DOUBLE_EQ(r.jobs[0].stckt, 0.0);
}

TEST(GeFunctional, UserSharesAreSharedAmongTheUsersJobs) {
  Model m;
  m.conf.weight_tickets_functional = 1000;
  m.conf.weight_user = 1;
  m.conf.weight_project = m.conf.weight_department = m.conf.weight_job = 0;
  m.users["alice"].fshare = 100;
  m.users["bob"].fshare = 100;
  std::vector<Job> q = {JobB(1, "alice").running(), JobB(2, "alice"), JobB(3, "alice"),
                        JobB(4, "bob")};
  TicketResult r = compute_tickets(q, m);
  EXPECT_NEAR(r.jobs[0].ftckt, 1000.0, 1e-6);       // alone among running jobs
  EXPECT_NEAR(r.jobs[3].ftckt, 500.0, 1e-6);        // bob picked first: 100 / (100 + 100)
  EXPECT_NEAR(r.jobs[1].ftckt, 250.0, 1e-6);        // alice's 2nd job: (100/2) / 200
  EXPECT_NEAR(r.jobs[2].ftckt, 166.666667, 1e-6);   // alice's 3rd job: (100/3) / 200
  // Not shared: every job carries the user's full share.
  m.conf.share_functional_shares = false;
  r = compute_tickets(q, m);
  // Candidates tie (100 / 200.001 each): earlier submission, then lower id wins.
  EXPECT_NEAR(r.jobs[0].ftckt, 1000.0, 1e-6);
  EXPECT_NEAR(r.jobs[1].ftckt, 500.0, 1e-6);        // job 2: 100 / (100 + 100)
  EXPECT_NEAR(r.jobs[2].ftckt, 333.333333, 1e-6);   // job 3: 100 / 300
  EXPECT_NEAR(r.jobs[3].ftckt, 250.0, 1e-6);        // bob last: 100 / 400
}

TEST(GeFunctional, UnpickedCategoryMembersCopyTheLastEvaluation) {
  Model m;
  m.conf.weight_tickets_functional = 1000;
  m.conf.weight_user = 1;
  m.conf.weight_project = m.conf.weight_department = m.conf.weight_job = 0;
  m.conf.max_functional_jobs_to_schedule = 1;
  m.users["alice"].fshare = 100;
  std::vector<Job> q = {JobB(1, "alice"), JobB(2, "alice")};
  TicketResult r = compute_tickets(q, m);
  EXPECT_NEAR(r.jobs[0].ftckt, 1000.0, 1e-6);
  EXPECT_NEAR(r.jobs[1].ftckt, 100.0 * 1000 / 0.001, 1e-3);  // the +0.001 evaluation
}

TEST(GeOverride, UserOverrideTicketsAreSharedGreedily) {
  Model m;
  m.users["alice"].oticket = 300;
  std::vector<Job> q = {JobB(1, "alice").running(), JobB(2, "alice"), JobB(3, "alice").ot(10)};
  TicketResult r = compute_tickets(q, m);
  EXPECT_NEAR(r.jobs[0].otckt, 300.0, 1e-9);        // running: 300 / 1 running job
  EXPECT_NEAR(r.jobs[2].otckt, 150.0 + 10, 1e-9);   // picked first: 300/2 + its own 10
  EXPECT_NEAR(r.jobs[1].otckt, 100.0, 1e-9);        // then 300/3
  m.conf.share_override_tickets = false;
  r = compute_tickets(q, m);
  EXPECT_NEAR(r.jobs[1].otckt, 300.0, 1e-9);
  EXPECT_NEAR(r.jobs[2].otckt, 310.0, 1e-9);
}

TEST(GeShareMonitor, RowsShowTargetsUsageAndTickets) {
  Model m = share_model(kTwoUsers);
  m.user_usage["bob"] = Usage{300, 0, 0};
  m.user_usage["alice"] = Usage{100, 0, 0};
  std::vector<Job> q = {JobB(1, "alice"), JobB(2, "bob")};
  PricingResult pr;
  std::string why;
  ASSERT_TRUE(price_queue(q, m, kNow, &pr, &why)) << why;
  auto rows = share_monitor_rows(pr);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].node, "/");
  EXPECT_EQ(rows[1].node, "/alice");
  EXPECT_DOUBLE_EQ(rows[1].level_pct, 50.0);
  EXPECT_DOUBLE_EQ(rows[1].long_target, 0.5);
  EXPECT_NEAR(rows[1].short_target, 0.75, 1e-12);  // 25 / (25 + 25/3)
  EXPECT_DOUBLE_EQ(rows[2].actual_usage, 0.75);
  EXPECT_NEAR(rows[0].tickets, 1000.0, 1e-9);
  EXPECT_NEAR(rows[1].tickets, 750.0, 1e-9);
}

TEST(GePolicyHierarchy, DependentShareTreeSortsOnEarlierPoliciesTickets) {
  Model m = share_model("id=0\nname=Root\ntype=0\nshares=1\nchildnodes=1\n"
                        "id=1\nname=alice\ntype=0\nshares=10\nchildnodes=NONE\n");
  std::vector<Job> q = {JobB(1, "alice"), JobB(2, "alice").ot(100)};
  // OFS: S is dependent on O, so job 2 (100 override tickets) is listed first.
  TicketResult r = compute_tickets(q, m);
  EXPECT_NEAR(r.jobs[1].stckt, 1000.0, 1e-6);
  EXPECT_NEAR(r.jobs[0].stckt, 500.0, 1e-6);
  EXPECT_NEAR(r.jobs[1].tckts, 1100.0, 1e-6);
  EXPECT_NEAR(r.max_tix, 1100.0, 1e-6);
  // NONE: nothing dependent, the list falls back to -js then job id.
  m.conf.policy_hierarchy = "";
  r = compute_tickets(q, m);
  EXPECT_NEAR(r.jobs[0].stckt, 1000.0, 1e-6);
  EXPECT_NEAR(r.jobs[1].stckt, 500.0, 1e-6);
}

TEST(GeShareTree, RunningJobSharesSplitTheLeafByJsTruncated) {
  Model m = share_model("id=0\nname=Root\ntype=0\nshares=1\nchildnodes=1\n"
                        "id=1\nname=alice\ntype=0\nshares=10\nchildnodes=NONE\n");
  std::vector<Job> q = {JobB(1, "alice").running().js(1), JobB(2, "alice").running().js(2)};
  TicketResult r = compute_tickets(q, m);
  EXPECT_DOUBLE_EQ(r.jobs[0].stckt, 333.0);  // (u_long)(1 * 1000 / 3)
  EXPECT_DOUBLE_EQ(r.jobs[1].stckt, 666.0);
}

TEST(GeShareTree, ProjectJobsFindTheirUserInsideTheProjectAndUseProjectUsage) {
  Model m = share_model(
      "id=0\nname=Root\ntype=0\nshares=1\nchildnodes=1,2\n"
      "id=1\nname=physics\ntype=1\nshares=75\nchildnodes=3\n"
      "id=2\nname=default\ntype=0\nshares=25\nchildnodes=NONE\n"
      "id=3\nname=alice\ntype=0\nshares=10\nchildnodes=NONE\n");
  m.project_usage["physics"] = Usage{4, 0, 0};
  m.user_project_usage[{"alice", "physics"}] = Usage{4, 0, 0};
  m.user_usage["alice"] = Usage{1e6, 0, 0};  // outside the project: not read here
  std::vector<Job> q = {JobB(1, "alice").project("physics"), JobB(2, "alice")};
  TicketResult r = compute_tickets(q, m);
  ASSERT_GE(r.jobs[0].share_node, 0);
  EXPECT_EQ(r.nodes[r.jobs[0].share_node].name, "alice");
  EXPECT_EQ(r.nodes[r.jobs[0].share_node].project, "physics");
  EXPECT_DOUBLE_EQ(r.nodes[r.jobs[0].share_node].usage, 4);
  // Without the project alice is not under physics: she gets a copy of `default`.
  EXPECT_TRUE(r.nodes[r.jobs[1].share_node].user_copy);
  EXPECT_DOUBLE_EQ(r.nodes[r.jobs[1].share_node].usage, 1e6);
  // physics: ltt 0.75, shr 75^2/4; alice's default copy: ltt 0.25, shr 25^2/1e6.
  const double sp = 75.0 * 75 / 4, sd = 25.0 * 25 / 1e6;
  const auto& phys = r.nodes[1];
  EXPECT_NEAR(phys.stt, sp / (sp + sd), 1e-12);
  EXPECT_NEAR(r.jobs[0].stckt, 1000 * sp / (sp + sd), 1e-6);
}
