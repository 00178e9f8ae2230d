// Tickets (ge_tickets.hpp, sgeee.c; share-tree pending tickets as 8.1.9).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <map>
#include <random>
#include <set>
#include <tuple>

#include "ge_priority.hpp"
#include "ge_sharemon.hpp"
#include "ge_tickets.hpp"
#include "test_ge_util.hpp"
#include "stable_order.hpp"

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
  EXPECT_EQ(rows[0].name, "/");
  EXPECT_EQ(rows[0].depth, 0u);
  EXPECT_EQ(rows[1].name, "alice");
  EXPECT_EQ(rows[1].depth, 1u);
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

// ---- the pass's incremental picks against a brute-force reference ------------------
// The functional picks (a lazy heap over categories) and the override rounds
// (only jobs whose objects carry override tickets take part) must give what
// evaluating every candidate at every pick gives (sgeee.c), bit for bit.
// The reference below follows Grid Engine's rules (sgeee.c) directly (policies not
// dependent: policy_hierarchy NONE), independently of ge_tickets.cpp; the
// queues are random but seeded, with many ties.
namespace {
struct Shares4 {
  double u = 0, p = 0, d = 0, j = 0;
};

struct Reference {
  const Model& m;
  const std::vector<Job>& q;
  std::map<std::string, double> cu, cp, cd;

  static const TicketObject* obj(const std::map<std::string, TicketObject>& t, const std::string& k) {
    if (k.empty()) return nullptr;
    auto it = t.find(k);
    return it == t.end() ? nullptr : &it->second;
  }
  Shares4 fshares(const Job& j) const {
    Shares4 f;
    if (auto* o = obj(m.users, j.user)) f.u = o->fshare;
    if (auto* o = obj(m.projects, j.project)) f.p = o->fshare;
    if (auto* o = obj(m.departments, j.department)) f.d = o->fshare;
    f.j = j.job_share;
    return f;
  }
  void count(const Job& j) {
    cu[j.user] += 1;
    if (!j.project.empty()) cp[j.project] += 1;
    if (!j.department.empty()) cd[j.department] += 1;
  }
  double ftickets(const std::array<double, 4>& w, const Shares4& s, const Shares4& sum) const {
    const double F = m.conf.weight_tickets_functional;
    double t = 0;
    if (sum.u != 0) t += w[0] * s.u * F / sum.u;
    if (sum.p != 0) t += w[1] * s.p * F / sum.p;
    if (sum.d != 0) t += w[2] * s.d * F / sum.d;
    if (sum.j != 0) t += w[3] * s.j * F / sum.j;
    return t;
  }
  Shares4 divided(const Job& j, double extra) {
    Shares4 f = fshares(j);
    if (m.conf.share_functional_shares) {
      f.u = f.u / std::max(1.0, cu[j.user] + extra);
      if (!j.project.empty()) f.p = f.p / std::max(1.0, cp[j.project] + extra);
      if (!j.department.empty()) f.d = f.d / std::max(1.0, cd[j.department] + extra);
    }
    return f;
  }
  static bool earlier(const Job& a, const Job& b) {
    return a.submit_time != b.submit_time ? a.submit_time < b.submit_time : a.id < b.id;
  }

  // Pending functional tickets: every category evaluated at every pick.
  std::vector<double> functional() {
    const SchedConf& c = m.conf;
    cu.clear(), cp.clear(), cd.clear();
    for (const Job& j : q)
      if (j.running) count(j);
    Shares4 sum;
    for (const Job& j : q)
      if (j.running) {
        Shares4 f = divided(j, 0);
        sum.u += f.u, sum.p += f.p, sum.d += f.d, sum.j += f.j;
      }
    double ws = c.weight_user + c.weight_project + c.weight_department + c.weight_job;
    std::array<double, 4> w{c.weight_user, c.weight_project, c.weight_department, c.weight_job};
    if (!(ws > 0)) w = {1, 1, 1, 1}, ws = 4;
    for (double& x : w) x /= ws;
    std::map<std::tuple<double, std::string, std::string, std::string>, std::vector<size_t>> cats;
    size_t members = 0;
    for (size_t k = 0; k < q.size(); ++k) {
      const Job& j = q[k];
      const Shares4 f = fshares(j);
      if (j.running || !(f.u > 0 || f.p > 0 || f.d > 0 || f.j > 0)) continue;
      cats[{f.j, f.u > 0 ? j.user : "", f.p > 0 ? j.project : "", f.d > 0 ? j.department : ""}].push_back(k);
      ++members;
    }
    std::vector<std::vector<size_t>> lists;
    for (auto& [key, v] : cats) {
      mfprio::stable_order(v.begin(), v.end(), [&](size_t a, size_t b) { return earlier(q[a], q[b]); });
      lists.push_back(v);
    }
    std::vector<double> out(q.size(), 0.0), last(lists.size(), 0.0);
    std::vector<size_t> head(lists.size(), 0);
    const size_t picks = std::min<size_t>(c.max_functional_jobs_to_schedule, members);
    for (size_t pick = 0; pick < picks; ++pick) {
      size_t best = lists.size();
      double best_v = -1;
      for (size_t g = 0; g < lists.size(); ++g) {
        if (head[g] == lists[g].size()) continue;
        const Job& j = q[lists[g][head[g]]];
        Shares4 s = fshares(j);
        Shares4 t{sum.u + 0.001, sum.p + 0.001, sum.d + 0.001, sum.j + 0.001};
        if (c.share_functional_shares) {
          if (s.u != 0) s.u /= cu[j.user] + 1;
          if (s.p != 0 && !j.project.empty()) s.p /= cp[j.project] + 1;
          if (s.d != 0 && !j.department.empty()) s.d /= cd[j.department] + 1;
        } else {
          t.u += s.u, t.p += s.p, t.d += s.d;
        }
        t.j += s.j;
        last[g] = ftickets(w, s, t);
        if (best == lists.size() || last[g] > best_v ||
            (last[g] == best_v && earlier(j, q[lists[best][head[best]]]))) {
          best = g;
          best_v = last[g];
        }
      }
      const Job& j = q[lists[best][head[best]++]];
      const Shares4 f = fshares(j);
      count(j);
      if (c.share_functional_shares) {
        if (cu[j.user] == 1) sum.u += f.u;
        if (!j.project.empty() && cp[j.project] == 1) sum.p += f.p;
        if (!j.department.empty() && cd[j.department] == 1) sum.d += f.d;
      } else {
        sum.u += f.u, sum.p += f.p, sum.d += f.d;
      }
      sum.j += f.j;
      out[static_cast<size_t>(&j - q.data())] = ftickets(w, divided(j, 0), sum);
    }
    for (size_t g = 0; g < lists.size(); ++g)
      for (size_t k = head[g]; k < lists[g].size(); ++k) out[lists[g][k]] = last[g];
    return out;
  }

  // Pending shared override tickets: every remaining job evaluated each round.
  std::vector<double> overrides() {
    cu.clear(), cp.clear(), cd.clear();
    for (const Job& j : q)
      if (j.running) count(j);
    auto value = [&](const Job& j) {
      double t = 0;
      auto add = [&](const TicketObject* o, double n) {
        if (o && o->oticket > 0 && n + 1 > 0) t += o->oticket / (n + 1);
      };
      add(obj(m.users, j.user), cu[j.user]);
      if (!j.project.empty()) add(obj(m.projects, j.project), cp[j.project]);
      if (!j.department.empty()) add(obj(m.departments, j.department), cd[j.department]);
      return t + j.override_tickets;
    };
    std::vector<double> out(q.size(), 0.0);
    std::vector<size_t> left;
    for (size_t k = 0; k < q.size(); ++k)
      if (!q[k].running) left.push_back(k);
    while (!left.empty()) {
      size_t bi = 0;
      double bv = value(q[left[0]]);
      for (size_t i = 1; i < left.size(); ++i) {
        const double v = value(q[left[i]]);
        if (v > bv || (v == bv && q[left[i]].id < q[left[bi]].id)) bi = i, bv = v;
      }
      out[left[bi]] = bv;
      count(q[left[bi]]);
      left.erase(left.begin() + static_cast<std::ptrdiff_t>(bi));
    }
    return out;
  }
};

std::vector<Job> random_queue(std::mt19937& rng, size_t n) {
  std::vector<Job> q;
  for (size_t i = 0; i < n; ++i) {
    JobB b(static_cast<uint32_t>(1000 + (i * 7919) % 5000), "u" + std::to_string(rng() % 12));
    if (rng() % 3) b.project("p" + std::to_string(rng() % 4));
    if (rng() % 4) b.dept("d" + std::to_string(rng() % 3));
    if (rng() % 5 == 0) b.js(static_cast<double>(rng() % 3));
    if (rng() % 6 == 0) b.ot(static_cast<double>(rng() % 2) * 25);
    b.submitted(kNow - static_cast<int64_t>(rng() % 4) * 60);  // many equal submit times
    if (rng() % 7 == 0) b.running();
    q.push_back(b);
  }
  return q;
}
}  // namespace

TEST(GeIncrementalPicks, FunctionalAndOverrideTicketsMatchEvaluatingEveryCandidate) {
  std::mt19937 rng(13);
  for (int round = 0; round < 60; ++round) {
    Model m;
    m.conf.policy_hierarchy = "";  // independent policies: no prior tickets
    m.conf.weight_tickets_share = 0;
    m.conf.weight_tickets_functional = 1000 + 17 * round;
    m.conf.weight_user = round % 4 == 0 ? 0 : 0.25;
    m.conf.weight_project = 0.25;
    m.conf.weight_department = round % 5 == 0 ? 0 : 0.25;
    m.conf.weight_job = 0.25;
    m.conf.share_functional_shares = round % 2 == 0;
    m.conf.share_override_tickets = true;
    m.conf.max_functional_jobs_to_schedule = static_cast<uint32_t>(round % 3 == 0 ? 5 : 200);
    for (int u = 0; u < 12; ++u) {
      if (u % 5 == 4) continue;  // some users have no ticket object
      m.users["u" + std::to_string(u)] = TicketObject{static_cast<double>(u % 3 * 10), u % 4 == 0 ? 100.0 : 0.0};
    }
    for (int p = 0; p < 4; ++p) m.projects["p" + std::to_string(p)] = TicketObject{static_cast<double>(p % 2 * 20), 0};
    m.departments["d1"] = TicketObject{5, round % 2 ? 40.0 : 0.0};
    m.departments["d2"] = TicketObject{0, 0};
    const std::vector<Job> q = random_queue(rng, 40 + static_cast<size_t>(round));
    const TicketResult r = compute_tickets(q, m);
    Reference ref{m, q, {}, {}, {}};
    const std::vector<double> f = ref.functional(), o = ref.overrides();
    for (size_t k = 0; k < q.size(); ++k) {
      if (q[k].running) continue;
      EXPECT_EQ(r.jobs[k].ftckt, f[k]) << "round " << round << " job " << q[k].id;
      EXPECT_EQ(r.jobs[k].otckt, o[k]) << "round " << round << " job " << q[k].id;
    }
  }
}

// Functional picks with tied categories grouped (the default) against one heap
// entry per category, on queues where most categories tie: many users with the
// same few fshares, shared departments and projects, equal submit times, and
// (dependent hierarchies) prior tickets from override and share-tree steps.
// Every job's tickets must be bit-identical; the grouped run is also checked
// against evaluating every category at each pick (independent policies).
TEST(GeIncrementalPicks, GroupedTiedCategoriesPickAsOneAtATime) {
  std::mt19937 rng(29);
  size_t tied_picks = 0;
  for (int round = 0; round < 48; ++round) {
    Model m;
    const bool dependent = round % 2 == 1;
    m.conf.policy_hierarchy = dependent ? (round % 4 == 1 ? "OFS" : "SF") : "";
    m.conf.weight_tickets_share = dependent ? 500 : 0;
    m.tree = tree_from(
        "id=0\nname=Root\ntype=0\nshares=1\nchildnodes=1,2\n"
        "id=1\nname=default\ntype=0\nshares=10\nchildnodes=NONE\n"
        "id=2\nname=u3\ntype=0\nshares=30\nchildnodes=NONE\n");
    m.conf.weight_tickets_functional = 10000;
    m.conf.weight_user = 0.25;
    m.conf.weight_project = round % 3 == 0 ? 0 : 0.25;
    m.conf.weight_department = 0.25;
    m.conf.weight_job = round % 5 == 0 ? 0 : 0.25;
    m.conf.share_functional_shares = round % 4 < 2 || round % 3 == 2;
    m.conf.share_override_tickets = true;
    m.conf.max_functional_jobs_to_schedule = static_cast<uint32_t>(round % 3 == 0 ? 7 : 60 + round);
    const int users = 30 + round;
    for (int u = 0; u < users; ++u)
      if (u % 9 != 8) m.users["u" + std::to_string(u)] = TicketObject{static_cast<double>(1 + u % 3), u % 10 == 0 ? 50.0 : 0.0};
    for (int p = 0; p < 3; ++p) m.projects["p" + std::to_string(p)] = TicketObject{static_cast<double>(p == 2 ? 0 : 4), 0};
    for (int d = 0; d < 3; ++d) m.departments["d" + std::to_string(d)] = TicketObject{static_cast<double>(2 + d % 2), 0};
    std::vector<Job> q;
    const size_t n = 150 + static_cast<size_t>(round) * 5;
    for (size_t i = 0; i < n; ++i) {
      JobB b(static_cast<uint32_t>(1 + (i * 7919) % 100000), "u" + std::to_string(rng() % static_cast<unsigned>(users)));
      if (rng() % 3 == 0) b.project("p" + std::to_string(rng() % 3));
      b.dept("d" + std::to_string(rng() % 3));
      if (rng() % 8 == 0) b.js(1);
      if (rng() % 9 == 0) b.ot(10);
      b.submitted(kNow - static_cast<int64_t>(rng() % 2) * 60);
      if (rng() % 10 == 0) b.running();
      q.push_back(b);
    }
    TicketOptions one;
    one.group_tied_categories = false;
    const TicketResult g = compute_tickets(q, m), o = compute_tickets(q, m, one);
    for (size_t k = 0; k < q.size(); ++k) {
      EXPECT_EQ(g.jobs[k].ftckt, o.jobs[k].ftckt) << "round " << round << " job " << q[k].id;
      EXPECT_EQ(g.jobs[k].stckt, o.jobs[k].stckt) << "round " << round << " job " << q[k].id;
      EXPECT_EQ(g.jobs[k].otckt, o.jobs[k].otckt) << "round " << round << " job " << q[k].id;
      EXPECT_EQ(g.jobs[k].tckts, o.jobs[k].tckts) << "round " << round << " job " << q[k].id;
    }
    // Categories entering the heaps in small batches (the rest's entry
    // expanded many times): the same tickets, both forms.
    for (const size_t batch : {size_t{1}, size_t{2}, size_t{5}}) {
      for (const bool grouped : {true, false}) {
        TicketOptions b;
        b.group_tied_categories = grouped;
        b.functional_batch = batch;
        const TicketResult x = compute_tickets(q, m, b);
        for (size_t k = 0; k < q.size(); ++k) {
          EXPECT_EQ(x.jobs[k].ftckt, g.jobs[k].ftckt) << "round " << round << " batch " << batch << " job " << q[k].id;
          EXPECT_EQ(x.jobs[k].tckts, g.jobs[k].tckts) << "round " << round << " batch " << batch << " job " << q[k].id;
        }
      }
    }
    if (!dependent) {
      Reference ref{m, q, {}, {}, {}};
      const std::vector<double> f = ref.functional();
      for (size_t k = 0; k < q.size(); ++k) {
        if (!q[k].running) {
          EXPECT_EQ(g.jobs[k].ftckt, f[k]) << "round " << round << " job " << q[k].id;
        }
      }
    }
    // The case has ties: pending jobs of distinct categories with equal ftckt.
    std::map<double, size_t> seen;
    for (size_t k = 0; k < q.size(); ++k)
      if (!q[k].running && g.jobs[k].ftckt > 0) ++seen[g.jobs[k].ftckt];
    for (const auto& [v, c] : seen) tied_picks += c > 1 ? c : 0;
  }
  EXPECT_GT(tied_picks, 100u);
}

// Model::names with per-job ids (handles): the same tickets as names alone,
// whether the ids are right, out of range, or in range but naming another
// user, project or department (the pass checks each id against the name).
TEST(GeNameIds, TicketsWithIdsEqualTicketsByName) {
  std::mt19937 rng(5);
  for (int round = 0; round < 12; ++round) {
    Model m;
    m.conf.policy_hierarchy = round % 2 ? "OFS" : "";
    m.conf.weight_tickets_share = 1000;
    m.conf.weight_tickets_functional = 1000;
    m.conf.share_functional_shares = round % 3 != 0;
    m.tree = tree_from(
        "id=0\nname=Root\ntype=0\nshares=1\nchildnodes=1,2\n"
        "id=1\nname=default\ntype=0\nshares=10\nchildnodes=NONE\n"
        "id=2\nname=u3\ntype=0\nshares=30\nchildnodes=NONE\n");
    for (int u = 0; u < 10; ++u)
      if (u % 4 != 3) m.users["u" + std::to_string(u)] = TicketObject{static_cast<double>(1 + u % 3), u % 5 == 0 ? 30.0 : 0.0};
    m.projects["p0"] = TicketObject{5, 0};
    m.departments["d0"] = TicketObject{3, 7};
    auto t = std::make_shared<NameTables>();
    for (const auto& [n, o] : m.users) t->users.add(n, m.users);
    t->users.add("u3", m.users);
    t->projects.add("", m.projects);
    t->projects.add("p0", m.projects);
    t->departments.add("", m.departments);
    t->departments.add("d0", m.departments);
    m.names = t;
    std::vector<Job> q;
    for (size_t i = 0; i < 80; ++i) {
      JobB b(static_cast<uint32_t>(10 + i), "u" + std::to_string(rng() % 12));  // u10, u11: in no table
      if (rng() % 3 == 0) b.project(rng() % 2 ? "p0" : "p1");
      if (rng() % 2) b.dept(rng() % 3 ? "d0" : "d1");
      b.submitted(kNow - static_cast<int64_t>(rng() % 3) * 60);
      if (rng() % 9 == 0) b.running();
      q.push_back(b);
    }
    Model plain = m;
    plain.names = nullptr;
    const TicketResult want = compute_tickets(q, plain);
    std::vector<JobNameIds> right(q.size()), wrong(q.size());
    for (size_t k = 0; k < q.size(); ++k) {
      right[k] = JobNameIds{t->users.find(q[k].user), t->projects.find(q[k].project),
                            t->departments.find(q[k].department)};
      wrong[k] = k % 2 ? JobNameIds{static_cast<uint32_t>(k % t->users.size()), static_cast<uint32_t>(k % 2),
                                    static_cast<uint32_t>((k / 2) % 2)}
                       : JobNameIds{0xfffffff0u, 70000u, 1000u};
    }
    for (const std::vector<JobNameIds>* ids : {&right, &wrong}) {
      TicketOptions o;
      o.name_ids = ids;
      const TicketResult got = compute_tickets(q, m, o);
      for (size_t k = 0; k < q.size(); ++k) {
        EXPECT_EQ(got.jobs[k].stckt, want.jobs[k].stckt) << "round " << round << " job " << q[k].id;
        EXPECT_EQ(got.jobs[k].ftckt, want.jobs[k].ftckt) << "round " << round << " job " << q[k].id;
        EXPECT_EQ(got.jobs[k].otckt, want.jobs[k].otckt) << "round " << round << " job " << q[k].id;
      }
    }
  }
}

// Model::own_usage (leaves' and project nodes' usage precomputed at load)
// gives the pass the same node usage and tickets as computing it per pass,
// with project subtrees, a `default` leaf copied per user, and users outside
// the tree.
TEST(GeOwnUsage, PrecomputedLeafAndProjectUsageEqualsPerPass) {
  Model m;
  m.conf.weight_tickets_share = 1000;
  m.conf.usage_weight_list = UsageWeights{1, 0.5, 0.25};
  m.tree = tree_from(
      "id=0\nname=Root\ntype=0\nshares=1\nchildnodes=1,2,5\n"
      "id=1\nname=alice\ntype=0\nshares=30\nchildnodes=NONE\n"
      "id=2\nname=P1\ntype=1\nshares=40\nchildnodes=3,4\n"
      "id=3\nname=bob\ntype=0\nshares=10\nchildnodes=NONE\n"
      "id=4\nname=default\ntype=0\nshares=5\nchildnodes=NONE\n"
      "id=5\nname=grp\ntype=0\nshares=20\nchildnodes=6\n"
      "id=6\nname=default\ntype=0\nshares=7\nchildnodes=NONE\n");
  m.user_usage["alice"] = Usage{100, 10, 1};
  m.user_usage["carol"] = Usage{50, 0, 0};
  m.user_usage["dan"] = Usage{7, 7, 7};
  m.project_usage["P1"] = Usage{400, 40, 4};
  m.user_project_usage[{"bob", "P1"}] = Usage{300, 0, 2};
  m.user_project_usage[{"carol", "P1"}] = Usage{20, 2, 0};
  std::vector<Job> q = {JobB(1, "alice"), JobB(2, "bob").project("P1"), JobB(3, "carol").project("P1"),
                        JobB(4, "carol"), JobB(5, "dan"), JobB(6, "alice").running()};
  const std::vector<double> own = own_node_usage(m);
  ASSERT_EQ(own.size(), m.tree.nodes.size());
  // combine_usage: the weighted sum over the weights' sum (1.75).
  EXPECT_DOUBLE_EQ(own[1], (100 + 5 + 0.25) / 1.75);
  EXPECT_DOUBLE_EQ(own[2], (400 + 20 + 1) / 1.75);
  EXPECT_DOUBLE_EQ(own[3], (300 + 0.5) / 1.75);
  EXPECT_EQ(own[4], 0.0);  // P1's `default`: no "default:P1" usage
  EXPECT_EQ(own[5], 0.0);  // an inner node: its children's sum, per pass
  const TicketResult per_pass = compute_tickets(q, m);
  m.own_usage = own;
  const TicketResult pre = compute_tickets(q, m);
  ASSERT_EQ(pre.nodes.size(), per_pass.nodes.size());
  for (size_t i = 0; i < pre.nodes.size(); ++i) {
    EXPECT_EQ(pre.nodes[i].usage, per_pass.nodes[i].usage) << pre.nodes[i].name;
    EXPECT_EQ(pre.nodes[i].stt, per_pass.nodes[i].stt) << pre.nodes[i].name;
  }
  for (size_t k = 0; k < q.size(); ++k) EXPECT_EQ(pre.jobs[k].stckt, per_pass.jobs[k].stckt) << q[k].id;
  bool copied = false;
  for (const auto& n : pre.nodes) copied = copied || (n.user_copy && n.usage > 0);
  EXPECT_TRUE(copied);  // carol's and dan's copies of `default` read their own usage
}

// ---- policy_hierarchy dependencies as 8.1.9's sge_calc_tickets has them ------------
// Worked example (by hand): F before S (FS), more pending jobs than
// max_functional_jobs_to_schedule (1).  weight_tickets_functional 1000,
// weight_user 1 (the other functional weights 0), weight_tickets_share 1000,
// share tree Root -> alice (50), bob (50), no usage; fshare alice 100, bob 100.
// Running: job 10 (alice).  Pending: alice 1, alice 2, bob 3.
//  Functional, running: alice has 1 running job: sum_user = 100/1 = 100;
//    job 10 ftckt = 100 * 1000 / 100 = 1000.
//  Functional, pending (categories A = alice {1, 2}, B = bob {3}), one pick:
//    A: (100 / (1 + 1)) * 1000 / (100 + 0.001) = 499.995000049999...
//    B: (100 / (0 + 1)) * 1000 / 100.001       = 999.990000099999...
//    B wins: job 3 counts as running, sum_user = 200, ftckt 3 = 100*1000/200 = 500.
//    A is not exhausted: jobs 1 and 2 report A's last evaluation, 499.995...
//  Tickets S sorts on (dependent): job 3: 500 (picked); job 2: 499.995 (a
//    member after the category's first remaining one); job 1: 0 (the first
//    remaining one keeps 0, 8.1.9's destribute_ftickets starts at the second).
//  Share tree, pass 1: alice and bob active, ltt 0.5, shr = 50^2/max(0, 0.5)
//    = 5000 each, stt 0.5 each.  The root has two active children: no
//    assignment there.  alice's list: running job 10 first, then job 2
//    (499.995), then job 1 (0): job 2 gets 0.5/2 * 1000 = 250, job 1
//    0.5/3 * 1000 = 166.666...; bob's list: job 3 gets 0.5/1 * 1000 = 500.
//    (Adding job 1's functional tickets too, as before, made 1 and 2 tie and
//    job 1 took 250, job 2 166.67: the two swapped.)
//  Totals: job 1 166.667 + 499.995 = 666.662; job 2 250 + 499.995 = 749.995;
//    job 3 500 + 500 = 1000.  Job 10: pass 2 (running only: alice alone, stt 1)
//    1000 share + 1000 functional = 2000 = max_tix.
//  With weight_ticket 1 and the other weights 0, prio = tckts / 2000, so the
//    pending order is 3, 2, 1.
TEST(GePolicyHierarchy, FunctionalBeforeShareTreeLeavesTheFirstRemainingMemberOut) {
  Model m = share_model(kTwoUsers);
  m.conf.policy_hierarchy = "FS";
  m.conf.weight_tickets_functional = 1000;
  m.conf.weight_user = 1;
  m.conf.weight_project = m.conf.weight_department = m.conf.weight_job = 0;
  m.conf.max_functional_jobs_to_schedule = 1;
  m.conf.weight_ticket = 1;
  m.conf.weight_urgency = m.conf.weight_priority = 0;
  m.users["alice"].fshare = 100;
  m.users["bob"].fshare = 100;
  std::vector<Job> q = {JobB(1, "alice").waited(30), JobB(2, "alice").waited(20), JobB(3, "bob").waited(10),
                        JobB(10, "alice").running()};
  TicketResult r = compute_tickets(q, m);
  const double a_eval = 50.0 * 1000 / 100.001;
  EXPECT_NEAR(r.jobs[0].ftckt, a_eval, 1e-9);
  EXPECT_NEAR(r.jobs[1].ftckt, a_eval, 1e-9);
  EXPECT_NEAR(r.jobs[2].ftckt, 500.0, 1e-9);
  EXPECT_NEAR(r.jobs[3].ftckt, 1000.0, 1e-9);
  EXPECT_NEAR(r.jobs[0].stckt, 1000.0 / 6, 1e-9);
  EXPECT_NEAR(r.jobs[1].stckt, 250.0, 1e-9);
  EXPECT_NEAR(r.jobs[2].stckt, 500.0, 1e-9);
  EXPECT_NEAR(r.jobs[3].stckt, 1000.0, 1e-9);
  EXPECT_NEAR(r.jobs[0].tckts, 1000.0 / 6 + a_eval, 1e-9);
  EXPECT_NEAR(r.jobs[1].tckts, 250.0 + a_eval, 1e-9);
  EXPECT_NEAR(r.max_tix, 2000.0, 1e-9);
  PricingResult pr;
  std::string why;
  ASSERT_TRUE(price_queue(q, m, kNow, &pr, &why)) << why;
  ASSERT_EQ(pr.pending_order.size(), 3u);
  EXPECT_EQ(pr.jobs[pr.pending_order[0]].id, 3u);
  EXPECT_EQ(pr.jobs[pr.pending_order[1]].id, 2u);
  EXPECT_EQ(pr.jobs[pr.pending_order[2]].id, 1u);
  // Enough picks for every pending job: every category is exhausted and
  // every job's functional tickets enter the sort (1 and 2 tie: id order).
  m.conf.max_functional_jobs_to_schedule = 200;
  r = compute_tickets(q, m);
  EXPECT_NEAR(r.jobs[0].stckt, 250.0, 1e-9);
  EXPECT_NEAR(r.jobs[1].stckt, 1000.0 / 6, 1e-9);
}

// Worked example: S before O (SO), both dependent; alice has 300 override
// tickets (shared), jobs 1 (no -ot) and 2 (-ot 10), one leaf.
//  S: keys 0 and 0 (nothing before it): id order, job 1 gets stt 1 -> 1000,
//    job 2 1/2 -> 500 share-tree tickets.
//  O (8.1.9 calculate_pending_shared_override_tickets): categories
//    {-ot 0, alice} = [1] and {-ot 10, alice} = [2]; a round's value is the
//    override part alone (300/(0+1) = 300 for job 1, 300 + 10 = 310 for
//    job 2), not the earlier tickets: job 2 wins with 310, then job 1 gets
//    300/2 = 150.  (Ranking on -ot + prior, as before, let job 1 win: 300 and 160.)
TEST(GePolicyHierarchy, DependentOverrideRoundsRankOnOverrideTicketsAlone) {
  Model m = share_model("id=0\nname=Root\ntype=0\nshares=1\nchildnodes=1\n"
                        "id=1\nname=alice\ntype=0\nshares=10\nchildnodes=NONE\n");
  m.conf.policy_hierarchy = "SO";
  m.users["alice"].oticket = 300;
  std::vector<Job> q = {JobB(1, "alice"), JobB(2, "alice").ot(10)};
  TicketResult r = compute_tickets(q, m);
  EXPECT_NEAR(r.jobs[0].stckt, 1000.0, 1e-9);
  EXPECT_NEAR(r.jobs[1].stckt, 500.0, 1e-9);
  EXPECT_NEAR(r.jobs[1].otckt, 310.0, 1e-9);
  EXPECT_NEAR(r.jobs[0].otckt, 150.0, 1e-9);
  EXPECT_NEAR(r.jobs[0].tckts, 1150.0, 1e-9);
  EXPECT_NEAR(r.jobs[1].tckts, 810.0, 1e-9);
}

// A caller that runs many passes keeps the ticket pass's arrays (TicketScratch)
// and its result, and indexes the share tree once (Model::tree_index): every
// job's tickets and every node of both passes must be those of a fresh pass,
// whatever ran on the arrays before (queues growing and shrinking, `default`
// leaves copied per user, projects with and without nodes, dependent and
// independent hierarchies).
TEST(GeTicketScratch, ReusedArraysAndTreeIndexGiveAFreshPassResult) {
  std::mt19937 rng(41);
  TicketScratch scratch;
  TicketResult kept;
  for (int round = 0; round < 40; ++round) {
    Model m;
    const char* hier[] = {"OFS", "SF", "", "FS"};
    m.conf.policy_hierarchy = hier[round % 4];
    m.conf.weight_tickets_share = 1000 + 10 * round;
    m.conf.weight_tickets_functional = round % 5 == 0 ? 0 : 2000;
    m.conf.share_functional_shares = round % 3 != 0;
    m.conf.max_functional_jobs_to_schedule = static_cast<uint32_t>(round % 2 ? 5 : 100);
    m.tree = tree_from(
        "id=0\nname=Root\ntype=0\nshares=1\nchildnodes=1,2,3\n"
        "id=1\nname=default\ntype=0\nshares=10\nchildnodes=NONE\n"
        "id=2\nname=u3\ntype=0\nshares=30\nchildnodes=NONE\n"
        "id=3\nname=p0\ntype=1\nshares=40\nchildnodes=4,5\n"
        "id=4\nname=u1\ntype=0\nshares=5\nchildnodes=NONE\n"
        "id=5\nname=default\ntype=0\nshares=3\nchildnodes=NONE\n");
    for (int u = 0; u < 12; ++u)
      if (u % 5 != 4) m.users["u" + std::to_string(u)] = TicketObject{static_cast<double>(u % 3), u % 4 == 0 ? 60.0 : 0.0};
    for (int p = 0; p < 4; ++p) m.projects["p" + std::to_string(p)] = TicketObject{static_cast<double>(p % 2 * 10), 0};
    m.departments["d1"] = TicketObject{4, round % 2 ? 20.0 : 0.0};
    m.user_usage["u3"] = Usage{500, 0, 0};
    m.project_usage["p0"] = Usage{2000, 0, 0};
    const size_t n = round % 2 ? 20 + static_cast<size_t>(round) : 200 - 3 * static_cast<size_t>(round);
    const std::vector<Job> q = random_queue(rng, n);
    const TicketResult fresh = compute_tickets(q, m);
    Model indexed = m;
    indexed.tree_index = index_share_tree(indexed.tree);
    indexed.tree_index_of = &indexed.tree;
    TicketOptions o;
    o.scratch = &scratch;
    compute_tickets(q, round % 3 ? indexed : m, o, &kept);
    ASSERT_EQ(kept.jobs.size(), fresh.jobs.size()) << "round " << round;
    EXPECT_EQ(kept.max_tix, fresh.max_tix) << "round " << round;
    for (size_t k = 0; k < q.size(); ++k) {
      const JobTickets &a = kept.jobs[k], &b = fresh.jobs[k];
      EXPECT_TRUE(a.stckt == b.stckt && a.ftckt == b.ftckt && a.otckt == b.otckt && a.tckts == b.tckts &&
                  a.pass1_tckts == b.pass1_tckts && a.share_node == b.share_node && a.share_bound == b.share_bound)
          << "round " << round << " job " << q[k].id;
    }
    for (int pass = 0; pass < 2; ++pass) {
      const auto& A = pass ? kept.nodes_running : kept.nodes;
      const auto& B = pass ? fresh.nodes_running : fresh.nodes;
      ASSERT_EQ(A.size(), B.size()) << "round " << round;
      for (size_t k = 0; k < A.size(); ++k)
        EXPECT_TRUE(A[k].name == B[k].name && A[k].project == B[k].project && A[k].children == B[k].children &&
                    A[k].parent == B[k].parent && A[k].user_copy == B[k].user_copy && A[k].usage == B[k].usage &&
                    A[k].jobs == B[k].jobs && A[k].direct_jobs == B[k].direct_jobs &&
                    A[k].direct_running == B[k].direct_running && A[k].active == B[k].active &&
                    A[k].stt == B[k].stt && A[k].ostt == B[k].ostt && A[k].compensated == B[k].compensated)
            << "round " << round << " pass " << pass << " node " << k;
    }
  }
}

namespace {
// Every number of two ticket results, and their share nodes.
void expect_same_tickets(const TicketResult& got, const TicketResult& want, const std::string& what) {
  ASSERT_EQ(got.jobs.size(), want.jobs.size()) << what;
  EXPECT_EQ(got.max_tix, want.max_tix) << what;
  for (size_t k = 0; k < want.jobs.size(); ++k) {
    const JobTickets &a = got.jobs[k], &b = want.jobs[k];
    EXPECT_EQ(a.stckt, b.stckt) << what << " job " << k;
    EXPECT_EQ(a.ftckt, b.ftckt) << what << " job " << k;
    EXPECT_EQ(a.otckt, b.otckt) << what << " job " << k;
    EXPECT_EQ(a.pass1_tckts, b.pass1_tckts) << what << " job " << k;
    EXPECT_EQ(a.share_node, b.share_node) << what << " job " << k;
    EXPECT_EQ(a.share_bound, b.share_bound) << what << " job " << k;
  }
  for (const auto& [x, y] : {std::make_pair(&got.nodes, &want.nodes), std::make_pair(&got.nodes_running,
                                                                                     &want.nodes_running)}) {
    ASSERT_EQ(x->size(), y->size()) << what;
    for (size_t n = 0; n < y->size(); ++n) {
      EXPECT_EQ((*x)[n].name, (*y)[n].name) << what << " node " << n;
      EXPECT_EQ((*x)[n].project, (*y)[n].project) << what << " node " << n;
      EXPECT_EQ((*x)[n].children, (*y)[n].children) << what << " node " << n;
      EXPECT_EQ((*x)[n].usage, (*y)[n].usage) << what << " node " << n;
      EXPECT_EQ((*x)[n].jobs, (*y)[n].jobs) << what << " node " << n;
      EXPECT_EQ((*x)[n].ostt, (*y)[n].ostt) << what << " node " << n;
    }
  }
}

// A model with numbered names and its tree indexed, as a policy's state
// keeps it: project subtrees, `default` leaves inside and outside them.
Model kept_state_model() {
  Model m;
  m.conf.weight_tickets_share = 1000;
  m.conf.weight_tickets_functional = 500;
  m.conf.compensation_factor = 2;
  m.tree = tree_from(
      "id=0\nname=Root\ntype=0\nshares=1\nchildnodes=1,2,3,6\n"
      "id=1\nname=default\ntype=0\nshares=10\nchildnodes=NONE\n"
      "id=2\nname=u1\ntype=0\nshares=30\nchildnodes=NONE\n"
      "id=3\nname=p0\ntype=1\nshares=40\nchildnodes=4,5\n"
      "id=4\nname=u2\ntype=0\nshares=5\nchildnodes=NONE\n"
      "id=5\nname=default\ntype=0\nshares=3\nchildnodes=NONE\n"
      "id=6\nname=p1\ntype=1\nshares=20\nchildnodes=NONE\n");
  for (int u = 0; u < 6; ++u) m.users["u" + std::to_string(u)] = TicketObject{double(1 + u % 3), u == 2 ? 40.0 : 0.0};
  m.projects["p0"] = TicketObject{5, 0};
  m.projects["p1"] = TicketObject{2, 0};
  m.departments["d0"] = TicketObject{3, 0};
  m.user_usage["u1"] = Usage{500, 0, 0};
  m.user_project_usage[{"u2", "p0"}] = Usage{90, 0, 0};
  m.project_usage["p0"] = Usage{300, 0, 0};
  auto t = std::make_shared<NameTables>();
  for (const auto& [n, o] : m.users) t->users.add(n, m.users);
  t->projects.add("", m.projects);
  for (const auto& [n, o] : m.projects) t->projects.add(n, m.projects);
  t->departments.add("", m.departments);
  t->departments.add("d0", m.departments);
  m.names = t;
  return m;
}
}  // namespace

// One TicketScratch over many passes of one state (its names and tree
// index the same objects: the pass keeps each (user, project)'s leaf, and
// each job position's last leaf) gives every pass what a fresh pass without
// names or index gives, whatever each queue holds: new users and projects
// (some in no table), `default` leaves copied per user, running jobs, the
// last queue again or reversed; and a new state's model (names and index
// new objects) is not answered from the last one's.
TEST(GeTicketScratch, KeptStateOverManyQueuesEqualsFreshPasses) {
  std::mt19937 rng(11);
  Model m = kept_state_model();
  m.tree_index = index_share_tree(m.tree);
  m.tree_index_of = &m.tree;
  Model plain = m;
  plain.names = nullptr;
  plain.tree_index = nullptr;
  plain.tree_index_of = nullptr;
  TicketScratch scratch;
  TicketResult kept;
  for (int round = 0; round < 30; ++round) {
    if (round == 20) {  // a new state: the same names object, another tree (u1 moves into p0)
      Model next = kept_state_model();
      next.names = m.names;
      next.tree = tree_from(
          "id=0\nname=Root\ntype=0\nshares=1\nchildnodes=1,2\n"
          "id=1\nname=default\ntype=0\nshares=10\nchildnodes=NONE\n"
          "id=2\nname=p0\ntype=1\nshares=40\nchildnodes=3\n"
          "id=3\nname=u1\ntype=0\nshares=5\nchildnodes=NONE\n");
      m = next;
      m.tree_index = index_share_tree(m.tree);
      m.tree_index_of = &m.tree;
      plain = m;
      plain.names = nullptr;
      plain.tree_index = nullptr;
      plain.tree_index_of = nullptr;
    }
    std::vector<Job> q;
    const size_t n = 5 + rng() % 40;
    for (size_t i = 0; i < n; ++i) {
      JobB b(static_cast<uint32_t>(100 + i), "u" + std::to_string(rng() % (round < 10 ? 3 : 8)));  // u6, u7: no table
      if (rng() % 2) b.project("p" + std::to_string(rng() % 3));  // p2: no table, no project
      if (rng() % 2) b.dept("d0");
      b.submitted(kNow - static_cast<int64_t>(rng() % 4) * 60);
      if (rng() % 5 == 0) b.running();
      q.push_back(b);
    }
    TicketOptions o;
    o.scratch = &scratch;
    compute_tickets(q, m, o, &kept);
    expect_same_tickets(kept, compute_tickets(q, plain), "round " + std::to_string(round));
    // The same queue again (every position's kept leaf its own job's), then
    // reversed (most positions' kept leaf another job's).
    compute_tickets(q, m, o, &kept);
    expect_same_tickets(kept, compute_tickets(q, plain), "round " + std::to_string(round) + " again");
    std::reverse(q.begin(), q.end());
    compute_tickets(q, m, o, &kept);
    expect_same_tickets(kept, compute_tickets(q, plain), "round " + std::to_string(round) + " reversed");
  }
}

// TicketOptions::kept_jobs: the first jobs of the scratch's last pass kept
// at their places (their flat records, share-tree nodes with `default`
// leaves' user copies, functional buckets and sub keys and override
// categories not read again), the others new or changed, running and
// pending mixed; each pass equals a fresh one.
TEST(GeTicketScratch, KeptFlatJobsEqualAFreshPass) {
  std::mt19937 rng(23);
  Model m = kept_state_model();  // u0, u3, u4, u5 under `default`: copies
  m.tree_index = index_share_tree(m.tree);  // the tree cache kept too: the kept jobs keep their nodes
  m.tree_index_of = &m.tree;
  auto make = [&](size_t n, uint32_t first_id) {
    std::vector<TicketJob> v;
    for (size_t i = 0; i < n; ++i) {
      JobB b(first_id + static_cast<uint32_t>(i), "u" + std::to_string(rng() % 6));
      if (rng() % 2) b.project("p" + std::to_string(rng() % 2));
      if (rng() % 2) b.dept("d0");
      if (rng() % 4 == 0) b.js(1 + rng() % 3);
      b.submitted(kNow - static_cast<int64_t>(rng() % 5) * 60);
      if (rng() % 4 == 0) b.running();
      v.push_back(ticket_job(b, m.names.get()));
    }
    return v;
  };
  TicketScratch scratch;
  TicketResult kept;
  std::vector<TicketJob> q = make(40, 100);
  size_t same = 0;
  for (int round = 0; round < 12; ++round) {
    TicketOptions o;
    o.scratch = &scratch;
    o.kept_jobs = same;
    compute_tickets(q.data(), q.size(), m, o, &kept);
    TicketResult fresh;
    compute_tickets(q.data(), q.size(), m, TicketOptions{}, &fresh);
    expect_same_tickets(kept, fresh, "round " + std::to_string(round) + " kept " + std::to_string(same));
    // Next: the first `same` jobs as they are and the others new (another
    // count, other users, running where they were pending), or those alone
    // (the last ones dropped), or all of them again.
    same = round % 3 == 2 ? q.size() : 1 + static_cast<size_t>(rng() % (q.size() - 1));
    std::vector<TicketJob> tail = make(5 + rng() % 40, 1000 + static_cast<uint32_t>(round) * 100);
    if (same < q.size()) q.resize(same);
    if (round % 3 == 0 || q.size() < 10) q.insert(q.end(), tail.begin(), tail.end());
  }
}

// A state's tables stand for the last state's (GridEnginePolicy::build
// shares them) only with the same names and the same ticket objects.
TEST(GeNameTables, SameObjectsNeedsTheSameNamesAndTicketObjects) {
  const Model m = kept_state_model();
  const NameTables& a = *m.names;
  NameTables b = a;
  EXPECT_TRUE(a.same_objects(b));
  b.users.objects[2].fshare += 1;  // a functional share changed
  EXPECT_TRUE(a == b);             // (the names, and so the handles' layout, are the same)
  EXPECT_FALSE(a.same_objects(b));
  b = a;
  b.departments.objects[1].oticket = 7;  // override tickets
  EXPECT_FALSE(a.same_objects(b));
  b = a;
  b.projects.has_object[0] = !b.projects.has_object[0];
  EXPECT_FALSE(a.same_objects(b));
  b = a;
  b.users.add("u9", m.users);  // a new name
  EXPECT_FALSE(a.same_objects(b));
}

// A pass whose pending jobs are all the last pass's keeps its functional
// categories only while the priors they are ordered by are the same: running
// jobs after them (u2's share u2's override tickets) change the pending
// jobs' override priors, pass after pass; and the functional step's result
// only while every job is the last pass's; each pass equals a fresh one.
TEST(GeTicketScratch, KeptCategoriesOnlyWithTheSamePriors) {
  std::mt19937 rng(29);
  Model m = kept_state_model();  // u2: 40 override tickets
  m.tree_index = index_share_tree(m.tree);
  m.tree_index_of = &m.tree;
  std::vector<TicketJob> pending;
  for (uint32_t i = 0; i < 30; ++i) {
    JobB b(100 + i, "u" + std::to_string(i % 3 == 0 ? 2 : rng() % 6));
    if (rng() % 2) b.project("p" + std::to_string(rng() % 2));
    if (rng() % 3 == 0) b.dept("d0");
    if (rng() % 4 == 0) b.js(1 + rng() % 3);
    b.submitted(kNow - static_cast<int64_t>(rng() % 4) * 60);
    pending.push_back(ticket_job(b, m.names.get()));
  }
  // Per round, the running jobs after the pending ones (users): u1's job
  // becoming u0's leaves the priors as they were (no override tickets) but
  // not the functional tickets (the running counts and sums).
  const std::vector<std::vector<std::string>> running = {{},     {"u2"}, {"u2", "u2"}, {"u2", "u2"},
                                                         {"u1"}, {"u1"}, {"u0"},       {"u0"},
                                                         {"u0"}, {"u0"}};
  // OFS: F after O, ordered by the override priors; OS: F after both, independent.
  for (const char* hier : {"OFS", "OS"}) {
    m.conf.policy_hierarchy = hier;
    m.conf.max_functional_jobs_to_schedule = 200;
    m.conf.weight_user = 0.25;
    TicketScratch scratch;
    TicketResult kept;
    std::vector<double> last_ot;
    size_t priors_changed = 0;
    for (size_t round = 0; round < running.size(); ++round) {
      if (round == 8) m.conf.max_functional_jobs_to_schedule = 3;  // the same jobs and priors, fewer picks
      if (round == 9) m.conf.weight_user = 0.9;                      // and another weight
      std::vector<TicketJob> q = pending;
      for (size_t r = 0; r < running[round].size(); ++r)
        q.push_back(ticket_job(JobB(500 + static_cast<uint32_t>(r), running[round][r]).running(), m.names.get()));
      TicketOptions o;
      o.scratch = &scratch;
      o.job_tickets = true;
      // Kept: the pending jobs, and the running ones when they are the last round's.
      o.kept_jobs = round == 0 ? 0 : running[round] == running[round - 1] ? q.size() : pending.size();
      compute_tickets(q.data(), q.size(), m, o, &kept);
      TicketResult fresh;
      compute_tickets(q.data(), q.size(), m, TicketOptions{}, &fresh);
      expect_same_tickets(kept, fresh, std::string(hier) + " round " + std::to_string(round));
      std::vector<double> ot;
      for (size_t k = 0; k < pending.size(); ++k) ot.push_back(fresh.jobs[k].otckt);
      priors_changed += round > 0 && ot != last_ot;
      last_ot = ot;
    }
    EXPECT_GE(priors_changed, 2u);  // the rounds do change the priors (else nothing here is tested)
  }
}

// The flat entry over TicketJobs that carry only names (every id kNoName)
// gives what the Job form gives, with numbered names and without.
TEST(GeTicketJob, NamesOnlyEqualJobForm) {
  Model m = kept_state_model();
  std::vector<Job> q = {JobB(1, "u1"), JobB(2, "u2").project("p0").dept("d0"), JobB(3, "u9").project("p0"),
                        JobB(4, "u0").project("p9").running(), JobB(5, "u1").pe(4).js(2),
                        JobB(6, "u2").project("p1").ot(10)};
  for (const bool named : {true, false}) {
    Model mm = m;
    if (!named) mm.names = nullptr;
    std::vector<TicketJob> flat;
    for (const Job& j : q) flat.push_back(ticket_job(j, nullptr));
    for (const TicketJob& t : flat) EXPECT_EQ(t.user, kNoName);
    EXPECT_EQ(flat[4].dilute, 4u);
    TicketResult got;
    compute_tickets(flat.data(), flat.size(), mm, TicketOptions{}, &got);
    expect_same_tickets(got, compute_tickets(q, mm), named ? "named" : "plain");
  }
}

// A pass with TicketOptions::job_tickets false writes no JobTickets:
// job_tickets() rebuilds each job's from the scratch, and it must equal
// what a pass writing them gives (every field, share_bound of pending and
// running jobs under a compensated tree included), with the same totals and
// max_tix, pass after pass on one scratch (dependent and independent
// hierarchies, with and without the share tree).
TEST(GeTicketScratch, JobTicketsOnDemandEqualTheWrittenOnes) {
  std::mt19937 rng(23);
  Model m = kept_state_model();
  m.tree_index = index_share_tree(m.tree);
  m.tree_index_of = &m.tree;
  TicketScratch scratch;
  TicketResult lazy;
  size_t bound_pending = 0, bound_running = 0;
  for (int round = 0; round < 24; ++round) {
    const char* hier[] = {"OFS", "SF", "", "FS"};
    m.conf.policy_hierarchy = hier[round % 4];
    m.conf.weight_tickets_share = round % 6 == 5 ? 0 : 1000;
    m.conf.compensation_factor = round % 3 == 0 ? 0 : 1.5;
    const std::vector<Job> q = random_queue(rng, 10 + static_cast<size_t>(rng() % 60));
    const TicketResult want = compute_tickets(q, m);
    TicketOptions o;
    o.scratch = &scratch;
    o.job_tickets = false;
    compute_tickets(q, m, o, &lazy);
    EXPECT_TRUE(lazy.jobs.empty()) << "round " << round;
    ASSERT_EQ(lazy.tckts.size(), q.size()) << "round " << round;
    EXPECT_EQ(lazy.max_tix, want.max_tix) << "round " << round;
    for (size_t k = 0; k < q.size(); ++k) {
      const JobTickets a = job_tickets(lazy, scratch, k);
      const JobTickets& b = want.jobs[k];
      EXPECT_TRUE(a.stckt == b.stckt && a.ftckt == b.ftckt && a.otckt == b.otckt && a.tckts == b.tckts &&
                  a.pass1_tckts == b.pass1_tckts && a.share_node == b.share_node && a.share_bound == b.share_bound)
          << "round " << round << " job " << q[k].id;
      EXPECT_EQ(lazy.tckts[k], b.tckts) << "round " << round << " job " << q[k].id;
      EXPECT_EQ(want.tckts[k], b.tckts) << "round " << round << " job " << q[k].id;
      if (b.share_bound) ++(q[k].running ? bound_running : bound_pending);
    }
  }
  // The comparison saw compensated paths of both kinds of job.
  EXPECT_GT(bound_pending, 0u);
  EXPECT_GT(bound_running, 0u);
}

namespace {
// Root -> g0, g1 -> 3 projects each (p0..p5) -> 25 user leaves each (u0..u24).
std::string layered_tree_spec() {
  std::string spec = "id=0\nname=Root\ntype=0\nshares=1\nchildnodes=1,2\n";
  int next = 3;
  std::string below;
  for (int g = 0; g < 2; ++g) {
    std::string kids;
    for (int p = 0; p < 3; ++p) {
      const int pid = next++;
      kids += (p ? "," : "") + std::to_string(pid);
      std::string leaves;
      std::string leaf_specs;
      for (int u = 0; u < 25; ++u) {
        const int lid = 100 + (g * 3 + p) * 25 + u;
        leaves += (u ? "," : "") + std::to_string(lid);
        leaf_specs += "id=" + std::to_string(lid) + "\nname=u" + std::to_string(u) + "\ntype=0\nshares=" +
                      std::to_string(1 + (u * 7 + p) % 9) + "\nchildnodes=NONE\n";
      }
      below += "id=" + std::to_string(pid) + "\nname=p" + std::to_string(g * 3 + p) + "\ntype=1\nshares=" +
               std::to_string(10 + p) + "\nchildnodes=" + leaves + "\n" + leaf_specs;
    }
    spec += "id=" + std::to_string(1 + g) + "\nname=g" + std::to_string(g) + "\ntype=0\nshares=" +
            std::to_string(40 + g * 10) + "\nchildnodes=" + kids + "\n";
  }
  return spec + below;
}

// RadixLevelsEqualRunMerges' model: OFS, shared functional and override tickets.
Model layered_model(int round) {
  Model m;
  m.tree = tree_from(layered_tree_spec());
  m.conf.policy_hierarchy = round == 3 ? "FS" : "OFS";
  m.conf.weight_tickets_share = 10000;
  m.conf.weight_tickets_functional = round == 2 ? 0 : 5000;
  m.conf.compensation_factor = round % 2 ? 2 : 0;
  m.conf.share_functional_shares = round != 1;
  m.conf.share_override_tickets = true;
  m.conf.max_functional_jobs_to_schedule = 100;
  m.conf.weight_user = m.conf.weight_project = m.conf.weight_department = m.conf.weight_job = 0.25;
  for (int u = 0; u < 25; ++u)
    m.users["u" + std::to_string(u)] =
        TicketObject{round == 1 ? 5.0 : static_cast<double>(1 + u % 4), u % 7 == 0 ? 300.0 : 0.0};
  for (int p = 0; p < 6; ++p) m.projects["p" + std::to_string(p)] = TicketObject{static_cast<double>(2 + p % 3), 0};
  m.departments["d0"] = TicketObject{4, round == 0 ? 50.0 : 0.0};
  return m;
}

// A RadixLevelsEqualRunMerges job: job ids 5i + 4 and 5i + 3 the same.
Job layered_job(std::mt19937& rng, size_t i, int round) {
  JobB b(static_cast<uint32_t>(1 + (i % 5 == 4 ? i - 1 : i)), "u" + std::to_string(rng() % 25));
  b.project("p" + std::to_string(rng() % 6));
  if (rng() % 2) b.dept("d0");
  if (rng() % 6 == 0) b.js(static_cast<double>(1 + rng() % 3));
  if (rng() % 15 == 0) b.pe(2 + static_cast<uint32_t>(rng() % 7));
  if (round == 0 && rng() % 40 == 0) b.ot(20);
  b.submitted(kNow - static_cast<int64_t>(rng() % 5) * 60);
  if (rng() % 25 == 0) b.running();
  return b;
}
}  // namespace

// Share-tree levels sorted by radix where their children's lists arrive cut
// into many runs (levels of >= 1024 jobs: prior tickets of a dependent
// step, many users and projects) give every job the tickets the run merges
// alone give: duplicate job ids, equal submit times, -js, PE dilution,
// running jobs, keys tied on the prior (equal functional shares) and
// rounds without functional or override tickets.
TEST(GeShareSort, RadixLevelsEqualRunMerges) {
  std::mt19937 rng(41);
  for (int round = 0; round < 4; ++round) {
    const Model m = layered_model(round);
    std::vector<Job> q;
    const size_t n = 7000;
    for (size_t i = 0; i < n; ++i) q.push_back(layered_job(rng, i, round));
    TicketOptions merges;
    merges.radix_share_levels = false;
    const TicketResult want = compute_tickets(q, m, merges);
    expect_same_tickets(compute_tickets(q, m), want, "round " + std::to_string(round));
    // The share tree gave the pending jobs tickets of many distinct values.
    std::set<double> values;
    for (size_t k = 0; k < q.size(); ++k)
      if (!q[k].running) values.insert(want.jobs[k].stckt);
    EXPECT_GT(values.size(), 1000u) << "round " << round;
  }
}

// A kept scratch reuses each share-tree node's sorted order of the last
// pass only where it is still the order (ShareSort::order_range): passes over
// a queue that changes between them give every job what a fresh pass
// gives.  The same queue again (every order reused), then -js changed (the
// priors and keys with it), jobs removed, added, swapped (a range of the
// same length in another order), usage changed; and two jobs of one id in
// one leaf, the later one first in the last pass, tied in (k, id) in this
// one (the kept order ascending but not strictly: the stable order puts
// the earlier one first).
TEST(GeTicketScratch, KeptShareOrdersOverChangingQueuesEqualFreshPasses) {
  std::mt19937 rng(29);
  TicketScratch scratch;
  TicketResult kept;
  TicketOptions o;
  o.scratch = &scratch;
  for (int model = 0; model < 4; ++model) {
    Model m = layered_model(model);
    std::vector<Job> q;
    for (size_t i = 0; i < 3000; ++i) q.push_back(layered_job(rng, i, model));
    for (int round = 0; round < 12; ++round) {
      const std::string what = "model " + std::to_string(model) + " round " + std::to_string(round);
      compute_tickets(q, m, o, &kept);
      expect_same_tickets(kept, compute_tickets(q, m), what);
      compute_tickets(q, m, o, &kept);
      expect_same_tickets(kept, compute_tickets(q, m), what + " again");
      switch (round % 5) {
        case 0:
          for (int k = 0; k < 3; ++k) q[rng() % q.size()].job_share = static_cast<double>(rng() % 4);
          break;
        case 1:
          for (int k = 0; k < 2; ++k) q.erase(q.begin() + static_cast<long>(rng() % q.size()));
          break;
        case 2:
          for (int k = 0; k < 2; ++k) q.push_back(layered_job(rng, 10000 + q.size(), model));
          break;
        case 3:
          for (int k = 0; k < 5; ++k) std::swap(q[rng() % q.size()], q[rng() % q.size()]);
          break;
        default:
          m.user_usage["u" + std::to_string(rng() % 25)] = Usage{static_cast<double>(rng() % 5000), 0, 0};
      }
    }
  }
  Model m = share_model("id=0\nname=Root\ntype=0\nshares=1\nchildnodes=1\n"
                        "id=1\nname=alice\ntype=0\nshares=10\nchildnodes=NONE\n");
  m.conf.policy_hierarchy = "OFS";
  std::vector<Job> q = {JobB(7, "alice").js(1), JobB(7, "alice").js(2).pe(4)};
  compute_tickets(q, m, o, &kept);
  expect_same_tickets(kept, compute_tickets(q, m), "ids tied, keys not");
  q[1].job_share = 1;
  compute_tickets(q, m, o, &kept);
  expect_same_tickets(kept, compute_tickets(q, m), "ids and keys tied");
  EXPECT_GT(kept.jobs[0].stckt, kept.jobs[1].stckt);
}
