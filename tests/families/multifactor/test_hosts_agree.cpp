// test_hosts_agree.cpp - the plain-C99 host (tests/abi/abi_host.c) and
// mfprio-host give the same priorities for the same conf, store and jobs,
// for every fair-share algorithm and every PriorityFlags value.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "harness.hpp"

using namespace mfprio::test;

namespace {

constexpr int64_t NOW = 1'763'800'000;

std::string run(const std::string& cmd, int* status) {
  std::string out;
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  *status = pclose(f);
  return out;
}

struct Job {
  uint64_t id;
  std::string user, account, partition, qos;
  int64_t submit, eligible;
  unsigned nodes, cpus;
  unsigned long long mem;
  unsigned tl;
  int nice;
};

std::vector<Job> jobs() {
  std::vector<Job> v;
  const char* users[] = {"User1", "User2", "User3", "User4", "User5"};
  const char* accts[] = {"B", "C", "C", "E", "F"};
  const char* parts[] = {"batch", "debug", "gpu"};
  const char* qos[] = {"normal", "high", "low"};
  for (unsigned i = 0; i < 30; ++i)
    v.push_back({100 + i, users[i % 5], accts[i % 5], parts[i % 3], qos[(i / 3) % 3],
                 NOW - 1000 * i * i, NOW - 900 * i * i, 1 + i % 4, 1 + 7 * i % 96,
                 1024ull * (1 + i % 9), 10 + 37 * i, static_cast<int>(i % 4) * 10});
  return v;
}

// "<id> <partition>" -> priority, from "id partition prio" lines.
std::map<std::string, unsigned long> parse_c(const std::string& out) {
  std::map<std::string, unsigned long> m;
  std::istringstream in(out);
  std::string id, part;
  unsigned long p;
  while (in >> id >> part >> p) m[id + " " + part] = p;
  return m;
}

// From sprio -P -l: JOBID|PARTITION|USER|ACCOUNT|PRIORITY|...
std::map<std::string, unsigned long> parse_sprio(const std::string& out) {
  std::map<std::string, unsigned long> m;
  std::istringstream in(out);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ls(line);
    std::string x;
    while (std::getline(ls, x, '|')) f.push_back(x);
    if (f.size() > 2) m[f[0] + " " + f[1]] = std::stoul(f[2]);  // -o %i%r%Y
  }
  return m;
}

class HostsAgree : public ::testing::TestWithParam<std::string> {};

TEST_P(HostsAgree, SamePrioritiesThroughCHostAndMfprioHost) {
  TempDir dir;
  const std::string db = store_location(dir, "acct.db");
  StoreBuilder b;
  b.account("A", "root", 40, false, 10).account("D", "root", 60, false, 30);
  b.account("B", "A", 30).account("C", "A", 10).account("E", "D", 25).account("F", "D", 35, true);
  b.user("User1", "B", 1, 2e6).user("User2", "C", 1, 2.5e6).user("User3", "C", 1, 0, 50);
  b.user("User4", "E", 1, 2.5e6).user("User5", "F", 1, 0, 0, true);
  b.qos("normal", 10).qos("high", 100, 2).qos("low", 0, 0.5);
  b.partition("batch", 1, "", true).partition("debug", 20, "", false, "cpu=24,mem=256G,node=1");
  b.partition("gpu", 10, "CPU=1.0,Mem=0.25G", false, "cpu=96,mem=1T,node=4");
  b.write(db);

  const std::string conf_lines =
      "PriorityWeightAge=1000\nPriorityWeightAssoc=500\nPriorityWeightFairshare=100000\n"
      "PriorityWeightJobSize=2000\nPriorityWeightPartition=3000\nPriorityWeightQOS=4000\n"
      "PriorityWeightTRES=CPU=700,Mem=0.5G\nPriorityMaxAge=1-0\nPriorityDecayHalfLife=2-0\n"
      "PriorityFlags=" + GetParam() + "\nAccountingStorageLoc=" + db + "\n";
  std::ofstream(dir.file("plugin.kv")) << conf_lines;
  std::ofstream(dir.file("slurm.conf"))
      << "PriorityType=priority/multifactor\nPluginDir=" << std::getenv("MFPRIO_PLUGIN_BUILD_DIR")
      << "\nClusterNodes=10\nClusterCPUs=240\nClusterMemMB=2621440\n"
      << conf_lines;
  std::ofstream txt(dir.file("jobs.txt")), jl(dir.file("jobs.jsonl"));
  for (const Job& j : jobs()) {
    txt << j.id << ' ' << j.user << ' ' << j.account << ' ' << j.partition << ' ' << j.qos << ' '
        << j.submit << ' ' << j.eligible << ' ' << j.nodes << ' ' << j.cpus << ' ' << j.mem << ' '
        << j.tl << ' ' << j.nice << '\n';
    jl << "{\"id\": " << j.id << ", \"user\": \"" << j.user << "\", \"account\": \"" << j.account
       << "\", \"partition\": \"" << j.partition << "\", \"qos\": \"" << j.qos << "\", \"submit\": "
       << j.submit << ", \"eligible\": " << j.eligible << ", \"nodes\": " << j.nodes
       << ", \"cpus\": " << j.cpus << ", \"mem\": " << j.mem << ", \"time_limit\": " << j.tl
       << ", \"nice\": " << j.nice << "}\n";
  }
  txt.close();
  jl.close();

  int st1 = -1, st2 = -1;
  const std::string c_out = run(std::string(std::getenv("MFPRIO_ABI_HOST")) + " " +
                                    std::getenv("MFPRIO_PLUGIN_BUILD_DIR") + "/priority_multifactor.so " +
                                    dir.file("plugin.kv") + " " + dir.file("jobs.txt") + " " +
                                    std::to_string(NOW),
                                &st1);
  const std::string h_out = run(std::string(std::getenv("MFPRIO_HOST")) + " --conf " +
                                    dir.file("slurm.conf") + " --now " + std::to_string(NOW) +
                                    " sprio -P -o %i%r%Y --job-file " + dir.file("jobs.jsonl"),
                                &st2);
  ASSERT_EQ(st1, 0) << c_out;
  ASSERT_EQ(st2, 0) << h_out;
  const auto c = parse_c(c_out), h = parse_sprio(h_out);
  ASSERT_EQ(c.size(), jobs().size());
  EXPECT_EQ(c, h);
  // The numbers are not all alike: the factors really differ between jobs.
  std::set<unsigned long> distinct;
  for (const auto& [k, v] : c) distinct.insert(v);
  EXPECT_GT(distinct.size(), 10u);
}

INSTANTIATE_TEST_SUITE_P(
    EveryFlag, HostsAgree,
    ::testing::Values("ACCRUE_ALWAYS,SMALL_RELATIVE_TO_TIME,CALCULATE_RUNNING,INCR_ONLY,MAX_TRES",
                      "FAIR_TREE,NO_NORMAL_ALL", "NO_FAIR_TREE,NO_NORMAL_ASSOC,NO_NORMAL_PART",
                      "DEPTH_OBLIVIOUS,NO_NORMAL_QOS,NO_NORMAL_TRES", "TICKET_BASED,ACCRUE_ALWAYS"));

}  // namespace
