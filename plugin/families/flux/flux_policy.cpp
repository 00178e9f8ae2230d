// flux_policy.cpp - see flux_policy.hpp.
#include "flux_policy.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <stdexcept>
#include <type_traits>


#include "flux_usage.hpp"
#include "params.hpp"
#include "store.hpp"
#include "stable_order.hpp"
#include "tree_walk.hpp"

namespace mfprio::flux {
namespace {

constexpr const char* kFamily = "flux";  // the store's window family
constexpr const char* kKind = "assoc";   // one usage series per (user, bank)

const char* nz(const char* s) { return s ? s : ""; }


std::string assoc_key(const std::string& user, const std::string& bank) { return user + '\n' + bank; }
std::string usage_name(const std::string& user, const std::string& bank) { return user + "/" + bank; }

std::string job_name(const mfprio_job_t& j) { return "job " + std::to_string(j.job_id); }

// Handle codes for "no queue / QOS" and "one the model does not know".
constexpr uint16_t kHandleNone = 0xffff;
constexpr uint16_t kHandleUnknown = 0xfffe;

uint16_t encode(int32_t i) {
  return i == kNone ? kHandleNone : i == kUnknown ? kHandleUnknown : static_cast<uint16_t>(i);
}
// The index a handle code stands for; false when out of range (forged).
bool decode(uint16_t c, size_t n, int32_t* out) {
  if (c == kHandleNone) *out = kNone;
  else if (c == kHandleUnknown) *out = kUnknown;
  else if (c < n) *out = c;
  else return false;
  return true;
}

// The same associations, queues and QOS in the same order: a decay's new
// state may keep the handles of the old one.
bool same_layout(const Model& a, const Model& b) {
  if (a.assocs.size() != b.assocs.size() || a.queues.size() != b.queues.size() || a.qos.size() != b.qos.size())
    return false;
  for (size_t i = 0; i < a.assocs.size(); ++i)
    if (a.assocs[i].user != b.assocs[i].user || a.assocs[i].bank != b.assocs[i].bank) return false;
  for (size_t i = 0; i < a.queues.size(); ++i)
    if (a.queues[i].name != b.queues[i].name) return false;
  for (size_t i = 0; i < a.qos.size(); ++i)
    if (a.qos[i].name != b.qos[i].name) return false;
  return true;
}

// The refusal of a queue the association may not use (price and the batch).
std::string not_permitted(const mfprio_job_t& job, const Association& a, std::string_view queue) {
  return job_name(job) + ": user " + a.user + " in bank " + a.bank + " may not use queue " + std::string(queue);
}

// The column header of a term: its name in capitals ("wait_time" -> "WAIT_TIME").
std::string label_of(const std::string& name) {
  std::string l = name;
  for (char& c : l) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (l.size() > MFPRIO_TERM_LABEL_MAX - 1) l.resize(MFPRIO_TERM_LABEL_MAX - 1);
  return l;
}

// The design-mode user factor from the job's attribute "user_factor"
// (0..1; absent: 1).  False with *why for anything else.
bool user_factor(const mfprio_job_t& j, double* out, std::string* why) {
  *out = 1.0;
  for (uint32_t i = 0; i < j.attr_count && j.attrs; ++i) {
    if (std::strcmp(nz(j.attrs[i].name), "user_factor") != 0) continue;
    const std::string v = nz(j.attrs[i].value);
    char* end = nullptr;
    const double d = std::strtod(v.c_str(), &end);
    if (v.empty() || *end || !(d >= 0.0 && d <= 1.0)) {
      *why = job_name(j) + ": attribute user_factor=\"" + v + "\" is not a number in 0..1";
      return false;
    }
    *out = d;
  }
  return true;
}

uint32_t gpus_of(const mfprio_job_t& j) {
  double g = 0;
  for (uint32_t i = 0; i < j.tres_count && j.tres; ++i)
    if (std::string(nz(j.tres[i].name)) == "gres/gpu") g += j.tres[i].count;
  return static_cast<uint32_t>(std::min(g, 4294967295.0));
}

}  // namespace

void FluxPolicy::configure(const HostContext& host) {
  host_ = &host;
  const ConfPair* pp = nullptr;
  for (const ConfPair& c : host.conf)
    if (iequals(c.key, "PriorityParameters")) pp = &c;  // the last one wins
  Settings s;
  if (pp) {
    std::string why;
    if (!parse_flux_parameters(pp->value, &s, &why))
      throw ConfigError(pp->file + ":" + std::to_string(pp->line) + ": " + why);  // why names the key
    params_origin_ = pp->file + ":" + std::to_string(pp->line);
  }
  std::string origin;
  std::string path = store_location(host.conf, &origin);
  if (path.empty())
    throw ConfigError(std::string(type()) +
                      " keeps its banks, queues and usage in the accounting store: set AccountingStorageLoc");
  settings_ = s;
  cluster_nodes_ = static_cast<uint32_t>(std::min(host.cluster.nodes, 4294967295.0));
  store_path_ = std::move(path);
  store_origin_ = std::move(origin);
}

namespace {

using Bins = std::unordered_map<std::string, std::vector<std::pair<int32_t, double>>>;

// Half-life bins per association: bin = whole half-lives between the
// window (or an imported usage's usage_time) and now; future times count as current.
// Kept sparse: only the bins that hold usage.
Bins usage_bins(const acct::StoreData& d, const std::vector<acct::WindowRow>& rows, const UsageSettings& us,
                int64_t as_of) {
  const int nbins = us.bins();
  const int64_t H = us.half_life;
  const int64_t cur = floor_div(as_of, H);
  Bins bins;
  auto add = [&](const std::string& name, int64_t t, double usage) {
    int64_t age = cur - floor_div(t, H);
    if (age < 0) age = 0;
    if (age >= nbins || !(usage > 0)) return;
    bins[name].emplace_back(static_cast<int32_t>(age), usage);
  };
  for (const acct::WindowRow& r : rows)
    if (r.kind == kKind) add(r.name, r.start, r.usage);
  for (const acct::UserAssocRec& a : d.assocs)
    if (a.partition.empty() && a.usage_time > 0) add(usage_name(a.user, a.account), a.usage_time, a.raw_usage);
  return bins;
}

// Banks: the accounts, root first and parents before children (the store's order).
void add_banks(const acct::StoreData& d, FluxState& s, Model& m) {
  for (const acct::AccountRec& a : d.accounts) {
    s.bank_by_name.emplace(a.name, static_cast<int32_t>(m.banks.size()));
    m.banks.push_back(Bank{a.name, static_cast<double>(a.priority)});
    TreeNode n;
    n.name = a.name;
    n.parent = a.parent.empty() ? -1 : s.bank_by_name.at(a.parent);
    n.shares = a.shares;
    s.nodes.push_back(std::move(n));
    s.node_assoc.push_back(-1);
    s.node_priority.push_back(static_cast<double>(a.priority));
  }
}

// The (user, bank) associations as tree leaves; returns how many rows with a
// partition were skipped.  *assoc_node: each association's tree node;
// *assoc_row: its row in d.assocs.
size_t add_assocs(const acct::StoreData& d, Bins& bins, const std::vector<double>& weights, FluxState& s, Model& m,
                  std::vector<int32_t>* assoc_node, std::vector<size_t>* assoc_row) {
  std::unordered_map<std::string, int32_t> queue_index;
  for (size_t i = 0; i < m.queues.size(); ++i) queue_index.emplace(m.queues[i].name, static_cast<int32_t>(i));
  size_t skipped = 0;
  // d.assocs is by user, account, partition: the user's rows are adjacent.
  for (size_t i = 0; i < d.assocs.size(); ++i) {
    const acct::UserAssocRec& r = d.assocs[i];
    if (!r.partition.empty()) {  // Flux associations are (user, bank)
      ++skipped;
      continue;
    }
    Association a;
    a.user = r.user;
    a.bank = r.account;
    a.bank_index = s.bank_by_name.at(r.account);
    for (const std::string& q : r.queues)
      if (auto it = queue_index.find(q); it != queue_index.end()) a.queues.push_back(it->second);
    const int32_t idx = static_cast<int32_t>(m.assocs.size());
    s.assoc_by_key.emplace(assoc_key(r.user, r.account), idx);
    TreeNode n;
    n.name = r.user;
    n.parent = a.bank_index;
    n.is_user = true;
    n.shares = r.shares;
    auto b = bins.find(usage_name(r.user, r.account));
    n.usage = b == bins.end() ? 0.0 : decayed_usage_sparse(&b->second, weights);
    assoc_node->push_back(static_cast<int32_t>(s.nodes.size()));
    assoc_row->push_back(i);
    s.nodes.push_back(std::move(n));
    s.node_assoc.push_back(idx);
    s.node_priority.push_back(0);
    m.assocs.push_back(std::move(a));
  }
  return skipped;
}

// Interned names, and each user's default bank: the store's one rule over
// its (user, bank) associations (m.assocs is by user, then bank, like d.assocs).
void set_names_and_defaults(const acct::StoreData& d, const std::vector<size_t>& assoc_row, FluxState& s,
                            const Model& m) {
  s.is_default.assign(m.assocs.size(), 0);
  s.assoc_names.resize(m.assocs.size());
  for (size_t i = 0; i < m.assocs.size(); ++i) {
    s.assoc_names[i].first.set(m.assocs[i].user);
    s.assoc_names[i].second.set(m.assocs[i].bank);
  }
  s.queue_names.resize(m.queues.size());
  for (size_t i = 0; i < m.queues.size(); ++i) s.queue_names[i].set(m.queues[i].name);
  s.qos_names.resize(m.qos.size());
  for (size_t i = 0; i < m.qos.size(); ++i) s.qos_names[i].set(m.qos[i].name);
  for (size_t i = 0; i < m.assocs.size();) {
    size_t j = i;
    while (j < m.assocs.size() && m.assocs[j].user == m.assocs[i].user) ++j;
    const auto first = m.assocs.begin() + static_cast<long>(i), last = m.assocs.begin() + static_cast<long>(j);
    const std::string& user = m.assocs[i].user;
    auto it = acct::default_association(first, last, [&](const Association& a) {
      return d.assocs[assoc_row[static_cast<size_t>(&a - m.assocs.data())]].is_default;
    });
    s.default_assoc.emplace(user, static_cast<int32_t>(it - m.assocs.begin()));
    s.is_default[static_cast<size_t>(it - m.assocs.begin())] = 1;
    i = j;
  }
}

// Usage per node for the view: users' own, banks' summed over their subtree.
void sum_node_usage(FluxState& s) {
  s.node_usage.assign(s.nodes.size(), 0.0);
  for (size_t i = s.nodes.size(); i-- > 0;) {
    if (s.nodes[i].is_user) s.node_usage[i] = s.nodes[i].usage;
  }
  for (size_t i = s.nodes.size(); i-- > 0;) {
    // Users come after every bank and banks after their parents: one
    // backward sweep adds each node into its parent.
    const int32_t p = s.nodes[i].parent;
    if (p >= 0) s.node_usage[static_cast<size_t>(p)] += s.node_usage[i];
  }
}

// The batch's fast path: the terms price_accounting forms, per credential.
void fill_fast_path(const Settings& settings, FluxState& s, const Model& m) {
  const Weights& w = settings.weights;
  s.fast_ok = settings.mode == Mode::kAccounting && m.queues.size() <= 62;
  if (!s.fast_ok) return;
  // Slots: a handle's queue code + 2 (see price_batch): 0 a queue
  // accounting does not know, 1 none (both W_queue * 0, permitted), i + 2
  // queue i.
  const size_t nq = m.queues.size();
  s.queue_c.reserve(nq + 2);
  s.queue_c.push_back(queue_term(w, 0.0));
  s.queue_c.push_back(queue_term(w, 0.0));
  for (const Queue& q : m.queues) s.queue_c.push_back(queue_term(w, static_cast<double>(q.priority)));
  const size_t slots = nq + 2;
  const double uc16 = urgency_term(w, kUrgencyDefault);
  s.fast.resize(m.assocs.size());
  s.slots = static_cast<uint32_t>(slots);
  s.slot_entry.assign(m.assocs.size() * slots, 0);
  for (size_t i = 0; i < m.assocs.size(); ++i) {
    const Association& a = m.assocs[i];
    FluxState::FastAssoc& f = s.fast[i];
    f.fs_c = fairshare_term(w, &a);
    f.b_c = bank_term(w, bank_factor(m, &a));
    uint64_t permitted = 3;  // unknown or no queue: nothing to permit
    for (int32_t q : a.queues)
      if (q >= 0 && static_cast<size_t>(q) < nq) permitted |= uint64_t{1} << (q + 2);
    for (size_t q = 0; q < slots; ++q) {
      // The priority at the default urgency, as the batch would form it.
      bool low = false, high = false;
      const uint32_t p = accounting_total(f.fs_c, s.queue_c[q], f.b_c, uc16, &low, &high);
      s.slot_entry[i * slots + q] = p | uint64_t{low} << FluxState::kLowBit | uint64_t{high} << FluxState::kHighBit |
                                    uint64_t{!((permitted >> q) & 1u)} << FluxState::kRefusedBit;
    }
  }
}

}  // namespace

std::shared_ptr<FluxState> FluxPolicy::build(const acct::StoreData& d, const std::vector<acct::WindowRow>& rows,
                                             int64_t as_of, int64_t last_decay) const {
  const UsageSettings& us = settings_.usage;
  auto s = std::make_shared<FluxState>();
  s->last_decay = last_decay;
  s->as_of = as_of;
  Bins bins = usage_bins(d, rows, us, as_of);
  const std::vector<double> weights = bin_weights(us.bins(), us.decay_factor);

  auto m = std::make_shared<Model>();
  m->settings = settings_;
  m->cluster_nodes = cluster_nodes_;
  for (const acct::QueueRec& q : d.queues) m->queues.push_back(Queue{q.name, q.priority});
  for (const acct::QosRec& q : d.qos) m->qos.push_back(Qos{q.name, static_cast<double>(q.priority)});
  add_banks(d, *s, *m);
  std::vector<int32_t> assoc_node;
  std::vector<size_t> assoc_row;  // association -> its row in d.assocs
  const size_t skipped = add_assocs(d, bins, weights, *s, *m, &assoc_node, &assoc_row);
  set_names_and_defaults(d, assoc_row, *s, *m);
  if (skipped && host_)
    host_->log(MFPRIO_LOG_DEBUG, std::to_string(skipped) +
                                     " associations with a partition ignored (Flux associations are user and bank)");

  // Fair share over the tree.
  FairShareResult fs;
  std::string why;
  const bool ok = settings_.mode == Mode::kDesign ? design_fairshare(s->nodes, &fs, &why)
                                                   : weighted_tree_fairshare(s->nodes, WeightedTreeOptions{}, &fs, &why);
  if (!ok) throw std::runtime_error(store_path_ + ": the bank tree cannot be ranked: " + why);
  for (size_t i = 0; i < m->assocs.size(); ++i) {
    const size_t n = static_cast<size_t>(assoc_node[i]);
    if (n < fs.ranked.size() && fs.ranked[n]) m->assocs[i].fairshare = fs.fairshare[n];
  }
  sum_node_usage(*s);
  prepare_model(m.get());
  fill_fast_path(settings_, *s, *m);
  s->associations = m->assocs.size();
  s->model = std::move(m);
  return s;
}

std::shared_ptr<FluxState> FluxPolicy::reread(const StoreView* store, int64_t as_of, int64_t last_decay) const {
  acct::LoadOptions lo;
  lo.tres_usage = false;
  const acct::StoreData d = store->load(lo);
  return build(d, store->load_windows(kFamily), as_of, last_decay);
}

std::shared_ptr<State> FluxPolicy::load(const StoreView* store, uint32_t layout_id) {
  if (!store) throw std::runtime_error(std::string(type()) + ": no accounting store");
  const int64_t last = store->decay_state().last_decay;
  auto s = reread(store, std::max(last, host_->now()), last);
  s->layout_id = layout_id;
  return s;
}

int FluxPolicy::association(const FluxState& s, const mfprio_job_t& job, int32_t* assoc, std::string* why) const {
  const std::string user = nz(job.user);
  const std::string bank = nz(job.account);
  if (user.empty()) {
    *why = job_name(job) + ": no user";
    return MFPRIO_ENOENT;
  }
  if (bank.empty()) {
    auto it = s.default_assoc.find(user);
    if (it == s.default_assoc.end()) {
      *why = job_name(job) + ": unknown user \"" + user + "\" (no bank association)";
      return MFPRIO_ENOENT;
    }
    *assoc = it->second;
    return MFPRIO_OK;
  }
  // The key in a buffer reused by this thread: no allocation per job.
  thread_local std::string key;
  key.assign(user).append(1, '\n').append(bank);  // assoc_key(user, bank)
  auto it = s.assoc_by_key.find(key);
  if (it != s.assoc_by_key.end()) {
    *assoc = it->second;
    return MFPRIO_OK;
  }
  if (!s.bank_by_name.count(bank))
    *why = job_name(job) + ": unknown bank \"" + bank + "\" (user \"" + user + "\")";
  else if (!s.default_assoc.count(user))
    *why = job_name(job) + ": unknown user \"" + user + "\" (no bank association)";
  else
    *why = job_name(job) + ": user \"" + user + "\" has no association with bank \"" + bank + "\"";
  return MFPRIO_ENOENT;
}

namespace {
// A handle's names are the record's own (policy.hpp: name_is): its user, its
// bank (none given: the user's default), its queue and its QOS; a handle kept
// after any of them changed (or resolved for another record) is not used.
// `queue` and `qos` are decoded (kNone, kUnknown or an index).  A few
// compares of short names: the batch's fast path calls it per record.
bool handle_names_ok(const FluxState& s, const mfprio_job_t& j, uint32_t assoc, int32_t queue, int32_t qos) {
  const Model& m = *s.model;
  // Inline first; a name longer than the inline part: the whole name.
  auto is = [](const InlineName& in, const std::string& full, const char* given) {
    const int r = inline_name_is(in, given);
    return r < 0 ? name_is(full, given) : r == 1;
  };
  const auto& an = s.assoc_names[assoc];
  if (!is(an.first, m.assocs[assoc].user, j.user)) return false;
  if (j.account && *j.account ? !is(an.second, m.assocs[assoc].bank, j.account) : !s.is_default[assoc]) return false;
  const bool no_queue = !j.partition || !*j.partition, no_qos = !j.qos || !*j.qos;
  if (queue >= 0 ? !is(s.queue_names[static_cast<size_t>(queue)], m.queues[static_cast<size_t>(queue)].name, j.partition)
                 : !(queue == kNone && no_queue))
    return false;  // (an unknown name: looked up by name)
  return qos >= 0 ? is(s.qos_names[static_cast<size_t>(qos)], m.qos[static_cast<size_t>(qos)].name, j.qos)
                  : qos == kNone && no_qos;
}
}  // namespace

int FluxPolicy::ids(const FluxState& s, const mfprio_job_t& job, Job* fj, std::string* why) const {
  const Model& m = *s.model;
  const mfprio_handle_t& h = job.handle;
  if (!(s.layout_id != 0 && h.generation == s.layout_id && h.assoc < m.assocs.size() &&
        decode(h.partition, m.queues.size(), &fj->queue) && decode(h.qos, m.qos.size(), &fj->qos) &&
        handle_names_ok(s, job, h.assoc, fj->queue, fj->qos))) {
    // Stale, forged or never resolved: by name.
    if (int rc = association(s, job, &fj->assoc, why)) return rc;
    fj->queue = find_queue(m, nz(job.partition));
    fj->qos = find_qos(m, nz(job.qos));
  } else {
    fj->assoc = static_cast<int32_t>(h.assoc);
  }
  if (fj->qos == kUnknown && m.settings.mode == Mode::kDesign) {
    *why = job_name(job) + ": unknown qos \"" + std::string(nz(job.qos)) + "\"";
    return MFPRIO_ENOENT;
  }
  return MFPRIO_OK;
}

int FluxPolicy::resolve(const State& state, const mfprio_job_t& job, mfprio_handle_t* h, std::string* why) const {
  const FluxState& s = static_cast<const FluxState&>(state);
  const Model& m = *s.model;
  Job fj;
  mfprio_job_t by_name = job;
  by_name.handle = mfprio_handle_t{};  // look the names up, whatever the record holds
  if (int rc = ids(s, by_name, &fj, why)) return rc;
  *h = mfprio_handle_t{};
  // Indices a 16-bit code cannot hold: no handle (priced by name).
  if (s.layout_id == 0 || m.queues.size() >= kHandleUnknown || m.qos.size() >= kHandleUnknown) return MFPRIO_OK;
  h->generation = s.layout_id;
  h->assoc = static_cast<uint32_t>(fj.assoc);
  h->partition = encode(fj.queue);
  h->qos = encode(fj.qos);
  return MFPRIO_OK;
}

int FluxPolicy::price(const State& state, const PassState*, const mfprio_job_t& job, int64_t now, Explain* explain,
                      uint32_t* priority, uint32_t* clamp, std::string* why) const {
  const FluxState& s = static_cast<const FluxState&>(state);
  const Model& m = *s.model;
  *clamp = MFPRIO_CLAMP_NONE;
  Job fj;
  fj.id = job.job_id;
  if (int rc = ids(s, job, &fj, why)) return rc;
  const Association& a = m.assocs[static_cast<size_t>(fj.assoc)];
  const std::string_view queue = nz(job.partition), qos = nz(job.qos);  // strings only for messages
  fj.urgency = (job.flags & MFPRIO_JOBF_URGENCY) ? static_cast<int>(job.urgency) : kUrgencyDefault;
  // A job the host holds is held in Flux's terms too: urgency 0.
  if (job.state == MFPRIO_JOB_HELD) fj.urgency = kUrgencyHold;
  fj.submit_time = job.submit_time;
  fj.nodes = job.min_nodes;
  fj.cpus = job.cpus;
  if (!user_factor(job, &fj.user_factor, why)) return MFPRIO_EINVAL;
  if (!check_job(m, fj, why)) {
    // The one refusal check_job can make here is a queue the association
    // may not use (flux-accounting's INVALID_QUEUE): not allowed.
    if (fj.queue >= 0) {
      *why = not_permitted(job, a, queue);
      return MFPRIO_EPERM;
    }
    return MFPRIO_EINVAL;
  }
  if (!explain) {
    const Result r = flux::price(m, fj, now, nullptr);
    *priority = r.priority;
    *clamp = r.clamped_high ? MFPRIO_CLAMP_HIGH : r.clamped_low ? MFPRIO_CLAMP_LOW : MFPRIO_CLAMP_NONE;
    return MFPRIO_OK;
  }
  std::vector<Term> terms;
  const Result r = flux::price(m, fj, now, &terms);
  *priority = r.priority;
  *clamp = r.clamped_high ? MFPRIO_CLAMP_HIGH : r.clamped_low ? MFPRIO_CLAMP_LOW : MFPRIO_CLAMP_NONE;
  for (const Term& t : terms) {
    uint32_t flags = t.bound ? MFPRIO_TERMF_CAPPED : 0u;
    if (t.weight == 0) flags |= MFPRIO_TERMF_ZERO_WEIGHT;
    explain->term(t.name.c_str(), label_of(t.name).c_str(), t.factor, t.weight, t.contribution, t.parent, flags);
  }
  explain->resolved(a.bank, fj.queue == kNone ? std::string() : std::string(queue),
                    fj.qos == kNone ? std::string() : std::string(qos));
  explain->total(r.total_unclamped, r.priority, *clamp);
  return MFPRIO_OK;
}

namespace {

// The record checks of job_acceptable() (policy.hpp) for the fast path, in
// one pass with one branch for the common case.  True only when
// job_acceptable(j) is true and the record has no attribute (user_factor is
// read on the named path): the four times are tested through their OR and
// the TRES count below 4096, both stricter; a record refused here goes to
// the slow path, whose check_job and by-name pricing give the same status,
// message and priority.  The TRES counts are read as job_acceptable reads
// them (the first without a branch on the count).
__attribute__((always_inline)) inline bool quick_record(const mfprio_job_t& j) {
  return fast_record_head_ok(j, /*allow_attrs=*/false) && fast_tres_counts_ok(j);
}

}  // namespace

void FluxPolicy::price_batch(const State& state, const PassState* pass, const mfprio_job_t* jobs, size_t count,
                             int64_t now, uint32_t* priorities, int* statuses, ClampCounts* clamps,
                             BatchError* err) const {
  const FluxState& s = static_cast<const FluxState&>(state);
  const Model& m = *s.model;
  // The first record refused on the fast path for its queue: its message is
  // written only if it is the batch's first failure (before the next slow
  // record, which may fail, and at the end).
  size_t refused_at = count;
  auto note_refused = [&] {
    if (refused_at < count && err->status == MFPRIO_OK) {
      const mfprio_job_t& r = jobs[refused_at];
      err->note(MFPRIO_EPERM, not_permitted(r, m.assocs[r.handle.assoc], nz(r.partition)));
    }
  };
  // Any record the fast path does not take: checked and priced by name, as
  // set_priority would.
  auto slow = [&](size_t i) __attribute__((noinline)) {
    note_refused();
    const int rc = price_checked(state, pass, jobs[i], now, &priorities[i], clamps, err);
    if (statuses) statuses[i] = rc;
  };
  if (!(s.fast_ok && s.layout_id != 0)) {
    for (size_t i = 0; i < count; ++i) slow(i);
    return;
  }
  // The per-batch constants in locals (the result stores cannot alias them).
  const FluxState::FastAssoc* const fast = s.fast.data();
  const uint64_t* const entry = s.slot_entry.data();
  const double* const queue_c = s.queue_c.data();
  const auto* const names = s.assoc_names.data();
  const uint32_t lid = s.layout_id;
  const uint32_t n_assoc = static_cast<uint32_t>(s.fast.size());
  // Queue and QOS codes + 2 (16 bits): unknown 0, none 1, index i at i + 2;
  // one comparison each.
  const uint32_t slots = s.slots;
  const uint32_t qos_lim = static_cast<uint32_t>(std::min<size_t>(m.qos.size(), kHandleUnknown)) + 2;
  const Weights& w = m.settings.weights;
  uint64_t clamped_low = 0, clamped_high = 0;
  // The loop, with and without statuses to store.
  auto loop = [&](auto with_statuses) {
    constexpr bool kStatuses = decltype(with_statuses)::value;
    // The (association, queue) entries are read in the records' order, which
    // is random: fetched kAhead records early, with the user name check_job reads.
    constexpr size_t kAhead = 16;
    for (size_t i = 0; i < count; ++i) {
      {
        // The last records fetch the last one again (no branch); the address
        // is formed as an integer: a forged handle's is never dereferenced,
        // and a prefetch never faults.
        const mfprio_job_t& a = jobs[i + kAhead < count ? i + kAhead : count - 1];
        const uintptr_t slot = uintptr_t{a.handle.assoc} * slots + ((a.handle.partition + 2u) & 0xffffu);
        const uintptr_t at = reinterpret_cast<uintptr_t>(entry) + slot * sizeof *entry;
        __builtin_prefetch(reinterpret_cast<const void*>(at));
        // The handle check's names of that association (32 bytes, maybe on
        // two lines), formed the same way.
        const uintptr_t nm = reinterpret_cast<uintptr_t>(names) + uintptr_t{a.handle.assoc} * sizeof *names;
        __builtin_prefetch(reinterpret_cast<const void*>(nm));
        __builtin_prefetch(reinterpret_cast<const void*>(nm + sizeof *names - 1));
        __builtin_prefetch(a.user);
        __builtin_prefetch(a.account);
      }
      const mfprio_job_t& j = jobs[i];
      const mfprio_handle_t h = j.handle;
      const uint32_t q = (h.partition + 2u) & 0xffffu, qos = (h.qos + 2u) & 0xffffu;
      const bool handle_ok = (h.generation == lid) & (h.assoc < n_assoc) & (q < slots) & (qos < qos_lim);
      // (codes + 2: 0 unknown, 1 none, i + 2 index i; minus 2 gives kUnknown, kNone or i.)
      if (__builtin_expect(!(handle_ok && quick_record(j) &&
                             handle_names_ok(s, j, h.assoc, static_cast<int32_t>(q) - 2,
                                             static_cast<int32_t>(qos) - 2)),
                           0)) {
        slow(i);
        continue;
      }
      const uint64_t e = entry[size_t{h.assoc} * slots + q];
      // flux-accounting's INVALID_QUEUE: refused with priority 0 (no branch).
      const bool permitted = !((e >> FluxState::kRefusedBit) & 1u);
      const size_t refused_here = permitted ? count : i;
      refused_at = refused_here < refused_at ? refused_here : refused_at;
      const uint32_t f = j.flags;
      int urgency = (f & MFPRIO_JOBF_URGENCY) ? static_cast<int>(j.urgency) : kUrgencyDefault;
      static_assert(kUrgencyHold == 0, "held: urgency masked to 0");
      urgency &= -static_cast<int>(j.state != MFPRIO_JOB_HELD);
      // The entry: the priority at the default urgency (hold and expedite
      // replace it below).
      uint32_t p = static_cast<uint32_t>(e);
      bool low = (e >> FluxState::kLowBit) & 1u, high = (e >> FluxState::kHighBit) & 1u;
      // (urgency is 0..31: quick_record checked it.)
      constexpr uint32_t kUnweighted = 1u << kUrgencyHold | 1u << kUrgencyDefault | 1u << kUrgencyExpedite;
      if (__builtin_expect(!((kUnweighted >> urgency) & 1u), 0)) {
        // A weighted urgency: price_accounting's terms and sum (flux_priority.hpp).
        const FluxState::FastAssoc& fa = fast[h.assoc];
        p = accounting_total(fa.fs_c, queue_c[q], fa.b_c, urgency_term(w, urgency), &low, &high);
      }
      // flux-core: hold (0) and expedite (31) win over the sum.
      const bool hold = urgency == kUrgencyHold, expedite = urgency == kUrgencyExpedite;
      const bool plain = permitted & !hold & !expedite;
      clamped_low += plain & low;
      clamped_high += plain & high;
      p |= -static_cast<uint32_t>(expedite);
      p &= -static_cast<uint32_t>(permitted & !hold);
      priorities[i] = p;
      if (kStatuses) statuses[i] = MFPRIO_EPERM & -static_cast<int>(!permitted);
    }
  };
  if (statuses) loop(std::true_type{});
  else loop(std::false_type{});
  note_refused();
  clamps->low += clamped_low;
  clamps->high += clamped_high;
}

// The time a pass's windows are counted back from: the pass, or for job
// ends the newest of the last reading and the host's clock.
int64_t FluxPolicy::reference_time(const FluxState& cur, const UsagePass& pass) const {
  return pass.ended ? std::max(cur.as_of, host_->now()) : pass.now;
}

bool FluxPolicy::plan_pass(const State& state, const UsagePass& pass, UsagePlan* plan) const {
  const FluxState& cur = static_cast<const FluxState&>(state);
  const UsageSettings& us = settings_.usage;
  const int64_t H = us.half_life;
  acct::WindowCycle& c = plan->windows.emplace();
  c.family = kFamily;
  c.window_seconds = H;
  c.decay_factor = 1.0;  // bins keep raw usage; the age weight is applied when read
  // Windows older than the bins kept can never count again (the reset period).
  c.drop_before = (floor_div(reference_time(cur, pass), H) - us.bins() + 1) * H;
  c.keep_windows = us.bins();
  if (!pass.ended) {  // the pass times, never moved backwards (acct::PassClock)
    c.pass = acct::PassClock{};
    c.pass->now = pass.now;
  }
  return true;
}

int FluxPolicy::charge_job(const State& state, const mfprio_job_t& j, int64_t until, bool ended, UsagePlan* plan,
                           std::string* why) const {
  const FluxState& cur = static_cast<const FluxState&>(state);
  int32_t a = kNone;
  // ENOENT: its association is gone (an admin deleted it): the runtime's
  // vanished-association rule; the job is charged from its start if it comes back.
  if (int rc = association(cur, j, &a, why)) return rc;
  const Association& as = cur.model->assocs[static_cast<size_t>(a)];
  acct::WindowCharge ch;
  ch.job_id = j.job_id;
  ch.start_time = j.start_time;
  ch.until = until;
  // flux-accounting's job usage value for one second of the job.
  ch.rate = job_usage_value(std::max<uint32_t>(1, j.min_nodes), j.cpus, gpus_of(j), 0.0, 1.0, settings_.usage);
  ch.ended = ended;
  ch.credentials.emplace_back(kKind, usage_name(as.user, as.bank));
  // Looked up again inside the pass: deleted since this state was read,
  // it is not charged either.
  ch.owner_user = as.user;
  ch.owner_account = as.bank;
  plan->windows->charges.push_back(std::move(ch));
  return MFPRIO_OK;
}

std::shared_ptr<State> FluxPolicy::after_pass(const State& state, const UsagePass& pass, const UsagePlan&,
                                              const acct::PassResult& result, const StoreView* store,
                                              bool* reload) {
  const FluxState& cur = static_cast<const FluxState&>(state);
  // The store's pass time (a pass dated before its last one moved nothing).
  const int64_t last = pass.ended ? cur.last_decay : result.windows.pass.state.last_decay;
  auto next = reread(store, reference_time(cur, pass), last);
  // Handles stay good while the associations, queues and QOS do.  An
  // admin's edit read here: the runtime reloads (a fresh layout id).
  if (!same_layout(*cur.model, *next->model)) {
    *reload = true;
    return nullptr;
  }
  next->layout_id = cur.layout_id;
  return next;
}

void FluxPolicy::share_view(const State& state, ShareView* v) const {
  // `flux account view-bank root --tree`: banks and their users in tree
  // order with shares, usage (decayed, banks summed) and users' fair share.
  const FluxState& s = static_cast<const FluxState&>(state);
  const Model& m = *s.model;
  v->column("name", "Bank/User", -1, 20, MFPRIO_COLF_TEXT | MFPRIO_COLF_INDENT | MFPRIO_COLF_LEFT);
  v->column("shares", "RawShares", -1, 10, 0);
  v->column("usage", "RawUsage", 2, 12, 0);
  v->column("fairshare", "Fairshare", 6, 10, 0);
  v->column("bank_priority", "Priority", -1, 9, 0);
  // Children per node, users first then sub-banks, each by name.
  std::vector<std::vector<size_t>> kids(s.nodes.size());
  std::vector<size_t> roots;
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    const int32_t p = s.nodes[i].parent;
    (p < 0 ? roots : kids[static_cast<size_t>(p)]).push_back(i);
  }
  for (auto& k : kids)
    mfprio::stable_order(k.begin(), k.end(), [&](size_t a, size_t b) {
      if (s.nodes[a].is_user != s.nodes[b].is_user) return s.nodes[a].is_user;
      return s.nodes[a].name < s.nodes[b].name;
    });
  // Preorder without recursion (tree_walk.hpp): a bank chain may be 10^5 deep.
  struct At {
    size_t n;
    int32_t parent;
    uint32_t depth;
    int32_t me;  // its row, set on entering
  };
  auto children = [&](const At& a) {
    std::vector<At> out;
    for (size_t k : kids[a.n]) out.push_back(At{k, a.me, a.depth + 1, -1});
    return out;
  };
  auto emit = [&](At& a) {
    const size_t n = a.n;
    const TreeNode& node = s.nodes[n];
    ShareView::Row r;
    r.parent = a.parent;
    r.depth = a.depth;
    r.is_user = node.is_user;
    r.cells.push_back(ShareView::text(node.name));
    r.cells.push_back(ShareView::num(static_cast<double>(node.shares)));
    r.cells.push_back(ShareView::num(s.node_usage[n]));
    if (node.is_user) {
      const Association& a = m.assocs[static_cast<size_t>(s.node_assoc[n])];
      r.account = a.bank;
      r.user = a.user;
      r.cells.push_back(ShareView::num(a.fairshare));
      r.cells.push_back(ShareView::text(""));
    } else {
      r.account = node.name;
      r.cells.push_back(ShareView::text(""));
      r.cells.push_back(ShareView::num(s.node_priority[n]));
    }
    v->rows.push_back(std::move(r));
    a.me = static_cast<int32_t>(v->rows.size() - 1);
  };
  for (size_t r : roots) walk_preorder(At{r, -1, 0, -1}, children, emit);
}

void FluxPolicy::info(const State&, InfoView* v) const {
  const Settings& st = settings_;
  const Weights& w = st.weights;
  if (st.mode == Mode::kDesign) {
    v->weight("wait_time", static_cast<double>(w.wait_time));
    v->weight("fairshare", static_cast<double>(w.fairshare));
    v->weight("qos", static_cast<double>(w.qos));
    v->weight("queue", static_cast<double>(w.queue));
    v->weight("job_size", static_cast<double>(w.job_size));
    v->weight("user", static_cast<double>(w.user));
  } else {
    v->weight("fairshare", static_cast<double>(w.fairshare));
    v->weight("queue", static_cast<double>(w.queue));
    v->weight("bank", static_cast<double>(w.bank));
    v->weight("urgency", static_cast<double>(w.urgency));
  }
  v->set("mode", std::string(mode_name(st.mode)));
  if (st.mode == Mode::kDesign) {
    v->set_int("max_wait", st.max_wait);
    v->set("job_size_favor", std::string(size_favor_name(st.job_size_favor)));
  }
  v->set_int("decay_half_life", st.usage.half_life);
  v->set_int("reset_period", st.usage.reset_period);
  v->set_int("usage_bins", st.usage.bins());
  v->set("decay_factor", st.usage.decay_factor);
  v->set("node_weight", st.usage.node_weight);
  v->set("core_weight", st.usage.core_weight);
  v->set("gpu_weight", st.usage.gpu_weight);
  v->set_int("max_priority", static_cast<int64_t>(kPriorityMax));
  v->set("priority_parameters", params_origin_.empty() ? std::string("(defaults)") : params_origin_);
  v->set("accounting_storage_loc", store_path_);
}

}  // namespace mfprio::flux
