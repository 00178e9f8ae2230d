// priority.cpp - see priority.hpp.  Factor definitions: REFERENCE §1.3.
#include "priority.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "tres.hpp"

namespace mfprio {

namespace {
constexpr uint16_t kNone = MFPRIO_NO_QOS;
constexpr double kMaxPrio = 4294967295.0;

const char* nz(const char* s) { return s ? s : ""; }

std::string job_label(const mfprio_job_t& job) { return "job " + std::to_string(job.job_id); }

// The count of a TRES a job asks for: the kind was decided once per weight
// (TresWeight::kind), so only extra TRES compare names.
double job_tres_count(const mfprio_job_t& job, const TresWeight& w) {
  switch (w.kind) {
    case TresKind::Cpu: return job.cpus;
    case TresKind::Mem: return static_cast<double>(job.mem_mb);
    case TresKind::Node: return job.min_nodes;
    case TresKind::Other: break;
  }
  for (uint32_t i = 0; i < job.tres_count; ++i)
    if (job.tres[i].name && w.name == job.tres[i].name) return job.tres[i].count;
  return 0;
}

double clamp01(double x) { return x < 0 ? 0 : (x > 1 ? 1 : x); }

double job_size_factor(const Settings& s, const ClusterTotals& c, const mfprio_job_t& job) {
  const double N = c.nodes, C = c.cpus;
  if (C <= 0) return 0;
  const double n = job.min_nodes, cpus = job.cpus;
  if (s.has(kSmallRelativeToTime)) {
    // Size per minute of time limit, relative to the cluster; an unlimited
    // job counts as size 0 (largest time).
    double ratio = 0;
    if (job.time_limit_min > 0) {
      const double node_cpus = N > 0 ? n * C / N : 0;
      ratio = std::max(node_cpus, cpus) / job.time_limit_min / C;
    }
    return clamp01(s.favor_small ? 1 - ratio : ratio);
  }
  if (s.favor_small) {
    const double node_term = (N > 0 && n < N) ? (N - n) / N : 0;
    const double cpu_term = cpus < C ? (C - cpus) / C : 0;
    return clamp01((node_term + cpu_term) / 2);
  }
  const double node_term = N > 0 ? n / N : 0;
  return clamp01((node_term + cpus / C) / 2);
}

}  // namespace

double ClusterTotals::get(const std::string& name) const {
  if (name == "cpu") return cpus;
  if (name == "mem") return mem_mb;
  if (name == "node") return nodes;
  for (const auto& e : extra)
    if (e.first == name) return e.second;
  return 0;
}

int resolve_job(const Snapshot& snapshot, const mfprio_job_t& job, mfprio_handle_t* h,
                std::string* why) {
  const Layout& snap = *snapshot.layout;
  if (!job.user || !*job.user) {
    *why = job_label(job) + ": no user";
    return MFPRIO_EINVAL;
  }
  if (job.tres_count && !job.tres) {
    *why = job_label(job) + ": tres_count is set but tres is NULL";
    return MFPRIO_EINVAL;
  }
  if (job.nice < 0 && !(job.flags & MFPRIO_JOBF_NICE_ADMIN)) {
    *why = job_label(job) + ": nice " + std::to_string(job.nice) +
           " would raise the priority; only an admin may set a negative nice";
    return MFPRIO_EPERM;
  }
  mfprio_handle_t r{};
  r.generation = snap.id;
  const std::string part = nz(job.partition);
  if (snap.implicit_partitions) {
    r.partition = 0;
  } else if (part.empty()) {
    if (snap.default_part >= 0) r.partition = static_cast<uint16_t>(snap.default_part);
    else if (snap.parts.size() == 1) r.partition = 0;
    else {
      *why = job_label(job) + ": no partition given and the store has no default partition";
      return MFPRIO_ENOENT;
    }
  } else {
    auto it = snap.part_index.find(part);
    if (it == snap.part_index.end()) {
      *why = job_label(job) + ": unknown partition '" + part + "'";
      return MFPRIO_ENOENT;
    }
    r.partition = static_cast<uint16_t>(it->second);
  }
  const std::string user = job.user;
  std::string account = nz(job.account);
  if (account.empty()) {
    auto it = snap.default_account.find(user);
    if (it == snap.default_account.end()) {
      *why = job_label(job) + ": user '" + user + "' has no association in the accounting store";
      return MFPRIO_ENOENT;
    }
    account = it->second;
  }
  const std::string& pname = snap.parts[r.partition].name;
  auto it = snap.assoc_index.find(assoc_key(user, account, pname));
  if (it == snap.assoc_index.end()) it = snap.assoc_index.find(assoc_key(user, account, ""));
  if (it == snap.assoc_index.end()) {
    *why = job_label(job) + ": no association for user '" + user + "' in account '" + account + "'";
    return MFPRIO_ENOENT;
  }
  r.assoc = it->second;
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

// One body for the fast path (kExplain = false: no breakdown, nothing but
// arithmetic on dense arrays) and for job_factors (kExplain = true), so the
// two can never disagree.  Constant parts are folded per snapshot:
// assoc_score = Wassoc*assoc + Wfs*fs, PartitionInfo::score = Wpart*part,
// QosInfo::score = Wqos*qos (see Engine::build_snapshot / build_layout).
template <bool kExplain>
uint32_t compute(const Snapshot& snap, const mfprio_job_t& job, const mfprio_handle_t& h,
                 int64_t now, mfprio_factors_t* out, uint32_t* clamp) {
  *clamp = MFPRIO_CLAMP_NONE;
  if (job.state == MFPRIO_JOB_HELD) {
    if constexpr (kExplain) out->priority = 0;
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
    jobsize = job_size_factor(*L.settings, L.cluster, job);
    total += P.w_jobsize * jobsize;
  }
  double w_tres = 0;
  const std::vector<TresWeight>& tw = L.settings->w_tres;
  for (size_t i = 0; i < tw.size(); ++i) {
    const double count = job_tres_count(job, tw[i]);
    const double f = P.raw_tres ? count : std::min(1.0, count * p.tres_inv_total[i]);
    const double w = tw[i].weight * f;
    w_tres += w;
    if constexpr (kExplain) {
      if (i < MFPRIO_MAX_TRES_FACTORS) {
        mfprio_tres_factor_t& t = out->tres[i];
        std::snprintf(t.name, sizeof t.name, "%s", tw[i].name.c_str());
        t.factor = f;
        t.weighted = w;
      }
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
    const Settings& s = *L.settings;
    const AssocInfo& a = L.assocs[h.assoc];
    const double fs = snap.assoc_fs[h.assoc];
    const double qos = h.qos == kNone ? 0 : L.qos[h.qos].factor;
    out->priority = prio;
    out->age = age;
    out->assoc = a.factor;
    out->fairshare = fs;
    out->jobsize = jobsize;
    out->partition = p.factor;
    out->qos = qos;
    out->w_age = s.w_age * age;
    out->w_assoc = s.w_assoc * a.factor;
    out->w_fairshare = s.w_fairshare * fs;
    out->w_jobsize = s.w_jobsize * jobsize;
    out->w_partition = s.w_partition * p.factor;
    out->w_qos = s.w_qos * qos;
    out->w_tres = w_tres;
    out->site = job.site_factor;
    out->nice = job.nice;
    out->unclamped = total;
    out->clamped = *clamp;
    out->tres_count = static_cast<uint32_t>(std::min<size_t>(tw.size(), MFPRIO_MAX_TRES_FACTORS));
    std::snprintf(out->account_name, sizeof out->account_name, "%s", L.node_account[a.node].c_str());
    std::snprintf(out->partition_name, sizeof out->partition_name, "%s",
                  L.implicit_partitions ? (job.partition ? job.partition : "") : p.name.c_str());
    std::snprintf(out->qos_name, sizeof out->qos_name, "%s",
                  h.qos == kNone ? "" : L.qos[h.qos].name.c_str());
  }
  return prio;
}

}  // namespace

uint32_t job_priority(const Snapshot& snap, const mfprio_job_t& job, const mfprio_handle_t& h,
                      int64_t now, mfprio_factors_t* out, uint32_t* clamp) {
  return out ? compute<true>(snap, job, h, now, out, clamp)
             : compute<false>(snap, job, h, now, nullptr, clamp);
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

}  // namespace mfprio
