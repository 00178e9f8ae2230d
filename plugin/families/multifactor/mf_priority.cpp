// mf_priority.cpp - see mf_priority.hpp.  Factor definitions: priority_multifactor.c:_get_priority_internal.
#include "mf_priority.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "tres.hpp"

namespace mfprio::multifactor {

namespace {
constexpr uint16_t kNone = MFPRIO_NO_QOS;
constexpr double kMaxPrio = 4294967295.0;

const char* nz(const char* s) { return s ? s : ""; }

std::string job_label(const mfprio_job_t& job) { return "job " + std::to_string(job.job_id); }

// The count of TRES i of the plan a job asks for: the kind was decided once
// per weight, so only extra TRES (gres/..., license/...) compare names.
inline double job_tres_count(const mfprio_job_t& job, const Plan& P, uint32_t i) {
  switch (P.tres_kind[i]) {
    case TresKind::Cpu: return job.cpus;
    case TresKind::Mem: return static_cast<double>(job.mem_mb);
    case TresKind::Node: return job.min_nodes;
    case TresKind::Other: break;
  }
  for (uint32_t k = 0; k < job.tres_count; ++k)
    if (job.tres[k].name && std::strcmp(P.tres_name[i], job.tres[k].name) == 0) return job.tres[k].count;
  return 0;
}

inline double clamp01(double x) { return x < 0 ? 0 : (x > 1 ? 1 : x); }

// priority_multifactor.c:_get_priority_internal job size, N nodes and C CPUs in the cluster.
inline double job_size_factor(const Plan& P, const mfprio_job_t& job) {
  if (P.cpus <= 0) return 0;
  const double n = job.min_nodes, cpus = job.cpus;
  switch (P.size_mode) {
    case SizeMode::FavorLarge:
      return clamp01((n * P.inv_nodes + cpus * P.inv_cpus) * 0.5);
    case SizeMode::FavorSmall: {
      const double node_term = (P.nodes > 0 && n < P.nodes) ? (P.nodes - n) * P.inv_nodes : 0;
      const double cpu_term = cpus < P.cpus ? (P.cpus - cpus) * P.inv_cpus : 0;
      return clamp01((node_term + cpu_term) * 0.5);
    }
    case SizeMode::PerTime:
    case SizeMode::PerTimeSmall: {
      // Size per minute of time limit, relative to the cluster; an unlimited
      // job counts as size 0 (the longest time).
      double ratio = 0;
      if (job.time_limit_min > 0) {
        const double node_cpus = n * P.cpus * P.inv_nodes;
        ratio = std::max(node_cpus, cpus) / job.time_limit_min * P.inv_cpus;
      }
      return clamp01(P.size_mode == SizeMode::PerTimeSmall ? 1 - ratio : ratio);
    }
  }
  return 0;
}

}  // namespace

int resolve_job(const Snapshot& snapshot, const mfprio_job_t& job, mfprio_handle_t* h,
                std::string* why) {
  const Layout& snap = *snapshot.layout;
  // The record was checked by the caller (check_job before job_resolve and
  // pricing, check_charge before charging: policy.hpp); a NULL user is
  // looked up as "" (no association).
  mfprio_handle_t r{};
  r.generation = snap.id;
  const std::string part = nz(job.partition);
  if (snap.implicit_partitions) {
    r.partition = 0;
  } else if (part.empty()) {
    if (snap.default_part >= 0) r.partition = static_cast<uint16_t>(snap.default_part);
    else if (snap.parts.size() == 1) r.partition = 0;
    else {
      *why = job_label(job) + ": no partition given and neither slurm.conf nor the accounting store names a "
                              "default partition";
      return MFPRIO_ENOENT;
    }
  } else {
    auto it = snap.part_index.find(part);
    if (it == snap.part_index.end()) {
      *why = job_label(job) + ": unknown partition '" + part +
             "' (neither a PartitionName line of slurm.conf nor the accounting store defines it)";
      return MFPRIO_ENOENT;
    }
    r.partition = static_cast<uint16_t>(it->second);
  }
  const std::string_view user = nz(job.user);
  const std::string_view account = nz(job.account);
  const uint32_t u = snap.find_user(user);
  uint32_t acc;
  if (account.empty()) {
    if (u == NameIndex::kNone || snap.user_default[u] == NameIndex::kNone) {
      *why = job_label(job) + ": user '" + std::string(user) + "' has no association in the accounting store";
      return MFPRIO_ENOENT;
    }
    acc = snap.user_default[u];
  } else {
    acc = snap.find_account(account);
  }
  // The user's association in that account for this partition, else the
  // one for any partition.
  const std::string& pname = snap.parts[r.partition].name;
  uint32_t found = NameIndex::kNone, any = NameIndex::kNone;
  if (u != NameIndex::kNone && acc != NameIndex::kNone)
    for (uint32_t k = snap.user_first[u]; k < snap.user_first[u + 1]; ++k) {
      const uint32_t a = snap.user_assocs[k];
      const AssocInfo& ua = snap.assocs[a];
      if (ua.account != acc) continue;
      if (ua.partition_name == 0) {
        if (any == NameIndex::kNone) any = a;
        if (pname.empty()) found = a;
      } else if (snap.names[ua.partition_name] == pname) {
        found = a;
      }
      if (found != NameIndex::kNone) break;
    }
  if (found == NameIndex::kNone) found = any;
  if (found == NameIndex::kNone) {
    const std::string acc_name = account.empty() ? std::string(snap.name(snap.account_name[acc])) : std::string(account);
    *why = job_label(job) + ": no association for user '" + std::string(user) + "' in account '" + acc_name + "'";
    return MFPRIO_ENOENT;
  }
  r.assoc = found;
  const std::string qos = nz(job.qos);
  if (qos.empty()) {
    r.qos = snap.normal_qos >= 0 ? static_cast<uint16_t>(snap.normal_qos) : kNone;
  } else {
    auto q = snap.qos_index.find(qos);
    if (q == snap.qos_index.end()) {
      *why = job_label(job) + ": unknown QOS '" + qos + "'";
      return MFPRIO_ENOENT;
    }
    r.qos = static_cast<uint16_t>(q->second);
  }
  *h = r;
  return MFPRIO_OK;
}

namespace {

// handle_fits' body, inlined into the batch loop.  Reads the association's
// AssocNames entry (24 bytes: user inline, account index, the partition it
// serves, default flag), the small per-account, partition and QOS inline
// tables, and the record's name strings; a name longer than its inline part
// is compared whole from the pool.
__attribute__((always_inline)) inline bool handle_names_record(const Snapshot& snap, const mfprio_job_t& job,
                                                               const mfprio_handle_t& h) {
  const Layout& L = *snap.layout;
  if (h.generation != L.id || h.generation == 0 || h.assoc >= L.assocs.size() || h.partition >= L.parts.size() ||
      (h.qos != kNone && h.qos >= L.qos.size()) || !job.user)
    return false;
  const AssocNames& an = L.assoc_names[h.assoc];
  // User and account: inline (a long name: the whole name from the pool).
  int u = inline_name_is(an.user, job.user);
  if (__builtin_expect(u < 0, 0)) u = name_is(L.user_of(L.assocs[h.assoc]), job.user);
  if (!u) return false;
  if (job.account && *job.account) {  // the record's account, or (none given) the user's default
    int c = inline_name_is(L.account_inames[an.account], job.account);
    if (__builtin_expect(c < 0, 0)) c = name_is(L.name(L.account_name[an.account]), job.account);
    if (!c) return false;
  } else if (!an.user_default) {
    return false;
  }
  // Partition: the record's, or (none given) the default one resolve_job picks.
  if (!L.implicit_partitions) {
    if (job.partition && *job.partition) {
      int p = inline_name_is(L.parts[h.partition].iname, job.partition);
      if (__builtin_expect(p < 0, 0)) p = name_is(L.parts[h.partition].name, job.partition);
      if (!p) return false;
    } else if (L.default_part >= 0 ? h.partition != static_cast<uint32_t>(L.default_part)
                                   : (L.parts.size() != 1 || h.partition != 0)) {
      return false;
    }
    // A partition association serves only its own partition.
    if (an.serves != AssocNames::kAnyPartition && an.serves != h.partition) return false;
  }
  // QOS: the record's, or (none given) "normal" when it exists.
  if (job.qos && *job.qos) {
    if (h.qos == kNone) return false;
    const int q = inline_name_is(L.qos[h.qos].iname, job.qos);
    return q < 0 ? name_is(L.qos[h.qos].name, job.qos) : q == 1;
  }
  return h.qos == (L.normal_qos >= 0 ? static_cast<uint16_t>(L.normal_qos) : kNone);
}

}  // namespace

bool handle_fits(const Snapshot& snap, const mfprio_job_t& job, const mfprio_handle_t& h) {
  return handle_names_record(snap, job, h);
}

namespace {

// One body for the fast path (kExplain = false: no breakdown, nothing but
// arithmetic on dense arrays) and for job_factors (kExplain = true), so the
// two can never disagree.  Constant parts are folded per snapshot:
// assoc_score = Wassoc*assoc + Wfs*fs, PartitionInfo::score = Wpart*part,
// QosInfo::score = Wqos*qos (see Engine::build_snapshot / build_layout).
template <bool kExplain>
uint32_t compute(const Snapshot& snap, const mfprio_job_t& job, const mfprio_handle_t& h,
                 int64_t now, Explain* out, uint32_t* clamp) {
  *clamp = MFPRIO_CLAMP_NONE;
  if (job.state == MFPRIO_JOB_HELD) {
    if constexpr (kExplain) out->total(0, 0, MFPRIO_CLAMP_NONE);
    return 0;
  }
  const Layout& L = *snap.layout;
  const Plan& P = L.plan;

  // Age: from eligibility (or submission with ACCRUE_ALWAYS); a job waiting
  // on a dependency does not age unless ACCRUE_ALWAYS.
  double age = 0;
  const int64_t since = P.accrue_always ? job.submit_time : job.eligible_time;
  if (since > 0 && now > since && (P.accrue_always || !(job.flags & MFPRIO_JOBF_DEPENDENT)))
    age = std::min(1.0, static_cast<double>(now - since) * P.inv_max_age);

  if (snap.pending_mark && job.state == MFPRIO_JOB_PENDING) {
    std::atomic<uint8_t>& m = snap.pending_mark[h.assoc];
    if (!m.load(std::memory_order_relaxed)) m.store(1, std::memory_order_relaxed);
  }
  const PartitionInfo& p = L.parts[h.partition];
  double total = snap.assoc_score[h.assoc] + p.score +
                 (h.qos == kNone ? 0.0 : L.qos[h.qos].score) + P.w_age * age;
  double jobsize = 0;
  if (P.w_jobsize) {
    jobsize = job_size_factor(P, job);
    total += P.w_jobsize * jobsize;
  }
  double w_tres = 0;
  [[maybe_unused]] double tres_f[kMaxTresWeights], tres_w[kMaxTresWeights];
  for (uint32_t i = 0; i < P.n_tres; ++i) {
    const double count = job_tres_count(job, P, i);
    double f = count;
    if (!P.raw_tres) {
      f = count * p.tres_inv_total[i];
      if (f > 1) f = 1;
    }
    const double w = P.tres_weight[i] * f;
    w_tres += w;
    if constexpr (kExplain) {
      tres_f[i] = f;
      tres_w[i] = w;
    }
  }
  total += w_tres + static_cast<double>(job.site_factor) - static_cast<double>(job.nice);

  uint32_t prio;
  if (!(total >= 1)) {  // also catches NaN
    prio = 1;
    *clamp = MFPRIO_CLAMP_LOW;
  } else if (total > kMaxPrio) {
    prio = 0xffffffffu;
    *clamp = MFPRIO_CLAMP_HIGH;
  } else {
    prio = static_cast<uint32_t>(total);
  }
  if (P.incr_only && job.prev_priority > prio) prio = job.prev_priority;

  if constexpr (kExplain) {
    // The terms in Slurm's sprio column order (views print them as named).
    const Settings& s = *L.settings;
    const AssocInfo& a = L.assocs[h.assoc];
    const double fs = snap.assoc_fs[h.assoc];
    const double qos = h.qos == kNone ? 0 : L.qos[h.qos].factor;
    auto zw = [](double w) { return w == 0 ? uint32_t{MFPRIO_TERMF_ZERO_WEIGHT} : 0u; };
    out->term("site", "SITE", job.site_factor, 1, job.site_factor, -1, MFPRIO_TERMF_RAW);
    out->term("age", "AGE", age, s.w_age, s.w_age * age, -1, zw(s.w_age));
    const double afactor = L.assoc_factor(a);
    out->term("assoc", "ASSOC", afactor, s.w_assoc, s.w_assoc * afactor, -1, zw(s.w_assoc));
    out->term("fairshare", "FAIRSHARE", fs, s.w_fairshare, s.w_fairshare * fs, -1, zw(s.w_fairshare));
    out->term("jobsize", "JOBSIZE", jobsize, s.w_jobsize, s.w_jobsize * jobsize, -1, zw(s.w_jobsize));
    out->term("partition", "PARTITION", p.factor, s.w_partition, s.w_partition * p.factor, -1,
              zw(s.w_partition));
    const std::string qos_name = h.qos == kNone ? std::string() : L.qos[h.qos].name;
    out->term("qosname", "QOSNAME", 0, 0, 0, -1, MFPRIO_TERMF_TEXT | MFPRIO_TERMF_LONG, 0, qos_name.c_str());
    out->term("qos", "QOS", qos, s.w_qos, s.w_qos * qos, -1, zw(s.w_qos));
    out->term("nice", "NICE", job.nice, -1, -static_cast<double>(job.nice), -1,
              MFPRIO_TERMF_RAW | MFPRIO_TERMF_LONG, 11);
    const int t = out->term("tres", "TRES", 0, 0, w_tres, -1,
                            MFPRIO_TERMF_LIST | (P.n_tres ? 0u : uint32_t{MFPRIO_TERMF_ZERO_WEIGHT}), 20);
    for (uint32_t i = 0; i < P.n_tres; ++i)
      out->term(P.tres_name[i], P.tres_name[i], tres_f[i], P.tres_weight[i], tres_w[i], t);
    out->resolved(std::string(L.node_account(a.node)),
                  L.implicit_partitions ? std::string(job.partition ? job.partition : "") : p.name, qos_name);
    out->total(total, prio, *clamp);
  }
  return prio;
}

}  // namespace

uint32_t job_priority(const Snapshot& snap, const mfprio_job_t& job, const mfprio_handle_t& h,
                      int64_t now, Explain* out, uint32_t* clamp) {
  return out ? compute<true>(snap, job, h, now, out, clamp)
             : compute<false>(snap, job, h, now, nullptr, clamp);
}

int job_priority_batch(const Snapshot& snap, const mfprio_job_t* jobs, size_t count, int64_t now,
                       uint32_t* priorities, int* statuses, SlowRecordFn slow, void* ctx,
                       uint64_t clamped[2]) {
  const Layout& L = *snap.layout;
  const uint32_t layout = L.id;
  const size_t n_assoc = L.assocs.size(), n_part = L.parts.size(), n_qos = L.qos.size();
  int first = MFPRIO_OK;
  clamped[0] = clamped[1] = 0;
  const double* score = snap.assoc_score.data();
  const AssocNames* names = L.assoc_names.data();
  constexpr size_t kAhead = 8;  // prefetch distance: hides the random association read
  constexpr size_t kNamesAhead = 16;
  for (size_t i = 0; i < count; ++i) {
    if (i + kAhead < count) {
      const uint32_t a = jobs[i + kAhead].handle.assoc;
      if (a < n_assoc) __builtin_prefetch(score + a);
    }
    if (i + kNamesAhead < count) {  // the handle check's reads, further ahead: two hops
      const mfprio_job_t& ahead = jobs[i + kNamesAhead];
      const uint32_t a = ahead.handle.assoc;
      if (a < n_assoc) {  // (an entry may straddle two lines)
        __builtin_prefetch(names + a);
        __builtin_prefetch(reinterpret_cast<const char*>(names + a) + sizeof *names - 1);
      }
      __builtin_prefetch(ahead.user);  // (a prefetch never faults)
      __builtin_prefetch(ahead.account);
    }
    const mfprio_job_t& j = jobs[i];
    const mfprio_handle_t& h = j.handle;
    int rc;
    // The fast path takes only records the checked path would accept as they
    // are (policy.hpp's pre-test of check_job: any doubt goes to slow(),
    // which runs the one check) with a current handle naming the record's
    // own names.
    if (h.generation == layout && h.assoc < n_assoc && h.partition < n_part && (h.qos == kNone || h.qos < n_qos) &&
        fast_record_head_ok(j, /*allow_attrs=*/true) && fast_tres_counts_ok(j) && handle_names_record(snap, j, h)) {
      uint32_t clamp;
      priorities[i] = compute<false>(snap, j, h, now, nullptr, &clamp);
      if (clamp == MFPRIO_CLAMP_HIGH) ++clamped[0];
      else if (clamp == MFPRIO_CLAMP_LOW) ++clamped[1];
      rc = MFPRIO_OK;
    } else {
      rc = slow(ctx, i);
      if (rc != MFPRIO_OK) {
        priorities[i] = 0;
        if (first == MFPRIO_OK) first = rc;
      }
    }
    if (statuses) statuses[i] = rc;
  }
  return first;
}

double job_charge_rate(const Snapshot& snap, const mfprio_job_t& job, const mfprio_handle_t& h) {
  const Layout& L = *snap.layout;
  const Settings& s = *L.settings;
  const PartitionInfo& p = L.parts[h.partition];
  std::vector<std::pair<std::string, double>> extra;
  for (uint32_t i = 0; i < job.tres_count; ++i)
    if (job.tres[i].name) extra.emplace_back(tres_lower(job.tres[i].name), job.tres[i].count);
  const double billable = billable_tres(p.billing, job.cpus, static_cast<double>(job.mem_mb),
                                        job.min_nodes, extra, s.has(kMaxTres));
  const double uf = h.qos == kNone ? 1.0 : L.qos[h.qos].usage_factor;
  return billable * uf;
}

}  // namespace mfprio::multifactor
