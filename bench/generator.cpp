// generator.cpp - see generator.hpp.
#include "generator.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <unordered_set>

namespace mfprio::bench {

Zipf::Zipf(size_t n, double s) : cdf_(n) {
  double sum = 0;
  for (size_t k = 0; k < n; ++k) {
    sum += std::pow(static_cast<double>(k + 1), -s);
    cdf_[k] = sum;
  }
  for (double& c : cdf_) c /= sum;
}

size_t Zipf::sample(Rng& r) const {
  const double u = r.uniform();
  auto it = std::upper_bound(cdf_.begin(), cdf_.end(), u);
  return it == cdf_.end() ? cdf_.size() - 1 : static_cast<size_t>(it - cdf_.begin());
}

namespace {

// A random permutation of 1..n (Fisher-Yates with our Rng).
std::vector<uint32_t> ranks(size_t n, Rng& r) {
  std::vector<uint32_t> v(n);
  std::iota(v.begin(), v.end(), 1u);
  for (size_t i = n; i > 1; --i) std::swap(v[i - 1], v[r.below(i)]);
  return v;
}

uint32_t shares_1_100(Rng& r) { return 1 + static_cast<uint32_t>(r.below(100)); }

// prefix + a [+ "_" + b]: names like "u17", "a2_5" (appends, no operator+ chains).
std::string name(const char* prefix, size_t a, long b = -1) {
  std::string s(prefix);
  s += std::to_string(a);
  if (b >= 0) {
    s += '_';
    s += std::to_string(b);
  }
  return s;
}

}  // namespace

Hierarchy make_random_tree(const TreeParams& p) {
  if (p.depth < 2 || p.depth > 5) throw std::invalid_argument("make_random_tree: depth must be 2..5");
  if (p.assocs == 0) throw std::invalid_argument("make_random_tree: no associations");
  Rng r(p.seed);
  Hierarchy h;
  h.label = "random d=" + std::to_string(p.depth) + " n=" + std::to_string(p.assocs);
  h.accounts.push_back({"root", -1, 1, false});

  // Account levels 1..depth-1; the last one holds the users.  Level sizes grow
  // geometrically up to `leaves`.
  const size_t leaves = std::max<size_t>(1, (p.assocs + p.users_per_leaf - 1) / p.users_per_leaf);
  const unsigned levels = p.depth - 1;
  std::vector<uint32_t> prev_level{0};
  for (unsigned k = 1; k <= levels; ++k) {
    const size_t nk = std::max<size_t>(
        1, static_cast<size_t>(std::llround(std::pow(static_cast<double>(leaves), double(k) / levels))));
    std::vector<uint32_t> level;
    level.reserve(nk);
    for (size_t i = 0; i < nk; ++i) {
      // Every account of the previous level gets one child first, then random.
      const uint32_t parent = i < prev_level.size() ? prev_level[i] : prev_level[r.below(prev_level.size())];
      AccountSpec a;
      a.name = name("a", k, static_cast<long>(i));
      a.parent = static_cast<int32_t>(parent);
      a.shares = shares_1_100(r);
      a.shares_parent = r.chance(p.fs_parent_accounts);
      h.fs_parent_accounts += a.shares_parent;
      level.push_back(static_cast<uint32_t>(h.accounts.size()));
      h.accounts.push_back(std::move(a));
    }
    prev_level = std::move(level);
  }
  // Parents must come before children; appending level by level does that.
  // Sort nothing: a parent's index is always in an earlier level.
  const std::vector<uint32_t>& leaf_accounts = prev_level;

  // Associations: first accounts of new users, plus some second accounts.
  const size_t seconds = leaf_accounts.size() > 1 ? static_cast<size_t>(p.assocs * p.second_assoc) : 0;
  const size_t nusers = p.assocs - seconds;
  h.users.reserve(nusers);
  h.assocs.reserve(p.assocs);
  h.user_first_assoc.reserve(nusers);
  for (size_t u = 0; u < nusers; ++u) {
    h.users.push_back(name("u", u));
    AssocSpec a;
    a.user = static_cast<uint32_t>(u);
    a.account = leaf_accounts[r.below(leaf_accounts.size())];
    a.shares = shares_1_100(r);
    a.shares_parent = r.chance(p.fs_parent_users);
    h.user_first_assoc.push_back(static_cast<uint32_t>(h.assocs.size()));
    h.assocs.push_back(a);
  }
  for (size_t i = 0; i < seconds; ++i) {
    const size_t u = r.below(nusers);
    const AssocSpec& first = h.assocs[h.user_first_assoc[u]];
    // A different leaf account than the first (users with three or more
    // accounts are rare enough to leave out; collisions just pick the next).
    size_t li = std::find(leaf_accounts.begin(), leaf_accounts.end(), first.account) - leaf_accounts.begin();
    li = (li + 1 + r.below(leaf_accounts.size() - 1)) % leaf_accounts.size();
    AssocSpec a;
    a.user = static_cast<uint32_t>(u);
    a.account = leaf_accounts[li];
    a.shares = shares_1_100(r);
    a.shares_parent = r.chance(p.fs_parent_users);
    h.assocs.push_back(a);
  }
  // (user, account) must be unique: drop the rare duplicate second association.
  {
    std::unordered_set<uint64_t> seen;
    seen.reserve(h.assocs.size() * 2);
    std::vector<AssocSpec> kept;
    kept.reserve(h.assocs.size());
    for (const AssocSpec& a : h.assocs)
      if (seen.insert((uint64_t(a.user) << 32) | a.account).second) kept.push_back(a);
    h.assocs = std::move(kept);
  }
  for (const AssocSpec& a : h.assocs) h.fs_parent_users += a.shares_parent;

  // Usage: Zipf over a random ranking, some idle associations.
  std::vector<uint32_t> rank = ranks(h.assocs.size(), r);
  for (size_t i = 0; i < h.assocs.size(); ++i) {
    if (r.chance(p.idle)) {
      h.assocs[i].usage = 0;
      ++h.idle_users;
      continue;
    }
    h.assocs[i].usage = 1e9 / std::pow(static_cast<double>(rank[i]), p.zipf_s) * r.uniform(0.5, 1.5);
  }
  return h;
}

Hierarchy make_comparison_tree(size_t users, uint64_t seed) {
  Rng r(seed);
  Hierarchy h;
  h.label = "comparison 20x50, n=" + std::to_string(users);
  h.accounts.push_back({"root", -1, 1, false});
  constexpr int kDepts = 20, kGroups = 50;
  for (int d = 0; d < kDepts; ++d)
    h.accounts.push_back({name("dept", d), 0, shares_1_100(r), false});
  std::vector<uint32_t> groups;
  for (int d = 0; d < kDepts; ++d)
    for (int g = 0; g < kGroups; ++g) {
      groups.push_back(static_cast<uint32_t>(h.accounts.size()));
      h.accounts.push_back(
          {name("grp", d, g), 1 + d, shares_1_100(r), false});
    }
  std::vector<uint32_t> rank = ranks(users, r);
  h.users.reserve(users);
  h.assocs.reserve(users);
  for (size_t u = 0; u < users; ++u) {
    h.users.push_back(name("u", u));
    AssocSpec a;
    a.user = static_cast<uint32_t>(u);
    a.account = groups[r.below(groups.size())];
    a.shares = shares_1_100(r);
    a.usage = 1e9 / std::pow(static_cast<double>(rank[u]), 1.1) * r.uniform(0.5, 1.5);
    h.user_first_assoc.push_back(static_cast<uint32_t>(h.assocs.size()));
    h.assocs.push_back(a);
  }
  return h;
}

ShareTree to_share_tree(const Hierarchy& h) {
  ShareTree t;
  for (const AccountSpec& a : h.accounts)
    t.add(a.parent, false, a.shares, 0, a.shares_parent && a.parent >= 0);
  for (const AssocSpec& a : h.assocs)
    t.add(static_cast<int32_t>(a.account), true, a.shares, a.usage, a.shares_parent);
  t.finalize();
  return t;
}

std::vector<acct::QosRec> site_qos() {
  //                 id name      priority usage_factor
  return {acct::QosRec{0, "normal", 100, 1.0}, acct::QosRec{0, "high", 1000, 2.0},
          acct::QosRec{0, "low", 0, 0.5}, acct::QosRec{0, "long", 50, 1.0},
          acct::QosRec{0, "debug", 500, 1.0}};
}

std::vector<acct::PartitionRec> site_partitions() {
  return {
      acct::PartitionRec{0, "batch", 1, "CPU=1.0,Mem=0.25G", "", true},
      acct::PartitionRec{0, "debug", 10, "CPU=1.0,Mem=0.25G", "cpu=1024,mem=4096G,node=16", false},
      acct::PartitionRec{0, "gpu", 5, "CPU=1.0,Mem=0.25G,GRES/gpu=16.0",
                         "cpu=6400,mem=25600G,node=100,gres/gpu=400", false},
      acct::PartitionRec{0, "long", 1, "CPU=1.0", "cpu=16000,mem=64000G,node=250", false},
  };
}

acct::AdminChanges to_admin_changes(const Hierarchy& h) {
  acct::AdminChanges ch;
  for (size_t i = 1; i < h.accounts.size(); ++i) {
    const AccountSpec& a = h.accounts[i];
    acct::AccountRec rec;
    rec.name = a.name;
    rec.parent = h.accounts[static_cast<size_t>(a.parent)].name;
    rec.shares = a.shares;
    rec.shares_parent = a.shares_parent;
    ch.accounts.push_back(std::move(rec));
  }
  ch.assocs.reserve(h.assocs.size());
  for (const AssocSpec& a : h.assocs) {
    acct::AssocWrite w;
    w.rec.user = h.users[a.user];
    w.rec.account = h.accounts[a.account].name;
    w.rec.shares = a.shares;
    w.rec.shares_parent = a.shares_parent;
    w.rec.raw_usage = a.usage;
    if (a.usage > 0) {  // TRES usage consistent with CPU=1,Mem=0.25G billing
      w.rec.tres_usage = {{"cpu", a.usage * 0.8}, {"mem", a.usage * 0.8 * 4096}, {"node", a.usage / 64}};
    }
    w.set_usage = true;
    ch.assocs.push_back(std::move(w));
  }
  ch.users.reserve(h.users.size());
  for (size_t u = 0; u < h.users.size(); ++u) {
    acct::UserRec rec;
    rec.name = h.users[u];
    rec.default_account = h.accounts[h.assocs[h.user_first_assoc[u]].account].name;
    ch.users.push_back(std::move(rec));
  }
  ch.qos = site_qos();
  ch.partitions = site_partitions();
  return ch;
}

namespace {

// "gres/gpu" = 1..8, one static record per count: jobs point at them.
const mfprio_tres_t* gpu_tres(uint32_t count) {
  static const mfprio_tres_t table[8] = {{"gres/gpu", 1}, {"gres/gpu", 2}, {"gres/gpu", 3}, {"gres/gpu", 4},
                                         {"gres/gpu", 5}, {"gres/gpu", 6}, {"gres/gpu", 7}, {"gres/gpu", 8}};
  return &table[count - 1];
}

const char* const kParts[] = {"batch", "debug", "gpu", "long"};
const char* const kQos[] = {"normal", "high", "low", "long", "debug"};

}  // namespace

JobSet make_jobs(std::shared_ptr<const Hierarchy> hp, const JobParams& p) {
  const Hierarchy& h = *hp;
  Rng r(p.seed);
  // Submitters: a Zipf law over a random ordering of the associations, so the
  // heaviest submitters are not the heaviest past users.
  const std::vector<uint32_t> order = ranks(h.assocs.size(), r);
  const Zipf who(h.assocs.size(), p.zipf_s);
  JobSet js;
  js.hierarchy = hp;
  js.jobs.reserve(p.count);
  uint64_t id = p.first_id;
  while (js.jobs.size() < p.count) {
    const AssocSpec& a = h.assocs[order[who.sample(r)] - 1];
    mfprio_job_t j{};
    j.struct_size = sizeof j;
    j.job_id = id++;
    j.user = h.users[a.user].c_str();
    // Half the jobs name their account, the others use the user's default
    // (only possible when this is the user's default association).
    const bool is_default = h.user_first_assoc[a.user] == static_cast<uint32_t>(&a - h.assocs.data());
    j.account = (is_default && r.chance(0.5)) ? nullptr : h.accounts[a.account].name.c_str();
    // Partition mix: batch 60 %, debug 10 %, gpu 15 %, long 15 %.
    const double pu = r.uniform();
    const int part = pu < 0.60 ? 0 : pu < 0.70 ? 1 : pu < 0.85 ? 2 : 3;
    j.partition = (part == 0 && r.chance(0.3)) ? nullptr : kParts[part];  // some rely on the default
    // QOS mix: normal 70 %, high 8 %, low 15 %, long/debug by partition.
    const double qu = r.uniform();
    int q = qu < 0.70 ? 0 : qu < 0.78 ? 1 : 2;
    if (part == 3) q = 3;
    if (part == 1) q = 4;
    j.qos = (q == 0 && r.chance(0.5)) ? nullptr : kQos[q];
    // Sizes: CPUs a power of two 1..1024 (small jobs common), memory per CPU
    // 1..16 GiB, nodes from CPUs at 64 per node; time limits 10 min .. 7 days.
    const unsigned lg = static_cast<unsigned>(std::min(10.0, -std::log2(1.0 - r.uniform()) * 1.5));
    j.cpus = 1u << lg;
    j.min_nodes = std::max(1u, (j.cpus + 63) / 64);
    j.mem_mb = static_cast<uint64_t>(j.cpus) * 1024u * (1u << r.below(5));
    j.time_limit_min = part == 1 ? 30 : static_cast<uint32_t>(10 + r.below(part == 3 ? 10080 : 2880));
    if (part == 2) {
      j.tres = gpu_tres(1 + static_cast<uint32_t>(r.below(8)));
      j.tres_count = 1;
    }
    if (p.running) {
      j.state = MFPRIO_JOB_RUNNING;
      j.submit_time = p.now - 86400 - static_cast<int64_t>(r.below(7 * 86400));
      j.eligible_time = j.submit_time;
      j.start_time = p.now - 60 - static_cast<int64_t>(r.below(86400));
    } else {
      j.state = r.chance(0.03) ? MFPRIO_JOB_HELD : MFPRIO_JOB_PENDING;
      j.submit_time = p.now - static_cast<int64_t>(r.below(14 * 86400));
      j.eligible_time = r.chance(0.05) ? 0 : j.submit_time + static_cast<int64_t>(r.below(60));
      if (j.eligible_time == 0) j.flags |= MFPRIO_JOBF_DEPENDENT;
      if (r.chance(0.02)) j.nice = static_cast<int32_t>(1 + r.below(1000));
      if (r.chance(0.01)) j.site_factor = static_cast<int32_t>(r.below(10000));
    }
    js.jobs.push_back(j);
    // A job eligible for two partitions is two records with the same id.
    if (!p.running && js.jobs.size() < p.count && part == 0 && r.chance(p.multi_partition / 0.6)) {
      mfprio_job_t k = j;
      k.partition = kParts[3];
      js.jobs.push_back(k);
    }
  }
  return js;
}

}  // namespace mfprio::bench
