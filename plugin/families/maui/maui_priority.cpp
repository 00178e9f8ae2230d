// maui_priority.cpp - Maui/Moab start priority (formulas and invariants in
// maui_priority.hpp; every rule cites the Maui 3.2 source file it follows:
// src/MPriority.c, src/MFS.c, src/MJob.c, src/MPolicy.c, or Moab's documentation).
//
// One body serves the fast path (terms == nullptr: no allocation, only a few
// hash lookups for the job's credentials) and the explained path (terms
// filled), so the two can never disagree.
#include "maui_priority.hpp"

#include <algorithm>
#include <cmath>

namespace mfprio::maui {

namespace {

class Pricer {
 public:
  Pricer(const Config& cfg, std::vector<Term>* terms)
      : cfg_(cfg), moab_(cfg.flavor == Flavor::Moab), terms_(terms) {}

  void begin(Component c, int64_t weight) {
    comp_ = c;
    comp_weight_ = static_cast<double>(weight);
    sum_ = 0.0;
    if (terms_) {
      const ComponentInfo& ci = component_info(c);
      comp_term_ = static_cast<int>(terms_->size());
      Term t;
      t.name = ci.term_name;
      t.label = ci.label;
      t.weight = comp_weight_;
      terms_->push_back(std::move(t));
    }
  }

  // One sub-component with its effective sub-weight and raw factor.
  void sub(Sub s, int64_t weight, double raw) {
    // Fast path: a zero weight adds 0 x (a finite factor) to the sum, so the
    // sub-component is skipped (the explained path still lists it).  A
    // non-finite factor is kept: 0 x inf is NaN, and NaN must clamp low.
    if (!terms_ && weight == 0 && std::isfinite(raw)) return;
    if (!sub_counted(moab_, s)) return;
    const SubInfo& si = sub_info(s);
    bool bound = false;
    const double sf = apply_cap(raw, cfg_.cap(s), sub_two_sided(moab_, comp_), &bound);
    const double w = static_cast<double>(weight);
    sum_ += w * sf;
    if (terms_) {
      Term t;
      t.name = si.term_name;
      t.label = si.label;
      t.factor = sf;
      t.weight = w * comp_weight_;
      t.contribution = t.weight * sf;
      t.bound = bound;
      t.parent = comp_term_;
      terms_->push_back(std::move(t));
    }
  }
  void sub(Sub s, double raw) { sub(s, cfg_.weight(s), raw); }

  void end() {
    bool bound = false;
    const double c = apply_cap(sum_, cfg_.cap(comp_), moab_, &bound);  // MPriority.c, Moab's documentation only, low confidence
    const double contribution = comp_weight_ * c;
    total_ += contribution;
    if (terms_) {
      Term& t = (*terms_)[comp_term_];
      t.factor = c;
      t.contribution = contribution;
      t.bound = bound;
    }
  }

  double total() const { return total_; }

 private:
  const Config& cfg_;
  bool moab_;
  std::vector<Term>* terms_;
  Component comp_ = Component::Serv;
  double comp_weight_ = 0.0;
  double sum_ = 0.0;
  double total_ = 0.0;
  int comp_term_ = -1;
};

}  // namespace

int64_t cred_priority(const Config& cfg, CredKind k, const std::string& name, bool fallback) {
  if (!name.empty()) {
    const CredCfg* c = cfg.find(k, name);
    if (c && c->priority != 0) return c->priority;
  }
  return fallback ? cfg.default_cred[static_cast<int>(k)].priority : 0;
}

Result price(const Model& m, const Job& job, int64_t now, std::vector<Term>* terms) {
  const Config& cfg = m.cfg;
  const bool moab = cfg.flavor == Flavor::Moab;
  if (terms) terms->clear();
  Pricer p(cfg, terms);

  const bool has_qos = !job.qos.empty();
  const CredCfg* qos = has_qos ? cfg.find(CredKind::Qos, job.qos) : nullptr;
  const CredCfg* group = job.group.empty() ? nullptr : cfg.find(CredKind::Group, job.group);
  const CredCfg* account = job.account.empty() ? nullptr : cfg.find(CredKind::Account, job.account);

  const int64_t queued = queued_seconds(moab, cfg.use_system_queue_time, job.eff_queue_duration,
                                        job.system_queue_time, job.submit_time, now);
  const double wc = static_cast<double>(std::max<int64_t>(0, job.wclimit));

  // ---- SERV (MPriority.c) ----
  const QueueTerms qterms = queue_terms(moab, xf_min_of(cfg, moab, has_qos), queued, wc);
  const double queuetime = qterms.queuetime, xfactor = qterms.xfactor;

  int64_t w_qt = cfg.weight(Sub::QueueTime);
  int64_t w_xf = cfg.weight(Sub::XFactor);
  if (qos) {  // MPriority.c
    w_qt = weight_sum(w_qt, qos->qt_weight);
    w_xf = weight_sum(w_xf, qos->xf_weight);
  }
  p.begin(Component::Serv, cfg.weight(Component::Serv));
  p.sub(Sub::QueueTime, w_qt, queuetime);
  p.sub(Sub::XFactor, w_xf, xfactor);
  p.sub(Sub::SpViolation, job.sp_violation ? 1.0 : 0.0);
  p.sub(Sub::Bypass, static_cast<double>(job.bypass));
  p.sub(Sub::StartCount, static_cast<double>(job.start_count));
  p.sub(Sub::Deadline, job.deadline > 0
                           ? 1.0 / (1.0 + static_cast<double>(std::max<int64_t>(0, job.deadline - now)))
                           : 0.0);
  p.sub(Sub::UserPrio, static_cast<double>(job.user_prio));
  p.end();

  // ---- TARG (MPriority.c; the queue-time target follows Moab, Moab's documentation only, low confidence) ----
  double tqt = 0.0, txf = 0.0;
  if (qos) {
    if (qos->qt_target > 0)
      tqt = std::pow(1000.0, std::min(1.0, static_cast<double>(queued) /
                                               static_cast<double>(qos->qt_target)));
    if (qos->xf_target > 0.0) txf = std::pow(std::max(0.0001, qos->xf_target - xfactor), -2.0);
  }
  p.begin(Component::Targ, cfg.weight(Component::Targ));
  p.sub(Sub::TargetQueueTime, tqt);
  p.sub(Sub::TargetXFactor, txf);
  p.end();

  // ---- CRED (MPriority.c) ----
  int64_t w_class = cfg.weight(Sub::CredClass);
  if (group && group->class_weight > 0) w_class = group->class_weight;  // MPriority.c
  p.begin(Component::Cred, cfg.weight(Component::Cred));
  p.sub(Sub::CredUser, static_cast<double>(cred_priority(cfg, CredKind::User, job.user, true)));
  p.sub(Sub::CredGroup, static_cast<double>(cred_priority(cfg, CredKind::Group, job.group, true)));
  p.sub(Sub::CredAccount,
        static_cast<double>(cred_priority(cfg, CredKind::Account, job.account, true)));
  // Maui's QOS priority has no DEFAULT fallback; Moab's has (MPriority.c, Moab's documentation only, low confidence).
  p.sub(Sub::CredQos, static_cast<double>(cred_priority(cfg, CredKind::Qos, job.qos, moab)));
  p.sub(Sub::CredClass, w_class,
        static_cast<double>(cred_priority(cfg, CredKind::Class, job.cls, true)));
  p.end();

  // ---- ATTR (Maui: never filled, MPriority.c; Moab: JOBPRIOF values from the caller) ----
  p.begin(Component::Attr, cfg.weight(Component::Attr));
  p.sub(Sub::AttrAttr, moab ? job.attr_prio : 0.0);
  p.sub(Sub::AttrState, moab ? job.state_prio : 0.0);
  p.sub(Sub::AttrGres, job.gres_prio);
  p.end();

  // ---- FS (MFS.c) ----
  int64_t w_fs = cfg.weight(Component::Fs);
  if (moab) {  // Moab's documentation only, low confidence: FSCWeight of the job's group, account and QOS
    if (group) w_fs += group->fs_weight;
    if (account) w_fs += account->fs_weight;
    if (qos) w_fs += qos->fs_weight;
  }
  p.begin(Component::Fs, w_fs);
  p.sub(Sub::FsUser, m.fs.delta(CredKind::User, job.user));
  p.sub(Sub::FsGroup, m.fs.delta(CredKind::Group, job.group));
  p.sub(Sub::FsAccount, m.fs.delta(CredKind::Account, job.account));
  p.sub(Sub::FsQos, m.fs.delta(CredKind::Qos, job.qos));
  p.sub(Sub::FsClass, m.fs.delta(CredKind::Class, job.cls));
  if (moab) {
    // No ID manager here: the imported global usages are 0.
    p.sub(Sub::FsGUser, 0.0);
    p.sub(Sub::FsGGroup, 0.0);
    p.sub(Sub::FsGAccount, 0.0);
    UserActivity ua;
    if (!m.user_activity.empty()) {
      auto it = m.user_activity.find(job.user);
      if (it != m.user_activity.end()) ua = it->second;
    }
    p.sub(Sub::FsJpu, ua.active_jobs);
    p.sub(Sub::FsPpu, ua.active_procs);
    p.sub(Sub::FsPspu, ua.active_proc_seconds);
    p.sub(Sub::WcAccuracy, ua.wc_accuracy);
  }
  p.end();

  // ---- RES (MJob.c:MJobGetPE) ----
  const double pe = job.pe >= 0.0
                        ? job.pe
                        : processor_equivalents_flat(job.procs, job.mem_mb, job.swap_mb,
                                                     job.disk_mb, m.totals);
  p.begin(Component::Res, cfg.weight(Component::Res));
  p.sub(Sub::Node, job.nodes);
  p.sub(Sub::Proc, job.procs);
  p.sub(Sub::Mem, job.mem_mb);
  p.sub(Sub::Swap, job.swap_mb);
  p.sub(Sub::Disk, job.disk_mb);
  p.sub(Sub::Ps, job.procs * wc);
  p.sub(Sub::Pe, pe);
  p.sub(Sub::Walltime, wc);
  p.end();

  // ---- USAGE (MPriority.c:MJobGetRunPriority: 0 in Maui's start priority; Moab: running jobs) ----
  double consumed = 0.0, exectime = 0.0, remaining = 0.0, percent = 0.0;
  if (moab && job.running) {
    const int64_t el = std::max<int64_t>(0, job.elapsed);
    const int64_t left = std::max<int64_t>(0, static_cast<int64_t>(wc) - el);
    consumed = job.procs * static_cast<double>(el);
    exectime = static_cast<double>(el);
    remaining = job.procs * static_cast<double>(left);
    // Integer division, elapsed per *remaining* time (Maui 3.2 src/MPriority.c, MJobGetRunPriority).
    percent = static_cast<double>((el * 100) / std::max<int64_t>(1, left));
  }
  p.begin(Component::Usage, cfg.weight(Component::Usage));
  p.sub(Sub::Consumed, consumed);
  p.sub(Sub::ExecutionTime, exectime);
  p.sub(Sub::Remaining, remaining);
  p.sub(Sub::Percent, percent);
  p.end();

  // ---- final clamp and truncation (MPriority.c) ----
  return clamp_total(p.total(), cfg.negative_priority);
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
