// maui_priority.cpp - Maui/Moab start priority (formulas and invariants in
// maui_priority.hpp; every rule cites the Maui 3.2 source file it follows:
// src/MPriority.c, src/MFS.c, src/MJob.c, src/MPolicy.c, or Moab's documentation).
//
// One body (price_kernel, maui_kernel.hpp) serves price() by name with and
// without terms and the resolved fast path (maui_fast.cpp), so none of them
// can disagree.
#include "maui_priority.hpp"

#include "maui_kernel.hpp"

#include <algorithm>
#include <cmath>

namespace mfprio::maui {

int64_t cred_priority(const Config& cfg, CredKind k, const std::string& name, bool fallback) {
  if (!name.empty()) {
    const CredCfg* c = cfg.find(k, name);
    if (c && c->priority != 0) return c->priority;
  }
  return fallback ? cfg.default_cred[static_cast<int>(k)].priority : 0;
}

void fill_kernel_consts(const Config& cfg, KernelConsts* k) {
  const bool moab = cfg.flavor == Flavor::Moab;
  static_assert(kSubs <= 64 && kComponents <= 32, "the bit sets");
  *k = KernelConsts{};
  for (int s = 0; s < kSubs; ++s) {
    const bool counted = sub_counted(moab, static_cast<Sub>(s));
    const int64_t w = counted ? cfg.sub_weight[s] : 0;
    k->w[s] = static_cast<double>(w);
    k->cap[s] = cfg.sub_cap[s] > 0 ? static_cast<double>(cfg.sub_cap[s]) : HUGE_VAL;
    if (w != 0) k->w_bits |= uint64_t{1} << s;
    if (counted) k->counted_bits |= uint64_t{1} << s;
    if (k->cap[s] != HUGE_VAL) k->cap_bits |= uint64_t{1} << s;
  }
  for (int c = 0; c < kComponents; ++c) {
    k->comp_cap[c] = cfg.comp_cap[c] > 0 ? static_cast<double>(cfg.comp_cap[c]) : HUGE_VAL;
    if (k->comp_cap[c] != HUGE_VAL) k->comp_cap_bits |= uint32_t{1} << c;
    k->comp_w[c] = static_cast<double>(cfg.comp_weight[c]);
  }
  auto has_w = [&](Sub s) { return k->w[static_cast<int>(s)] != 0.0; };
  k->targ = has_w(Sub::TargetQueueTime) || has_w(Sub::TargetXFactor);
  k->usage = moab && (has_w(Sub::Consumed) || has_w(Sub::ExecutionTime) || has_w(Sub::Remaining) ||
                      has_w(Sub::Percent));
}

namespace {

// The job's inputs to the kernel, looked up by name.
KernelIn kernel_in(const Model& m, const Job& job, int64_t now) {
  const Config& cfg = m.cfg;
  const bool moab = cfg.flavor == Flavor::Moab;
  const bool has_qos = !job.qos.empty();
  const CredCfg* qos = has_qos ? cfg.find(CredKind::Qos, job.qos) : nullptr;
  const CredCfg* group = job.group.empty() ? nullptr : cfg.find(CredKind::Group, job.group);
  const CredCfg* account = job.account.empty() ? nullptr : cfg.find(CredKind::Account, job.account);

  KernelIn in;
  in.now = now;
  in.queued = queued_seconds(moab, cfg.use_system_queue_time, job.eff_queue_duration, job.system_queue_time,
                             job.submit_time, now);
  in.wc = static_cast<double>(std::max<int64_t>(0, job.wclimit));
  in.xf_min = xf_min_of(cfg, moab, has_qos);
  int64_t w_qt = cfg.weight(Sub::QueueTime);
  int64_t w_xf = cfg.weight(Sub::XFactor);
  if (qos) {  // MPriority.c
    w_qt = weight_sum(w_qt, qos->qt_weight);
    w_xf = weight_sum(w_xf, qos->xf_weight);
  }
  in.w_qt = static_cast<double>(w_qt);
  in.w_xf = static_cast<double>(w_xf);
  int64_t w_class = cfg.weight(Sub::CredClass);
  if (group && group->class_weight > 0) w_class = group->class_weight;  // MPriority.c
  in.w_class = static_cast<double>(w_class);
  int64_t w_fs = cfg.weight(Component::Fs);
  if (moab) {  // Moab's documentation only, low confidence: FSCWeight of the job's group, account and QOS
    if (group) w_fs += group->fs_weight;
    if (account) w_fs += account->fs_weight;
    if (qos) w_fs += qos->fs_weight;
  }
  in.w_fs = static_cast<double>(w_fs);
  in.qos = qos;
  in.sp_violation = job.sp_violation;
  in.bypass = static_cast<double>(job.bypass);
  in.start_count = static_cast<double>(job.start_count);
  in.user_prio = static_cast<double>(job.user_prio);
  in.deadline = job.deadline;
  const std::string* names[kCredKinds] = {&job.user, &job.group, &job.account, &job.qos, &job.cls};
  for (int c = 0; c < kCredKinds; ++c) {
    const CredKind kind = static_cast<CredKind>(c);
    // Maui's QOS priority has no DEFAULT fallback; Moab's has (MPriority.c, Moab's documentation only, low confidence).
    in.cred[c] = static_cast<double>(cred_priority(cfg, kind, *names[c], kind != CredKind::Qos || moab));
    in.fs[c] = m.fs.delta(kind, *names[c]);
  }
  in.attr = moab ? job.attr_prio : 0.0;
  in.state = moab ? job.state_prio : 0.0;
  in.gres = job.gres_prio;
  if (moab && !m.user_activity.empty()) {
    auto it = m.user_activity.find(job.user);
    if (it != m.user_activity.end()) in.ua = &it->second;
  }
  in.nodes = job.nodes;
  in.procs = job.procs;
  in.mem_mb = job.mem_mb;
  in.swap_mb = job.swap_mb;
  in.disk_mb = job.disk_mb;
  in.pe = job.pe;
  in.totals = &m.totals;
  in.running = job.running;
  in.elapsed = std::max<int64_t>(0, job.elapsed);
  return in;
}

template <bool kExplain>
double total_of(const Model& m, const KernelConsts& k, const KernelIn& in, Recorder<kExplain>& rec) {
  return m.cfg.flavor == Flavor::Moab ? price_kernel<kExplain, true, true, false>(k, in, rec)
                                      : price_kernel<kExplain, false, true, false>(k, in, rec);
}

}  // namespace

Result price(const Model& m, const Job& job, int64_t now, std::vector<Term>* terms) {
  KernelConsts k;
  fill_kernel_consts(m.cfg, &k);
  return price(m, k, job, now, terms);
}

Result price(const Model& m, const KernelConsts& k, const Job& job, int64_t now, std::vector<Term>* terms) {
  const KernelIn in = kernel_in(m, job, now);
  double total;
  if (terms) {
    terms->clear();
    Recorder<true> rec{terms};
    total = total_of(m, k, in, rec);
  } else {
    Recorder<false> rec;
    total = total_of(m, k, in, rec);
  }
  // ---- final clamp and truncation (MPriority.c) ----
  return clamp_total(total, m.cfg.negative_priority);
}

void accrual_step(AccrualPolicy policy, Block why, int64_t now, Accrual* a) {
  bool reset = false;
  switch (why) {
    case Block::None:
      a->eff_queue_duration = std::max<int64_t>(0, now - a->system_queue_time);
      return;
    case Block::HardLimit:
      reset = policy == AccrualPolicy::QueuePolicy || policy == AccrualPolicy::FullPolicy;
      break;
    case Block::Other:
      reset = policy == AccrualPolicy::FullPolicy;
      break;
    case Block::StartDate:
      break;
  }
  if (reset) a->system_queue_time = now;
}

bool ranks_before(uint32_t prio_a, int64_t submit_a, uint64_t id_a,
                  uint32_t prio_b, int64_t submit_b, uint64_t id_b) {
  if (prio_a != prio_b) return prio_a > prio_b;
  if (submit_a != submit_b) return submit_a < submit_b;
  return id_a < id_b;
}

}  // namespace mfprio::maui
