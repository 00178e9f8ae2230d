// mf_policy.cpp - see mf_policy.hpp.
#include "mf_policy.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <set>
#include <unordered_set>

#include <unistd.h>

#include "mf_priority.hpp"
#include "release.hpp"
#include "tres.hpp"

namespace mfprio::multifactor {

void MultifactorPolicy::configure(const HostContext& host) {
  host_ = &host;
  settings_ = std::make_shared<const Settings>(parse_settings(host.conf));
  cluster_ = host.cluster;
  if (settings_->store_path.empty())  // only with no conf pairs at all (store_location's default)
    throw ConfigError("the conf is empty: priority/multifactor needs the accounting store (AccountingStorageLoc, "
                      "or its default beside slurm.conf)");
  if (settings_->weights_may_overflow())
    host.log(MFPRIO_LOG_WARNING,
             "the PriorityWeight* values sum past 2^32-1: large priorities will be clamped (and counted)");
}

// Loads the whole store: a new layout, usage from the file.
std::shared_ptr<State> MultifactorPolicy::load(const StoreView* store, uint32_t layout_id) {
  std::vector<double> usage;
  std::shared_ptr<const Layout> layout;
  int64_t last_decay = 0;
  {
    // The store's rows are gone (build_layout frees what it has read)
    // before fair share runs: they never sit beside the pass's scratch.
    acct::TreeData data = store->load_tree();
    last_decay = data.decay.last_decay;
    layout = build_layout(data, layout_id, &usage);
  }
  ended_credits_.clear();  // the store's usage has them
  return build_snapshot(layout, std::move(usage), last_decay, nullptr);
}

namespace {

// A partition as slurm.conf and then the store define it.
struct Merged {
  std::string name;
  uint32_t job_factor = 1;
  std::vector<TresWeight> billing;
  ClusterTotals totals;
  bool is_default = false;
};

void set_extra(ClusterTotals& t, const std::pair<std::string, double>& c) {
  auto it = std::find_if(t.extra.begin(), t.extra.end(), [&](const auto& e) { return e.first == c.first; });
  if (it != t.extra.end()) it->second = c.second;
  else t.extra.push_back(c);
}

Merged from_conf(const ConfPartition& c, const ClusterTotals& cluster) {
  Merged m;
  m.name = c.name;
  m.job_factor = c.job_factor;
  m.billing = c.billing_weights;
  m.totals = cluster;
  if (c.has_totals) {
    m.totals.nodes = static_cast<double>(c.totals.nodes);
    m.totals.cpus = static_cast<double>(c.totals.cpus);
    m.totals.mem_mb = static_cast<double>(c.totals.mem_mb);
    // A partition has only its own nodes' GRES; licenses and the like stay the cluster's.
    for (auto& e : m.totals.extra)
      if (e.first.rfind("gres/", 0) == 0) e.second = 0;
    for (const auto& g : c.totals.gres) set_extra(m.totals, g);
  }
  m.is_default = c.is_default;
  return m;
}

// `base`: the conf partition's totals when it defines one, else the cluster's.
Merged from_store(const acct::PartitionRec& r, const ClusterTotals& base, const ClusterTotals& cluster) {
  Merged m;
  m.name = r.name;
  m.job_factor = r.job_factor;
  m.is_default = r.is_default;
  std::string why;
  if (!parse_tres_spec(r.billing_weights, &m.billing, &why, false))
    throw acct::StoreError("partition '" + r.name + "': TRESBillingWeights: " + why);
  m.totals = base;
  if (!r.tres_totals.empty()) {
    m.totals = cluster;
    std::vector<std::pair<std::string, double>> counts;
    if (!parse_tres_counts(r.tres_totals, &counts, &why))
      throw acct::StoreError("partition '" + r.name + "': TRES totals: " + why);
    for (const auto& c : counts) {
      if (c.first == "cpu") m.totals.cpus = c.second;
      else if (c.first == "mem") m.totals.mem_mb = c.second;
      else if (c.first == "node") m.totals.nodes = c.second;
      else set_extra(m.totals, c);
    }
  }
  return m;
}

// How the conf's partition `c` and the store's `m` differ ("" when alike).
std::string partition_diff(const Merged& c, const Merged& m, const ConfPartition* cp, const acct::PartitionRec& r) {
  std::string diff;
  if (c.job_factor != m.job_factor)
    diff += "PriorityJobFactor " + std::to_string(c.job_factor) + " vs " + std::to_string(m.job_factor);
  bool same_billing = c.billing.size() == m.billing.size();
  for (size_t i = 0; same_billing && i < c.billing.size(); ++i)
    same_billing = c.billing[i].name == m.billing[i].name && c.billing[i].weight == m.billing[i].weight;
  if (!same_billing)
    diff += std::string(diff.empty() ? "" : ", ") + "TRESBillingWeights '" + (cp ? cp->billing : "") +
            "' vs '" + r.billing_weights + "'";
  if (c.is_default != m.is_default)
    diff += std::string(diff.empty() ? "" : ", ") + "Default " + (c.is_default ? "YES" : "NO") + " vs " +
            (m.is_default ? "YES" : "NO");
  return diff;
}

// The merged partitions into the layout (one implicit partition when none).
void fill_partitions(const Settings& s, std::vector<Merged>& merged, const ClusterTotals& cluster, Layout& L) {
  if (merged.empty()) {
    L.implicit_partitions = true;
    PartitionInfo p;
    p.job_factor = 1;
    p.factor = 1;  // every partition alike: normalized 1/1, raw 1
    p.totals = cluster;
    L.parts.push_back(std::move(p));
    return;
  }
  uint32_t max_factor = 0;
  for (const Merged& m : merged) max_factor = std::max(max_factor, m.job_factor);
  for (Merged& m : merged) {
    PartitionInfo p;
    p.name = m.name;
    p.job_factor = m.job_factor;
    p.factor = s.has(kNoNormalPart) ? m.job_factor : (max_factor ? double(m.job_factor) / max_factor : 0.0);
    p.billing = std::move(m.billing);
    p.totals = std::move(m.totals);
    if (m.is_default) L.default_part = static_cast<int32_t>(L.parts.size());
    L.part_index[m.name] = static_cast<uint32_t>(L.parts.size());
    L.parts.push_back(std::move(p));
  }
}

// The pricing plan and each partition's score and TRES denominators.
void fill_plan(const Settings& s, const ClusterTotals& cluster, Layout& L) {
  L.plan.w_age = s.w_age;
  L.plan.w_jobsize = s.w_jobsize;
  L.plan.inv_max_age = s.max_age > 0 ? 1.0 / static_cast<double>(s.max_age) : 0.0;
  L.plan.accrue_always = s.has(kAccrueAlways);
  L.plan.raw_tres = s.has(kNoNormalTres);
  L.plan.incr_only = s.has(kIncrOnly);
  L.plan.size_mode = s.has(kSmallRelativeToTime)
                         ? (s.favor_small ? SizeMode::PerTimeSmall : SizeMode::PerTime)
                         : (s.favor_small ? SizeMode::FavorSmall : SizeMode::FavorLarge);
  L.plan.nodes = cluster.nodes;
  L.plan.cpus = cluster.cpus;
  L.plan.inv_nodes = cluster.nodes > 0 ? 1.0 / cluster.nodes : 0.0;
  L.plan.inv_cpus = cluster.cpus > 0 ? 1.0 / cluster.cpus : 0.0;
  L.plan.n_tres = static_cast<uint32_t>(std::min(s.w_tres.size(), kMaxTresWeights));
  for (uint32_t i = 0; i < L.plan.n_tres; ++i) {
    L.plan.tres_kind[i] = s.w_tres[i].kind;
    L.plan.tres_weight[i] = s.w_tres[i].weight;
    L.plan.tres_name[i] = s.w_tres[i].name.c_str();
  }
  for (PartitionInfo& p : L.parts) {
    p.score = s.w_partition * p.factor;
    for (size_t i = 0; i < s.w_tres.size(); ++i) {
      const double t = p.totals.get(s.w_tres[i].name);
      p.tres_inv_total[i] = t > 0 ? 1.0 / t : 0.0;
    }
  }
}

void fill_qos(const Settings& s, const std::vector<acct::QosRec>& qos, Layout& L) {
  uint32_t max_qos = 0;
  for (const acct::QosRec& q : qos) max_qos = std::max(max_qos, q.priority);
  for (const acct::QosRec& q : qos) {
    QosInfo qi;
    qi.name = q.name;
    qi.priority = q.priority;
    qi.usage_factor = q.usage_factor;
    qi.factor = s.has(kNoNormalQos) ? q.priority : (max_qos ? double(q.priority) / max_qos : 0.0);
    qi.score = s.w_qos * qi.factor;
    if (q.name == "normal") L.normal_qos = static_cast<int32_t>(L.qos.size());
    L.qos_index[q.name] = static_cast<uint32_t>(L.qos.size());
    L.qos.push_back(std::move(qi));
  }
}

// Sub-accounts and each account's associations, as CSR lists in index order.
struct AccountLists {
  std::vector<uint32_t> sub_begin, sub, users_begin, users_of;
};

AccountLists account_lists(const acct::TreeData& data) {
  const acct::NamePool& names = data.names;
  const size_t n_acc = data.accounts.size();
  const size_t n_assoc = data.assocs.size();
  const size_t n_users = data.users.size();
  if (n_acc == 0 || data.accounts[0].parent != -1) throw acct::StoreError("the store has no root account");
  AccountLists a;
  std::vector<uint32_t>&sub_begin = a.sub_begin, &sub = a.sub, &users_begin = a.users_begin, &users_of = a.users_of;
  sub_begin.assign(n_acc + 1, 0);
  sub.resize(n_acc - 1);
  users_begin.assign(n_acc + 1, 0);
  users_of.resize(n_assoc);
  for (size_t i = 1; i < n_acc; ++i) {
    const int32_t p = data.accounts[i].parent;
    if (p < 0 || static_cast<size_t>(p) >= i)
      throw acct::StoreError("account '" + std::string(names[data.accounts[i].name]) +
                             "': its parent does not come before it (a cycle or a missing parent)");
    ++sub_begin[static_cast<size_t>(p) + 1];
  }
  for (const acct::TreeAssoc& u : data.assocs) {
    if (u.account >= n_acc || u.user >= n_users)
      throw acct::StoreError("association " + std::to_string(u.id) + ": unknown user or account");
    ++users_begin[u.account + 1];
  }
  for (size_t i = 0; i < n_acc; ++i) {
    sub_begin[i + 1] += sub_begin[i];
    users_begin[i + 1] += users_begin[i];
  }
  std::vector<uint32_t> fill(sub_begin.begin(), sub_begin.end() - 1);
  for (size_t i = 1; i < n_acc; ++i) sub[fill[static_cast<size_t>(data.accounts[i].parent)]++] = static_cast<uint32_t>(i);
  fill.assign(users_begin.begin(), users_begin.end() - 1);
  for (size_t k = 0; k < n_assoc; ++k) users_of[fill[data.assocs[k].account]++] = static_cast<uint32_t>(k);
  return a;
}

// The tree, in preorder: each account's user associations (the store
// returns them sorted by user, account, partition, so an account's group
// is already in name order), then its sub-accounts (the store returns
// accounts breadth-first with siblings by name: root first, parents before
// children).  Integer indices only: names stay in the store's pool.
// Returns, per association in store order, its index in L.assocs.  The
// users' usage is in t.usage (accounts 0).
std::vector<uint32_t> build_tree(const acct::TreeData& data, const AccountLists& lists, Layout& L, ShareTree& t) {
  const acct::NamePool& names = data.names;
  const size_t n_acc = data.accounts.size();
  const size_t n_assoc = data.assocs.size();
  const std::vector<uint32_t>&sub_begin = lists.sub_begin, &sub = lists.sub, &users_begin = lists.users_begin,
                             &users_of = lists.users_of;
  // Every array has its final size up front; nodes are written in place.
  t = ShareTree{};
  const size_t n_nodes = n_acc + n_assoc;
  t.parent.resize(n_nodes);
  t.is_user.resize(n_nodes);
  t.shares_parent.resize(n_nodes);
  t.shares.resize(n_nodes);
  t.usage.resize(n_nodes);
  t.active.assign(n_nodes, 0);
  L.node_item.resize(n_nodes);
  L.assocs.resize(n_assoc);
  L.assoc_names.resize(n_assoc);
  std::vector<uint32_t> node_priority(n_nodes);  // effective association priority (inherited)
  std::vector<uint32_t> assoc_of(n_assoc);       // store order -> assocs index
  struct Frame {
    uint32_t account;
    int32_t parent;
  };
  std::vector<Frame> stack{{0, -1}};
  uint32_t max_prio = 0;
  uint32_t node = 0, aidx = 0;
  while (!stack.empty()) {
    const Frame f = stack.back();
    stack.pop_back();
    if (node + (users_begin[f.account + 1] - users_begin[f.account]) >= n_nodes)  // room for the account and its users
      throw acct::StoreError("the account tree has a cycle");
    const acct::TreeAccount& a = data.accounts[f.account];
    const uint32_t anode = node++;
    t.parent[anode] = f.parent;
    t.is_user[anode] = 0;
    t.shares_parent[anode] = a.shares_parent && f.parent >= 0;
    t.shares[anode] = a.shares;
    t.usage[anode] = 0;
    const uint32_t prio = a.priority ? a.priority : (f.parent >= 0 ? node_priority[f.parent] : 0);
    node_priority[anode] = prio;
    L.node_item[anode] = f.account;
    // Users are leaves: add them now; push sub-accounts in reverse so they pop in order.
    const uint32_t j_end = users_begin[f.account + 1];
    for (uint32_t j = users_begin[f.account]; j < j_end; ++j) {
      if (j + 8 < j_end) {  // the store's order is by user: these reads jump
        __builtin_prefetch(&data.assocs[users_of[j + 8]]);
        __builtin_prefetch(&data.users[data.assocs[users_of[j + 4]].user]);
      }
      const uint32_t k = users_of[j];
      const acct::TreeAssoc& u = data.assocs[k];
      const uint32_t unode = node++;
      t.parent[unode] = static_cast<int32_t>(anode);
      t.is_user[unode] = 1;
      t.shares_parent[unode] = u.shares_parent;
      t.shares[unode] = u.shares;
      t.usage[unode] = u.raw_usage;
      const uint32_t uprio = u.priority ? u.priority : prio;
      node_priority[unode] = uprio;
      max_prio = std::max(max_prio, uprio);
      AssocInfo& ai = L.assocs[aidx];
      ai.node = unode;
      ai.priority = uprio;
      ai.partition_name = u.partition;
      ai.user = u.user;
      ai.account = f.account;
      if (u.partition != 0) {  // the partition it serves (one no one defines: none)
        auto pit = L.part_index.find(std::string(names[u.partition]));
        L.assoc_names[aidx].serves = pit != L.part_index.end() && pit->second < AssocNames::kNoPartition
                                         ? static_cast<uint16_t>(pit->second)
                                         : AssocNames::kNoPartition;
      }
      assoc_of[k] = aidx;
      L.node_item[unode] = aidx;
      ++aidx;
    }
    for (uint32_t j = sub_begin[f.account + 1]; j > sub_begin[f.account]; --j)
      stack.push_back({sub[j - 1], static_cast<int32_t>(anode)});
  }
  if (node != n_nodes)
    throw acct::StoreError("the account tree is not connected to root (an account's parent is missing)");
  L.max_assoc_priority = max_prio;
  return assoc_of;
}

// Name look-ups for resolve_job: accounts and users by name, each user's
// associations as one run (the store's order), and its default account
// (acct::default_association: the one rule; the store marks is_default on
// the associations in the user's chosen account).
void fill_name_lookups(const acct::TreeData& data, const std::vector<uint32_t>& assoc_of, Layout& L) {
  const acct::NamePool& names = data.names;
  const size_t n_acc = data.accounts.size();
  const size_t n_assoc = data.assocs.size();
  const size_t n_users = data.users.size();
  L.account_name.resize(n_acc);
  for (size_t i = 0; i < n_acc; ++i) L.account_name[i] = data.accounts[i].name;
  L.user_name.resize(n_users);
  for (size_t i = 0; i < n_users; ++i) L.user_name[i] = data.users[i].name;
  L.account_index.build(n_acc, [&](uint32_t i) { return names[L.account_name[i]]; });
  L.user_index.build(n_users, [&](uint32_t i) { return names[L.user_name[i]]; });
  L.user_first.assign(n_users + 1, 0);
  L.user_default.assign(n_users, NameIndex::kNone);
  L.user_assocs.resize(n_assoc);
  for (size_t k = 0; k < n_assoc; ++k) {
    ++L.user_first[data.assocs[k].user + 1];
    L.user_assocs[k] = assoc_of[k];
  }
  for (size_t u = 0; u < n_users; ++u) L.user_first[u + 1] += L.user_first[u];
  for (size_t u = 0; u < n_users; ++u) {
    const auto b = data.assocs.begin() + L.user_first[u], e = data.assocs.begin() + L.user_first[u + 1];
    if (b == e) continue;
    if (b->user != u) throw acct::StoreError("the store's associations are not ordered by user");
    L.user_default[u] = acct::default_association(b, e, [](const acct::TreeAssoc& a) { return a.is_default; })->account;
  }
  {
    std::vector<int64_t> ids(n_assoc);  // per assocs index
    for (size_t k = 0; k < n_assoc; ++k) ids[assoc_of[k]] = data.assocs[k].id;
    L.assoc_by_store_id.build(n_assoc, [&](size_t i) { return ids[i]; });
  }
  for (PartitionInfo& pi : L.parts) pi.iname.set(pi.name);
  for (QosInfo& qi : L.qos) qi.iname.set(qi.name);
  L.account_inames.resize(L.account_name.size());
  for (size_t k = 0; k < L.account_name.size(); ++k) L.account_inames[k].set(names[L.account_name[k]]);
  for (size_t i = 0; i < n_assoc; ++i) {  // (serves: build_tree)
    const AssocInfo& ai = L.assocs[i];
    AssocNames& an = L.assoc_names[i];
    an.user.set(names[L.user_name[ai.user]]);
    an.account = ai.account;
    an.user_default = L.user_default[ai.user] == ai.account;
  }
}

}  // namespace

// Partitions: slurm.conf's PartitionName lines, then the store's, which
// override a conf partition of the same name or add one.
void MultifactorPolicy::merge_partitions(const acct::TreeData& data, Layout& L) const {
  const Settings& s = *settings_;
  std::vector<Merged> merged;
  std::unordered_map<std::string, size_t> merged_at;
  for (const ConfPartition& c : s.partitions) {
    merged_at[c.name] = merged.size();
    merged.push_back(from_conf(c, cluster_));
  }
  for (const acct::PartitionRec& r : data.partitions) {
    auto at = merged_at.find(r.name);
    Merged m = from_store(r, at != merged_at.end() ? merged[at->second].totals : cluster_, cluster_);
    if (at == merged_at.end()) {
      merged_at[m.name] = merged.size();
      merged.push_back(std::move(m));
      continue;
    }
    // Both define it: the store wins; a difference is reported once.
    const ConfPartition* cp = nullptr;
    for (const ConfPartition& x : s.partitions)
      if (x.name == r.name) cp = &x;
    const std::string diff = partition_diff(merged[at->second], m, cp, r);
    if (!diff.empty() && warned_partitions_.insert(r.name).second && host_)
      host_->log(MFPRIO_LOG_WARNING, "partition '" + r.name + "': slurm.conf (" + (cp ? cp->origin : "") +
                                         ") and the accounting store differ (" + diff +
                                         ", conf vs store): the store's values are used");
    merged[at->second] = std::move(m);
  }
  fill_partitions(s, merged, cluster_, L);
}

std::shared_ptr<const Layout> MultifactorPolicy::build_layout(acct::TreeData& data, uint32_t id,
                                                              std::vector<double>* usage) const {
  auto L = std::make_shared<Layout>();
  L->id = id;
  L->settings = settings_;
  L->cluster = cluster_;
  const Settings& s = *settings_;
  merge_partitions(data, *L);
  fill_plan(s, cluster_, *L);
  if (L->parts.size() >= 0xffff)
    throw acct::StoreError("more than 65534 partitions: job handles hold 16-bit partition indices");
  if (data.qos.size() >= 0xffff)
    throw acct::StoreError("more than 65534 QOS: job handles hold 16-bit QOS indices");
  fill_qos(s, data.qos, *L);
  {
    std::vector<uint32_t> assoc_of;
    {
      const AccountLists lists = account_lists(data);
      assoc_of = build_tree(data, lists, *L, L->tree);
    }
    L->raw_assoc_priority = s.has(kNoNormalAssoc);
    fill_name_lookups(data, assoc_of, *L);
  }
  // The store's records are read: freed before the tree's derived arrays
  // are built (the load's peak).
  L->names = std::move(data.names);
  L->names.chars.shrink_to_fit();  // grown by doubling while the store was read
  L->names.begin.shrink_to_fit();
  release(data.assocs);
  release(data.users);
  release(data.accounts);
  L->tree.finalize();
  // The first snapshot's usage (accounts summed); the layout keeps the structure alone.
  *usage = std::move(L->tree.usage);
  release(L->tree.usage);
  return L;
}

std::shared_ptr<Snapshot> MultifactorPolicy::build_snapshot(std::shared_ptr<const Layout> layout,
                                                            std::vector<double> usage, int64_t last_decay,
                                                            const Snapshot* prev) const {
  auto s = std::make_shared<Snapshot>();
  s->layout = layout;
  s->layout_id = layout->id;
  s->last_decay = last_decay;
  s->associations = layout->assocs.size();
  s->usage = std::move(usage);
  const size_t na = layout->assocs.size();
  if (settings_->algo() == FairShareAlgo::TicketBased) {
    // Active = had a pending job priced since the previous pass.
    s->active.assign(layout->tree.size(), 0);
    if (prev && prev->layout == layout && prev->pending_mark)
      for (size_t a = 0; a < na; ++a)
        if (prev->pending_mark[a].load(std::memory_order_relaxed))
          s->active[layout->assocs[a].node] = 1;
    s->pending_mark = std::shared_ptr<std::atomic<uint8_t>[]>(new std::atomic<uint8_t>[na ? na : 1]());
  }
  layout->tree.sum_usage(s->usage);  // the structure was finalized with the layout
  FairShareParams params;
  params.algo = settings_->algo();
  params.dampening = settings_->dampening;
  ShareResult shares;
  shares.fairshare_only = true;  // views compute the other columns again from the snapshot
  compute_fair_share(layout->tree, s->inputs(), params, shares);
  // Each scratch array goes as soon as it is read: this is a pass's peak,
  // beside the snapshot it replaces.
  release(shares.level_fs);
  release(shares.norm_shares);
  s->assoc_fs.resize(na);
  for (size_t a = 0; a < na; ++a) s->assoc_fs[a] = shares.fairshare[layout->assocs[a].node];
  release(shares.fairshare);
  s->assoc_score.resize(na);
  const Settings& set = *settings_;
  for (size_t a = 0; a < na; ++a)
    s->assoc_score[a] = set.w_assoc * layout->assoc_factor(layout->assocs[a]) + set.w_fairshare * s->assoc_fs[a];
  return s;
}

namespace {
// The start of the reset period containing `t` (local time).
int64_t period_start(ResetPeriod p, int64_t t) {
  time_t tt = static_cast<time_t>(t);
  struct tm tm;
  localtime_r(&tt, &tm);
  tm.tm_sec = tm.tm_min = tm.tm_hour = 0;
  switch (p) {
    case ResetPeriod::Weekly: tm.tm_mday -= tm.tm_wday; break;  // back to Sunday
    case ResetPeriod::Monthly: tm.tm_mday = 1; break;
    case ResetPeriod::Quarterly: tm.tm_mday = 1; tm.tm_mon -= tm.tm_mon % 3; break;
    case ResetPeriod::Yearly: tm.tm_mday = 1; tm.tm_mon = 0; break;
    default: break;
  }
  tm.tm_isdst = -1;
  return static_cast<int64_t>(mktime(&tm));
}
}  // namespace

bool MultifactorPolicy::plan_pass(const State&, const UsagePass& pass, UsagePlan* plan) const {
  acct::CycleUpdate& up = plan->scalar.emplace();
  if (pass.ended) {
    up.defer_usage = true;  // journal appends; the next decay pass folds them (same totals)
    return true;
  }
  // The factor, the reset and the pass times come from the store's own last
  // pass (acct::PassClock): a pass another host already ran is not applied twice.
  const Settings& s = *settings_;
  acct::PassClock clock;
  clock.now = pass.now;
  if (s.decay_half_life > 0) clock.rate = acct::DecayRate{0.5, static_cast<double>(s.decay_half_life)};
  if (s.reset != ResetPeriod::None && s.reset != ResetPeriod::Now)
    clock.reset_if_before = period_start(s.reset, pass.now);
  up.reset = s.reset == ResetPeriod::Now && !reset_now_done_;
  up.pass = clock;
  up.charges.reserve(pass.count);
  return true;
}

int MultifactorPolicy::charge_job(const State& state, const mfprio_job_t& j, int64_t until, bool ended,
                                  UsagePlan* plan, std::string* why) const {
  const Snapshot& snap = static_cast<const Snapshot&>(state);
  // A handle is trusted only when it is current, in range and names the
  // job's own names (a forged or stale one is resolved again by name).
  mfprio_handle_t h = j.handle;
  if (!handle_fits(snap, j, h)) {
    mfprio_job_t copy = j;
    copy.nice = 0;  // nice does not matter for charging
    // ENOENT: its association is gone (an admin deleted it while the job
    // ran): the runtime's vanished-association rule (mfprio-acct(1), DURABILITY).
    if (int rc = resolve_job(snap, copy, &h, why)) return rc;
  }
  // Charged by name: the store finds the association inside the pass's
  // transaction (a row id cached here may belong to another by then).
  const Layout& L = *snap.layout;
  const AssocInfo& ai = L.assocs[h.assoc];
  acct::Charge c;
  c.job_id = j.job_id;
  c.user = L.user_of(ai);
  c.account = L.name(L.account_name[ai.account]);
  c.partition = L.name(ai.partition_name);
  c.start_time = j.start_time;
  c.until = until;
  c.rate = job_charge_rate(snap, j, h);
  const double uf = h.qos == MFPRIO_NO_QOS ? 1.0 : snap.layout->qos[h.qos].usage_factor;
  c.tres.emplace_back("cpu", j.cpus * uf);
  c.tres.emplace_back("mem", static_cast<double>(j.mem_mb) * uf);
  c.tres.emplace_back("node", j.min_nodes * uf);
  for (uint32_t k = 0; k < j.tres_count; ++k)
    if (j.tres[k].name) c.tres.emplace_back(tres_lower(j.tres[k].name), j.tres[k].count * uf);
  c.ended = ended;
  plan->scalar->charges.push_back(std::move(c));
  return MFPRIO_OK;
}

namespace {
// The store credits the association a job was first charged to (its
// ledger); memory credits the same one, found by its store id: add(node,
// amount) for each charge, in the store's order.
template <class Add>
void for_each_credit(const Layout& L, const acct::CycleResult& res, Add add) {
  for (size_t i = 0; i < res.added.size() && i < res.assoc_ids.size(); ++i) {
    const uint32_t k = L.assoc_by_store_id.find(res.assoc_ids[i]);
    if (k != acct::IdIndex::kNone) add(L.assocs[k].node, res.added[i]);
  }
}
}  // namespace

// The next state follows the store's result exactly, in memory (no
// re-read): usage times the store's decay factor (0 after a reset), plus
// what each charge added to the association the store credited.  A job
// end moves usage only (kept as a list until the next pass: the snapshot's
// usage is the one copy); fair share follows at the next decay pass, as in
// Slurm.
std::shared_ptr<State> MultifactorPolicy::after_pass(const State& state, const UsagePass& pass, const UsagePlan&,
                                                     const acct::PassResult& result, const StoreView*, bool*) {
  const Snapshot& snap = static_cast<const Snapshot&>(state);
  const acct::CycleResult& res = result.scalar;
  if (pass.ended) {
    for_each_credit(*snap.layout, res, [&](uint32_t node, double v) { ended_credits_.emplace_back(node, v); });
    return nullptr;
  }
  if (res.pass.applied && res.pass.reset) reset_now_done_ = true;
  // The users' usage is the snapshot's (accounts are summed again), plus
  // the job ends since, in their order: the same additions as always.
  // Committed, so a failure from here on makes the runtime load again from
  // the store.
  std::vector<double> usage = snap.usage;
  for (const auto& [node, v] : ended_credits_) usage[node] += v;
  ended_credits_.clear();
  for (double& u : usage) u = (res.pass.reset ? 0.0 : u) * res.pass.decay_factor;
  for_each_credit(*snap.layout, res, [&](uint32_t node, double v) { usage[node] += v; });
  return build_snapshot(snap.layout, std::move(usage), res.pass.state.last_decay, &snap);
}

namespace {
// The job's handle, resolved again when it is stale or out of range.
int handle_for(const Snapshot& snap, const mfprio_job_t& job, mfprio_handle_t* h, std::string* why) {
  if (handle_fits(snap, job, job.handle)) {
    *h = job.handle;
    return MFPRIO_OK;
  }
  return resolve_job(snap, job, h, why);
}
}  // namespace

int MultifactorPolicy::resolve(const State& state, const mfprio_job_t& job, mfprio_handle_t* h,
                               std::string* why) const {
  return resolve_job(static_cast<const Snapshot&>(state), job, h, why);
}

int MultifactorPolicy::price(const State& state, const PassState*, const mfprio_job_t& job, int64_t now,
                             Explain* explain, uint32_t* priority, uint32_t* clamp, std::string* why) const {
  const Snapshot& snap = static_cast<const Snapshot&>(state);
  mfprio_handle_t h;
  if (int rc = handle_for(snap, job, &h, why)) return rc;
  *priority = job_priority(snap, job, h, now, explain, clamp);
  return MFPRIO_OK;
}

void MultifactorPolicy::price_batch(const State& state, const PassState* pass, const mfprio_job_t* jobs,
                                    size_t count, int64_t now, uint32_t* priorities, int* statuses,
                                    ClampCounts* clamps, BatchError* err) const {
  // Records the fast loop cannot take (stale handle, bad size, a permission
  // question) go through the checked path, which names the job on failure.
  SlowRecords ctx{this, &state, pass, jobs, now, priorities, clamps, err};
  const auto slow = &SlowRecords::call;
  uint64_t clamped[2];
  job_priority_batch(static_cast<const Snapshot&>(state), jobs, count, now, priorities, statuses, slow, &ctx,
                     clamped);
  clamps->high += clamped[0];
  clamps->low += clamped[1];
}

namespace {

// One sshare cell of a row: a number, or one of the row's texts.
constexpr size_t kShareColumns = 11;

void share_columns(ShareView* v) {
  v->column("account", "Account", -1, 20, MFPRIO_COLF_TEXT | MFPRIO_COLF_INDENT | MFPRIO_COLF_LEFT);
  v->column("user", "User", -1, 10, MFPRIO_COLF_TEXT);
  v->column("raw_shares", "RawShares", -1, 10, 0);
  v->column("norm_shares", "NormShares", 6, 11, 0);
  v->column("raw_usage", "RawUsage", -1, 11, 0);
  v->column("norm_usage", "NormUsage", 6, 11, MFPRIO_COLF_LONG);
  v->column("eff_usage", "EffectvUsage", 6, 13, 0);
  v->column("fairshare", "FairShare", 6, 10, 0);
  v->column("level_fs", "LevelFS", 6, 10, MFPRIO_COLF_LONG);
  v->column("grp_tres_mins", "GrpTRESMins", -1, 30, MFPRIO_COLF_TEXT | MFPRIO_COLF_LONG);
  v->column("tres_run_mins", "TRESRunMins", -1, 30, MFPRIO_COLF_TEXT | MFPRIO_COLF_LONG);
}

// Every node's sshare row, parents first: row(i, parent, depth, is_user,
// account, user ("" for accounts), partition, cells[kShareColumns]).  The
// one source of share_view and share_block.
template <class RowFn>
void share_rows(const Snapshot& snap, FairShareAlgo algo, uint32_t dampening, RowFn&& row) {
  // Slurm's sshare columns (sshare(1) of Slurm 22.05); -l adds the LONG ones.
  const Layout& L = *snap.layout;
  const ShareTree& tree = L.tree;
  const double* usage = snap.usage.data();
  const size_t n = tree.size();
  const bool fair_tree = algo == FairShareAlgo::FairTree;
  // What build_snapshot computed: same tree, same settings.  Fair Tree's
  // columns are its per-node level values (fair_tree_level, the same
  // arithmetic as fair_share_fair_tree) and the users' FairShare, which the
  // snapshot keeps (assoc_fs): no ranking again.  The other algorithms are
  // computed again whole.
  ShareResult sr;
  std::vector<double> fs_norm_shares;  // Fair Tree: S per node (a FairShare=parent node takes its parent's)
  if (fair_tree) {
    fs_norm_shares.assign(n, 0.0);
  } else {
    FairShareParams params;
    params.algo = algo;
    params.dampening = dampening;
    compute_fair_share(tree, snap.inputs(), params, sr);
  }
  std::vector<uint32_t> depth(n, 0);  // parents come before their children
  ShareCell c[kShareColumns];
  auto num = [](double v) { return ShareCell{ShareCell::Number, v, {}}; };
  auto text = [](std::string_view t) { return ShareCell{ShareCell::Text, 0, t}; };
  const ShareCell account_cell{ShareCell::Account, 0, {}}, user_cell{ShareCell::User, 0, {}};
  constexpr std::string_view kEmpty, kParent = "parent";
  for (size_t i = 0; i < n; ++i) {
    const int32_t parent = tree.parent[i];
    if (parent >= 0) depth[i] = depth[static_cast<size_t>(parent)] + 1;
    const bool is_user = tree.is_user[i] != 0;
    const std::string_view account = L.node_account(i);
    std::string_view user, partition;
    const int32_t a = L.node_assoc(i);
    if (a >= 0) {
      user = L.user_of(L.assocs[static_cast<size_t>(a)]);
      partition = L.name(L.assocs[static_cast<size_t>(a)].partition_name);
    }
    const bool root = parent < 0;
    c[0] = account_cell;
    c[1] = is_user ? user_cell : text(kEmpty);
    if (root) c[2] = text(kEmpty);
    else if (tree.shares_parent[i]) c[2] = text(kParent);
    else c[2] = num(tree.shares[i]);
    // As Slurm 22.05's sshare shows them (checked against a live slurmctld,
    // tests/data/slurm-live): the root has a blank NormUsage; under Fair Tree
    // its NormShares is 0.000000 and only users have a FairShare; under
    // NO_FAIR_TREE (and DEPTH_OBLIVIOUS, which normalizes the same way) the
    // root's NormShares is 1.000000 and every row, the root too, shows
    // 2^(-(EffectvUsage/NormShares)/dampening) (the root's 0.500000 with
    // usage); FairShare=parent rows leave LevelFS blank.
    const bool root_normalized = algo == FairShareAlgo::Classic || algo == FairShareAlgo::DepthOblivious;
    c[4] = num(usage[i]);
    if (fair_tree) {
      FairTreeLevel lv;
      if (root) {
        lv.norm_shares = 1.0;
        lv.eff_usage = lv.norm_usage = usage[0] > 0.0 ? 1.0 : 0.0;
      } else {
        lv = fair_tree_level(tree, usage, i, fs_norm_shares[static_cast<size_t>(tree.fs_parent[i])]);
      }
      fs_norm_shares[i] = lv.norm_shares;
      c[3] = num(root ? 0.0 : lv.norm_shares);
      c[5] = root ? text(kEmpty) : num(lv.norm_usage);
      c[6] = num(lv.eff_usage);
      c[7] = is_user && a >= 0 ? num(snap.assoc_fs[static_cast<size_t>(a)]) : text(kEmpty);
      c[8] = root || tree.shares_parent[i] ? text(kEmpty) : num(lv.level_fs);
    } else {
      c[3] = num(root && !root_normalized ? 0.0 : sr.norm_shares[i]);
      c[5] = root ? text(kEmpty) : num(sr.norm_usage[i]);
      c[6] = num(sr.eff_usage[i]);
      c[7] = num(root && !root_normalized ? 0.0 : sr.fairshare[i]);
      c[8] = root || tree.shares_parent[i] ? text(kEmpty) : num(sr.level_fs[i]);
    }
    c[9] = text(kEmpty);  // limits are not part of mfprio
    c[10] = text(kEmpty);
    row(i, parent, depth[i], is_user, account, user, partition, c);
  }
}

}  // namespace

void MultifactorPolicy::share_view(const State& state, ShareView* v) const {
  const Snapshot& snap = static_cast<const Snapshot&>(state);
  share_columns(v);
  v->rows.reserve(snap.layout->tree.size());
  share_rows(snap, settings_->algo(), settings_->dampening,
             [&](size_t, int32_t parent, uint32_t depth, bool is_user, std::string_view account,
                 std::string_view user, std::string_view partition, const ShareCell* c) {
               ShareView::Row r;
               r.parent = parent;
               r.depth = depth;
               r.is_user = is_user;
               r.account = std::string(account);
               r.user = std::string(user);
               r.partition = std::string(partition);
               r.cells.reserve(kShareColumns);
               for (size_t k = 0; k < kShareColumns; ++k) {
                 switch (c[k].kind) {
                   case ShareCell::Number: r.cells.push_back(ShareView::num(c[k].value)); break;
                   case ShareCell::Text: r.cells.push_back(ShareView::text(std::string(c[k].text))); break;
                   case ShareCell::Account: r.cells.push_back(ShareView::text(r.account)); break;
                   case ShareCell::User: r.cells.push_back(ShareView::text(r.user)); break;
                 }
               }
               v->rows.push_back(std::move(r));
             });
}

bool MultifactorPolicy::share_block(const State& state, ShareBlockSink* out) const {
  // Straight from the rows (no ShareView): the edge's writer copies each
  // account (a user row's is its parent row's), user and partition once.
  const Snapshot& snap = static_cast<const Snapshot&>(state);
  const Layout& L = *snap.layout;
  ShareView cols;
  share_columns(&cols);
  const size_t nr = L.tree.size();
  size_t strings = sizeof "parent";
  for (size_t i = 0; i < nr; ++i) {
    const int32_t a = L.node_assoc(i);
    if (a < 0) strings += L.node_account(i).size() + 1;  // a user: its parent's
    if (a >= 0) {
      strings += L.user_of(L.assocs[static_cast<size_t>(a)]).size() + 1;
      const size_t part = L.name(L.assocs[static_cast<size_t>(a)].partition_name).size();
      if (part) strings += part + 1;
    }
  }
  out->begin(cols.columns, nr, strings);
  share_rows(snap, settings_->algo(), settings_->dampening,
             [&](size_t, int32_t parent, uint32_t depth, bool is_user, std::string_view account,
                 std::string_view user, std::string_view partition, const ShareCell* c) {
               ShareRowSpec r;
               r.parent = parent;
               r.depth = depth;
               r.is_user = is_user;
               r.account = account;
               r.user = user;
               r.partition = partition;
               r.cells = c;
               out->row(r);
             });
  return true;
}

namespace {
// The host's "slurm-22.05" view layout: Slurm's sprio letters and sshare
// fields read these terms, weights and share columns (mfprio.h(3), "view").
void view_info(const Settings& s, const char* algo, InfoView* v) {
  v->set("view.layout", std::string("slurm-22.05"));
  static const char* const kSlots[][2] = {{"S", "site"},      {"A", "age"}, {"B", "assoc"}, {"F", "fairshare"},
                                          {"J", "jobsize"},   {"P", "partition"}, {"Q", "qos"}, {"n", "qosname"},
                                          {"N", "nice"},      {"T", "tres"}};
  for (const auto& slot : kSlots) v->set(std::string("view.terms.") + slot[0], std::string(slot[1]));
  v->set("view.weights.age", static_cast<double>(s.w_age));
  v->set("view.weights.assoc", static_cast<double>(s.w_assoc));
  v->set("view.weights.fairshare", static_cast<double>(s.w_fairshare));
  v->set("view.weights.jobsize", static_cast<double>(s.w_jobsize));
  v->set("view.weights.partition", static_cast<double>(s.w_partition));
  v->set("view.weights.qos", static_cast<double>(s.w_qos));
  if (!s.w_tres.empty()) v->set("view.weights.tres", s.w_tres_text);  // as written: sprio -w prints it so
  static const char* const kFields[][2] = {
      {"Account", "account"},       {"User", "user"},           {"RawShares", "raw_shares"},
      {"NormShares", "norm_shares"}, {"RawUsage", "raw_usage"},  {"NormUsage", "norm_usage"},
      {"EffectvUsage", "eff_usage"}, {"FairShare", "fairshare"}, {"LevelFS", "level_fs"},
      {"GrpTRESMins", "grp_tres_mins"}, {"TRESRunMins", "tres_run_mins"}};
  for (const auto& f : kFields) v->set(std::string("view.share_columns.") + f[0], std::string(f[1]));
  v->set_bool("view.level_fs", std::string(algo) == "fair_tree");  // sshare -l's LevelFS: Fair Tree only
  // replay --no-decay: a half-life of about 31,700 years (the usage decays
  // below 1e-10 relative over a 90-day trace); 0 would need a reset period.
  v->set("no_decay_conf.PriorityDecayHalfLife", std::string("999999999999-0"));
}
}  // namespace

void MultifactorPolicy::info(const State&, InfoView* v) const {
  const Settings& s = *settings_;
  v->weight("age", s.w_age);
  v->weight("assoc", s.w_assoc);
  v->weight("fairshare", s.w_fairshare);
  v->weight("jobsize", s.w_jobsize);
  v->weight("partition", s.w_partition);
  v->weight("qos", s.w_qos);
  for (const TresWeight& tw : s.w_tres) v->weight("tres." + tw.name, tw.weight);
  // The column order job_priority's terms come in (mf_priority.cpp).
  v->term("site", "SITE", MFPRIO_TERMF_RAW);
  v->term("age", "AGE");
  v->term("assoc", "ASSOC");
  v->term("fairshare", "FAIRSHARE");
  v->term("jobsize", "JOBSIZE");
  v->term("partition", "PARTITION");
  v->term("qosname", "QOSNAME", MFPRIO_TERMF_TEXT | MFPRIO_TERMF_LONG);
  v->term("qos", "QOS");
  v->term("nice", "NICE", MFPRIO_TERMF_RAW | MFPRIO_TERMF_LONG, 11);
  v->term("tres", "TRES", MFPRIO_TERMF_LIST, 20);
  v->set("flags", s.flag_names());
  const char* algo = "fair_tree";
  switch (s.algo()) {
    case FairShareAlgo::Classic: algo = "classic"; break;
    case FairShareAlgo::DepthOblivious: algo = "depth_oblivious"; break;
    case FairShareAlgo::TicketBased: algo = "ticket_based"; break;
    default: break;
  }
  v->set("fairshare_algorithm", std::string(algo));
  v->set_int("decay_half_life", s.decay_half_life);
  v->set_int("calc_period", s.calc_period);
  v->set_int("max_age", s.max_age);
  v->set_bool("favor_small", s.favor_small);
  v->set("usage_reset_period", std::string(reset_period_name(s.reset)));
  v->set_int("dampening_factor", s.dampening);
  v->set("accounting_storage_loc", s.store_path);
  v->set("decay_arithmetic", std::string("usage * 2^(-elapsed/half_life)"));
  view_info(s, algo, v);
}

}  // namespace mfprio::multifactor
