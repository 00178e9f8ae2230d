// generator.hpp - synthetic but realistic inputs for the benchmarks.
//
// Everything is deterministic: the same parameters and seed give the same
// hierarchy and the same jobs, on every machine (std::mt19937_64 plus our own
// distributions, no std::*_distribution whose output is implementation-defined).
//
// Hierarchies
//   make_random_tree      depth 2..5 (edges root -> user), N user associations,
//                         random fan-out, a few FairShare=parent accounts and
//                         users, some users in two accounts, Zipf usage with
//                         some idle users.
//   make_comparison_tree  the comparison shape: root -> 20 departments -> 50
//                         groups each, users spread over the 1000 groups,
//                         shares uniform 1..100, usage 1e9 / r^1.1 x U(0.5, 1.5)
//                         for a random rank r (a permutation of 1..N).
//   to_share_tree         the core's ShareTree (accounts, then users).
//   to_admin_changes      an acct::AdminChanges that writes the hierarchy plus
//                         the site (QOS, partitions) into a store.
//
// Jobs
//   make_jobs             pending (or running) job records over several
//                         partitions, a QOS mix, TRES mixes (GPU jobs, big-memory
//                         jobs), submitters Zipf-distributed over associations.
//                         Strings point into the Hierarchy (kept alive by the
//                         JobSet) and into static tables.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "mfprio/mfprio.h"
#include "share_tree.hpp"
#include "store.hpp"

namespace mfprio::bench {

struct AccountSpec {
  std::string name;
  int32_t parent = -1;         // index in Hierarchy::accounts; -1 for root
  uint32_t shares = 1;
  bool shares_parent = false;  // FairShare=parent
};

struct AssocSpec {
  uint32_t user = 0;           // index in Hierarchy::users
  uint32_t account = 0;        // index in Hierarchy::accounts (never root)
  uint32_t shares = 1;
  bool shares_parent = false;
  double usage = 0;            // decayed raw usage (billing TRES-seconds)
};

struct Hierarchy {
  std::string label;                  // "comparison 100000" / "random d=4 n=10000"
  std::vector<AccountSpec> accounts;  // [0] = root; parents before children
  std::vector<std::string> users;
  std::vector<AssocSpec> assocs;      // user i's first association is its default
  std::vector<uint32_t> user_first_assoc;  // per user: index of its default association
  size_t fs_parent_accounts = 0, fs_parent_users = 0, idle_users = 0;
};

struct TreeParams {
  size_t assocs = 100000;         // user associations
  unsigned depth = 3;             // edges from root to a user: 2..5
  size_t users_per_leaf = 50;     // mean user associations per leaf account
  double fs_parent_accounts = 0.05;  // fraction of non-root accounts with FairShare=parent
  double fs_parent_users = 0.02;  // fraction of associations with FairShare=parent
  double second_assoc = 0.10;     // fraction of associations that are a user's second account
  double idle = 0.10;             // fraction of associations with no usage
  double zipf_s = 1.1;            // usage = 1e9 / rank^s x U(0.5, 1.5)
  uint64_t seed = 1;
};

Hierarchy make_random_tree(const TreeParams& p);
Hierarchy make_comparison_tree(size_t users, uint64_t seed);

ShareTree to_share_tree(const Hierarchy& h);

// The site every generated store gets: QOS and partitions (see generator.cpp).
std::vector<acct::QosRec> site_qos();
std::vector<acct::PartitionRec> site_partitions();
// Cluster totals matching site_partitions(): 1000 nodes x 64 CPUs x 256 GiB, 400 GPUs.
struct SiteTotals {
  uint32_t nodes = 1000, cpus = 64000;
  uint64_t mem_mb = 1000ull * 262144;
  double gpus = 400;
};

acct::AdminChanges to_admin_changes(const Hierarchy& h);

struct JobParams {
  size_t count = 1000000;
  uint64_t seed = 7;
  int64_t now = 1'700'000'000;
  bool running = false;           // running jobs: state RUNNING, start_time in the past day
  uint64_t first_id = 1;
  double multi_partition = 0.05;  // fraction of jobs given as two records (two partitions)
  double zipf_s = 1.0;            // submitters: association rank^-s
};

struct JobSet {
  std::shared_ptr<const Hierarchy> hierarchy;  // the strings' owner
  std::vector<mfprio_job_t> jobs;
};

JobSet make_jobs(std::shared_ptr<const Hierarchy> h, const JobParams& p);

// Building blocks, exposed for tests of the generator itself.
class Rng {
 public:
  explicit Rng(uint64_t seed) : g_(seed) {}
  uint64_t next() { return g_(); }
  double uniform() { return static_cast<double>(g_() >> 11) * 0x1.0p-53; }  // [0, 1)
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  uint64_t below(uint64_t n) { return n ? next() % n : 0; }  // bias is irrelevant here
  bool chance(double p) { return uniform() < p; }

 private:
  std::mt19937_64 g_;
};

// Samples ranks 1..n with P(k) ~ k^-s (inverse CDF on a precomputed table).
class Zipf {
 public:
  Zipf(size_t n, double s);
  size_t sample(Rng& r) const;  // 0-based: 0 is the most frequent

 private:
  std::vector<double> cdf_;
};

}  // namespace mfprio::bench
