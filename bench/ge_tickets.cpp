// ge_tickets.cpp - mfprio-bench-ge-tickets: the time of Grid Engine's ticket
// pass alone (compute_tickets) over a synthetic queue shaped like the bench's
// gridengine figure (bench/README.md): a depth-4 tree of accounts (1 in 20 a
// project node), users' leaves below them, functional shares for every
// user, 10 departments, override tickets for 1 user in 100, the sample
// sched_conf's ticket settings (OFS, shared functional and override tickets).
//
//   mfprio-bench-ge-tickets PENDING RUNNING REPS [job|flat]
//
// `flat` (default): compute_tickets over TicketJobs with the names' ids, one
// TicketScratch and TicketResult reused (the policy's form); `job`: the Job
// form with the handles' ids (what the policy called before the flat entry).
// Prints the per-rep wall and thread-CPU ns per job, and a checksum.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ge_tickets.hpp"

using namespace mfprio::gridengine;

namespace {

double thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e9 + double(ts.tv_nsec);
}

std::string nm(const char* p, size_t k) {
  std::string s(p);
  s += std::to_string(k);
  return s;
}

struct Assoc {
  uint32_t user;
  uint32_t account;
};

Model make_model(std::mt19937& rng, std::vector<std::string>& users, std::vector<std::string>& accounts,
                 std::vector<Assoc>& assocs) {
  Model m;
  SchedConf& c = m.conf;
  c.policy_hierarchy = "OFS";
  c.weight_tickets_functional = 10000;
  c.weight_tickets_share = 10000;
  c.share_override_tickets = true;
  c.share_functional_shares = true;
  c.max_functional_jobs_to_schedule = 200;
  c.compensation_factor = 5;
  c.weight_user = c.weight_project = c.weight_department = c.weight_job = 0.25;
  const size_t kUsers = 10000;
  for (size_t u = 0; u < kUsers; ++u) users.push_back(nm("user", u));
  // Accounts: root -> 10 -> 100 -> 1000 (a depth-4 tree), each a tree node.
  auto& nodes = m.tree.nodes;
  ShareTreeNodeSpec root;
  root.name = "Root";
  root.shares = 1;
  nodes.push_back(root);
  std::vector<size_t> level = {0}, bottom;
  for (int depth = 0; depth < 3; ++depth) {
    std::vector<size_t> next;
    for (size_t parent : level)
      for (int k = 0; k < 10; ++k) {
        ShareTreeNodeSpec n;
        n.id = static_cast<uint32_t>(nodes.size());
        n.name = nm("acct", accounts.size());
        n.shares = 1 + rng() % 100;
        n.parent = static_cast<int>(parent);
        if (accounts.size() % 20 == 1) {
          n.type = NodeType::Project;
          m.projects[n.name] = TicketObject{double(1 + accounts.size() % 50), 0};
        }
        accounts.push_back(n.name);
        nodes[parent].children.push_back(nodes.size());
        next.push_back(nodes.size());
        nodes.push_back(n);
      }
    level = next;
  }
  // 10^5 associations: each user in 10 bottom accounts, a leaf each.
  for (size_t u = 0; u < kUsers; ++u)
    for (int k = 0; k < 10; ++k) {
      const size_t a = level[rng() % level.size()];
      ShareTreeNodeSpec leaf;
      leaf.id = static_cast<uint32_t>(nodes.size());
      leaf.name = users[u];
      leaf.shares = 1 + rng() % 10;
      leaf.parent = static_cast<int>(a);
      nodes[a].children.push_back(nodes.size());
      nodes.push_back(leaf);
      assocs.push_back(Assoc{static_cast<uint32_t>(u), static_cast<uint32_t>(a - 1)});
    }
  for (size_t u = 0; u < kUsers; ++u) {
    m.users[users[u]] = TicketObject{double(1 + u % 10), u % 100 == 0 ? 500.0 : 0.0};
    m.user_usage[users[u]] = Usage{double(rng() % 100000), 0, 0};
  }
  for (int d = 0; d < 10; ++d) m.departments[nm("dept", size_t(d))] = TicketObject{double(10 + d), 0};
  for (const auto& [name, o] : m.projects) m.project_usage[name] = Usage{double(rng() % 1000000), 0, 0};
  auto t = std::make_shared<NameTables>();
  for (const auto& [n, o] : m.users) t->users.add(n, m.users);
  t->projects.add("", m.projects);
  for (const std::string& a : accounts) t->projects.add(a, m.projects);
  t->departments.add("", m.departments);
  for (const auto& [n, o] : m.departments) t->departments.add(n, m.departments);
  m.names = t;
  m.own_usage = own_node_usage(m);
  m.tree_index = index_share_tree(m.tree);
  m.tree_index_of = &m.tree;
  return m;
}

int run(size_t pending, size_t running, int reps, bool flat) {
  std::mt19937 rng(42);
  std::vector<std::string> users, accounts;
  std::vector<Assoc> assocs;
  const Model m = make_model(rng, users, accounts, assocs);
  const NameTables& t = *m.names;
  const size_t n = pending + running;
  std::vector<Job> jobs(n);
  std::vector<JobNameIds> ids(n);
  for (size_t i = 0; i < n; ++i) {
    const Assoc& a = assocs[rng() % assocs.size()];
    Job& j = jobs[i];
    j.id = 1000 + i;
    j.user = users[a.user];
    j.project = accounts[a.account];
    j.department = nm("dept", i % 10);
    j.submit_time = 1700000000 - int64_t(n - i);
    j.running = i >= pending;  // the policy's order: pending, then running
    ids[i] = JobNameIds{t.users.find(j.user), t.projects.find(j.project), t.departments.find(j.department)};
  }
#ifndef GE_TICKETS_JOB_FORM_ONLY
  std::vector<TicketJob> tj(n);
  for (size_t i = 0; i < n; ++i) tj[i] = ticket_job(jobs[i], &t, &ids[i]);
#endif
  TicketScratch scratch;
  TicketResult r;
  TicketOptions o;
  o.scratch = &scratch;
  o.name_ids = &ids;
  auto pass = [&] {
#ifndef GE_TICKETS_JOB_FORM_ONLY  // (a build from before the flat entry)
    if (flat) compute_tickets(tj.data(), tj.size(), m, o, &r);
    else
#endif
      compute_tickets(jobs, m, o, &r);
  };
  pass();  // warm-up
  std::vector<double> wall, cpu;
  for (int k = 0; k < reps; ++k) {
    const double c0 = thread_cpu_ns();
    const auto w0 = std::chrono::steady_clock::now();
    pass();
    wall.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - w0).count() / n);
    cpu.push_back((thread_cpu_ns() - c0) / n);
  }
  double sum = 0;
  for (const JobTickets& x : r.jobs) sum += x.tckts;
  std::printf("{\"form\": \"%s\", \"pending\": %zu, \"running\": %zu, \"checksum\": %a, \"wall_ns_per_job\": [",
              flat ? "flat" : "job", pending, running, sum);
  for (size_t k = 0; k < wall.size(); ++k) std::printf("%s%.1f", k ? ", " : "", wall[k]);
  std::printf("], \"cpu_ns_per_job\": [");
  for (size_t k = 0; k < cpu.size(); ++k) std::printf("%s%.1f", k ? ", " : "", cpu[k]);
  std::sort(cpu.begin(), cpu.end());
  std::printf("], \"cpu_median\": %.1f}\n", cpu[cpu.size() / 2]);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4 || argc > 5) {
    std::fprintf(stderr, "usage: mfprio-bench-ge-tickets PENDING RUNNING REPS [job|flat]\n");
    return 2;
  }
  const std::string form = argc == 5 ? argv[4] : "flat";
  if (form != "job" && form != "flat") {
    std::fprintf(stderr, "mfprio-bench-ge-tickets: form '%s' is neither job nor flat\n", form.c_str());
    return 2;
  }
  return run(std::strtoull(argv[1], nullptr, 10), std::strtoull(argv[2], nullptr, 10),
             std::max(1, std::atoi(argv[3])), form == "flat");
}
