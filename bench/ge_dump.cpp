// ge_dump.cpp - mfprio-bench-ge-dump: every number of Grid Engine's pricing
// pass over seeded random queues, for checking that a change to the pass's
// code leaves its results alone (bench/README.md, "Grid Engine").
//
//   mfprio-bench-ge-dump [ROUNDS] > dump.txt     (default 200 rounds)
//
// Per round: a model (one of 10 policy hierarchies, functional and override
// tickets on users, projects and departments, a share tree with `default`
// leaves inside and outside a project node, usage, names numbered or not)
// and a queue of 20..319 jobs (PE ranges with every urgency_slots setting,
// requests of numeric and string complexes, deadlines, -js, -ot, POSIX
// priorities, running jobs).  Printed as hex floats: price_queue's every
// JobPrice field and term, pass-1 totals, share nodes of both passes and the
// pending order.  Checked silently on each round (a line starting with
// MISMATCH otherwise): the policy's form of the pass (given urgency, no
// terms, no order), and one TicketScratch and PricingResult reused over all
// rounds with the model's tree index, against the fresh pass.  Two builds'
// dumps are compared with cmp.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ge_priority.hpp"
#include "ge_tickets.hpp"
#include "qconf.hpp"

using namespace mfprio::gridengine;

namespace {

constexpr int64_t kNow = 1700000000;

// "u3", "p0", ... (appended, not "u" + to_string: GCC 12 warns falsely on that at -O3).
template <typename T>
std::string nm(char c, T k) {
  std::string s(1, c);
  s += std::to_string(k);
  return s;
}

ComplexTable complexes() {
  ComplexTable cx = ComplexTable::builtin();
  std::string why;
  if (!parse_complexes("#name shortcut type relop requestable consumable default urgency\n"
                       "arch a RESTRING == YES NO NONE 0\nh_rt h_rt TIME <= YES NO 0:0:0 10\n"
                       "mem_free mf MEMORY <= YES NO 0 2\nmatlab ml BOOL == YES YES 0 5000\n"
                       "slots s INT <= YES YES 1 1000\ntq tq RESTRING == YES NO NONE 40000\n"
                       "uq uq RESTRING == YES NO NONE 80000\n",
                       "ge_dump.complexes", &cx, &why)) {
    std::fprintf(stderr, "%s\n", why.c_str());
    std::exit(2);
  }
  return cx;
}

void set_conf(SchedConf& c, int round) {
  static const char* const kHier[] = {"OFS", "FS", "SF", "OS", "", "SOF", "FOS", "F", "S", "OSF"};
  c.policy_hierarchy = kHier[round % 10];
  c.weight_tickets_share = round % 7 == 0 ? 0 : 1000 + 13 * round;
  c.weight_tickets_functional = round % 11 == 0 ? 0 : 2000 + 7 * round;
  c.share_functional_shares = round % 3 != 0;
  c.share_override_tickets = round % 4 != 0;
  c.max_functional_jobs_to_schedule = static_cast<uint32_t>(round % 5 == 0 ? 3 : 20 + round);
  c.compensation_factor = round % 6 == 0 ? 0 : 2 + round % 4;
  c.weight_urgency = round % 9 == 0 ? 0 : 0.1;
  c.weight_priority = round % 8 == 0 ? 0 : 1;
  c.report_pjob_tickets = round % 13 != 0;
  c.weight_waiting_time = 0.5;
  c.weight_user = round % 4 == 0 ? 0 : 0.25;
  c.weight_department = round % 5 == 0 ? 0 : 0.25;
}

Model make_model(int round, std::mt19937& rng, const ComplexTable& cx) {
  Model m;
  m.complexes = cx;
  set_conf(m.conf, round);
  std::string why;
  parse_share_tree("id=0\nname=Root\ntype=0\nshares=1\nchildnodes=1,2,3,8\n"
                   "id=1\nname=default\ntype=0\nshares=10\nchildnodes=NONE\n"
                   "id=2\nname=u3\ntype=0\nshares=30\nchildnodes=NONE\n"
                   "id=3\nname=p0\ntype=1\nshares=40\nchildnodes=4,5\n"
                   "id=4\nname=u1\ntype=0\nshares=5\nchildnodes=NONE\n"
                   "id=5\nname=grp\ntype=0\nshares=7\nchildnodes=6,7\n"
                   "id=6\nname=default\ntype=0\nshares=3\nchildnodes=NONE\n"
                   "id=7\nname=u2\ntype=0\nshares=9\nchildnodes=NONE\n"
                   "id=8\nname=p1\ntype=1\nshares=20\nchildnodes=NONE\n",
                   "ge_dump.sstree", &m.tree, &why);
  for (int u = 0; u < 14; ++u)
    if (u % 5 != 4)
      m.users[nm('u', u)] = TicketObject{double(rng() % 4), rng() % 5 == 0 ? 50.0 + rng() % 3 : 0.0};
  for (int p = 0; p < 4; ++p)
    m.projects[nm('p', p)] = TicketObject{double(rng() % 3 * 5), rng() % 4 == 0 ? 30.0 : 0.0};
  for (int d = 0; d < 3; ++d)
    m.departments[nm('d', d)] = TicketObject{double(1 + rng() % 3), rng() % 3 == 0 ? 20.0 : 0.0};
  for (int u = 0; u < 14; ++u) {
    if (rng() % 2) m.user_usage[nm('u', u)] = Usage{double(rng() % 5000), 0, 0};
    if (rng() % 3 == 0) m.user_project_usage[{nm('u', u), "p0"}] = Usage{double(rng() % 3000), 0, 0};
  }
  m.project_usage["p0"] = Usage{double(rng() % 9000), 0, 0};
  if (round % 2 == 1) {  // names numbered, as a policy's state has them
    auto t = std::make_shared<NameTables>();
    for (const auto& [n, o] : m.users) t->users.add(n, m.users);
    t->projects.add("", m.projects);
    for (const auto& [n, o] : m.projects) t->projects.add(n, m.projects);
    t->departments.add("", m.departments);
    for (const auto& [n, o] : m.departments) t->departments.add(n, m.departments);
    m.names = t;
  }
  return m;
}

Job make_job(size_t i, int round, std::mt19937& rng) {
  Job j;
  j.id = 1 + (i * 7919 + static_cast<size_t>(round)) % 100000;
  j.user = nm('u', rng() % 14);
  if (rng() % 3 == 0) j.project = nm('p', rng() % 5);
  if (rng() % 2) j.department = nm('d', rng() % 4);
  j.submit_time = kNow - int64_t(rng() % 5) * 600;
  if (rng() % 6 == 0) j.deadline = kNow + int64_t(rng() % 5000) - 100;
  j.posix_priority = int(rng() % 7) * 100 - 300;
  if (rng() % 5 == 0) j.job_share = double(rng() % 4);
  if (rng() % 7 == 0) j.override_tickets = double(rng() % 3) * 10;
  if (rng() % 3 == 0) {
    PeRequest pe;
    pe.name = "mpi";
    const uint32_t lo = 1 + static_cast<uint32_t>(rng() % 8);
    pe.ranges.push_back({lo, rng() % 2 ? lo : lo + static_cast<uint32_t>(rng() % 9)});
    if (rng() % 4 == 0)
      pe.ranges.push_back({pe.ranges[0].max + 2, rng() % 2 ? kInfiniteSlots : pe.ranges[0].max + 6});
    static const char* const kUs[] = {"min", "max", "avg", "5"};
    pe.urgency_slots = kUs[rng() % 4];
    pe.pe_slots = rng() % 2 ? 0 : 32;
    j.pe = pe;
  }
  if (rng() % 3 == 0) j.hard_requests["h_rt"] = RequestValue::num(double(rng() % 7200));
  if (rng() % 4 == 0) j.hard_requests["tq"] = RequestValue::str("x");
  if (rng() % 5 == 0) j.hard_requests["mem_free"] = RequestValue::str("2G");
  j.running = rng() % 6 == 0;
  return j;
}

void print(const PricingResult& r, int round) {
  std::printf("round %d n %zu minu %a maxu %a maxt %a sp %a sr %a\n", round, r.jobs.size(), r.min_urg, r.max_urg,
              r.max_tix, r.sum_tckts_pending, r.sum_tckts_running);
  for (const JobPrice& p : r.jobs) {
    std::printf("%llu %d %a %a %a %a %a %a %a %a %a %a %a %a %d %u %u", static_cast<unsigned long long>(p.id),
                p.running, p.prio, p.nurg, p.urg, p.rrcontr, p.wtcontr, p.dlcontr, p.ntckts, p.tckts, p.stckt,
                p.ftckt, p.otckt, p.npprior, p.ppri, p.slots, p.priority);
    for (const Term& t : p.terms)
      std::printf(" [%s %a %a %a %d %d]", t.name.c_str(), t.factor, t.weight, t.contribution, t.bound, t.parent);
    std::printf("\n");
  }
  for (const JobTickets& t : r.tickets.jobs) std::printf("t %a %d %d\n", t.pass1_tckts, t.share_node, t.share_bound);
  std::printf("order");
  for (size_t i : r.pending_order) std::printf(" %zu", i);
  std::printf("\n");
  for (const auto* nodes : {&r.tickets.nodes, &r.tickets.nodes_running})
    for (const ShareNodeState& s : *nodes)
      std::printf("node %s %d %u %d %s %a %u %u %u %d %a %a %a %a %a %d\n", s.name.c_str(), int(s.type), s.shares,
                  s.parent, s.project.c_str(), s.usage, s.jobs, s.direct_jobs, s.direct_running, s.active, s.ltt,
                  s.oltt, s.stt, s.ostt, s.shr, s.compensated);
}

bool same_nodes(const std::vector<ShareNodeState>& a, const std::vector<ShareNodeState>& b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k)
    if (a[k].name != b[k].name || a[k].project != b[k].project || a[k].children != b[k].children ||
        a[k].usage != b[k].usage || a[k].jobs != b[k].jobs || a[k].ostt != b[k].ostt || a[k].stt != b[k].stt ||
        a[k].user_copy != b[k].user_copy || a[k].active != b[k].active || a[k].compensated != b[k].compensated ||
        a[k].direct_running != b[k].direct_running)
      return false;
  return true;
}

// The policy's form of the pass, fresh and on reused arrays, against r.
void check_forms(const std::vector<Job>& q, const Model& m, const PricingResult& r, int round) {
  std::string why;
  std::vector<UrgencyParts> up(q.size());
  for (size_t i = 0; i < q.size(); ++i) job_urgency(q[i], m, kNow, &up[i], &why);
  Model indexed = m;
  indexed.tree_index = index_share_tree(indexed.tree);
  indexed.tree_index_of = &indexed.tree;
  static TicketScratch scratch;
  static PricingResult kept;
  PricingResult fresh;
  price_queue(q, m, kNow, &fresh, &why, false, &up, false);
  price_queue(q, indexed, kNow, &kept, &why, false, &up, false, nullptr, &scratch);
  for (const PricingResult* x : {&fresh, &kept}) {
    bool ok = x->jobs.size() == r.jobs.size() && x->max_tix == r.max_tix;
    for (size_t i = 0; ok && i < r.jobs.size(); ++i) {
      const JobTickets &a = x->tickets.jobs[i], &b = r.tickets.jobs[i];
      ok = x->jobs[i].priority == r.jobs[i].priority && a.stckt == b.stckt && a.ftckt == b.ftckt &&
           a.otckt == b.otckt && a.tckts == b.tckts && a.pass1_tckts == b.pass1_tckts &&
           a.share_node == b.share_node && a.share_bound == b.share_bound;
    }
    ok = ok && same_nodes(x->tickets.nodes, r.tickets.nodes) &&
         same_nodes(x->tickets.nodes_running, r.tickets.nodes_running);
    if (!ok) std::printf("MISMATCH round %d (%s)\n", round, x == &fresh ? "policy form" : "reused arrays");
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 200;
  const ComplexTable cx = complexes();
  for (int round = 0; round < rounds; ++round) {
    std::mt19937 rng(static_cast<unsigned>(1000 + round));
    const Model m = make_model(round, rng, cx);
    std::vector<Job> q;
    const size_t n = 20 + static_cast<size_t>(round * 37) % 300;
    for (size_t i = 0; i < n; ++i) q.push_back(make_job(i, round, rng));
    PricingResult r;
    std::string why;
    if (!price_queue(q, m, kNow, &r, &why)) {
      std::printf("round %d fails: %s\n", round, why.c_str());
      continue;
    }
    print(r, round);
    check_forms(q, m, r, round);
  }
  return 0;
}
