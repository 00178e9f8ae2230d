// maui_fast.cpp - the resolved fast path (maui_fast.hpp).  Every formula
// mirrors maui_priority.cpp's price() term by term and in the same order of
// additions, so the doubles (and the truncated priority) are identical;
// sub-components whose weight is 0 add +-0 there and are skipped here.
#include "maui_fast.hpp"

#include <algorithm>
#include <cmath>
#include <atomic>
#include <chrono>
#include <cstring>

#include <unistd.h>

#include "maui_pe.hpp"

namespace mfprio::maui {

namespace {

// = apply_cap with the cap as a double, +inf for "no cap" (cap <= 0): the
// same value for every v, NaN included.
inline double cap_d(double v, double c, bool two_sided) {
  if (v > c) return c;
  if (two_sided && v < -c) return -c;
  return v;
}

inline double cap_of(double v, int64_t cap, bool two_sided) {  // = apply_cap
  if (cap <= 0) return v;
  const double c = static_cast<double>(cap);
  if (v > c) return c;
  if (two_sided && v < -c) return -c;
  return v;
}

inline bool sub_two_sided(bool moab, Component c) {
  return moab && (c == Component::Serv || c == Component::Cred || c == Component::Attr || c == Component::Fs);
}

// Whether price() counts a sub-component in this flavor (Pricer::sub).
bool counted_in(const Config& cfg, Sub s) {
  const SubInfo& si = sub_info(s);
  return si.counted && !(si.moab_only && cfg.flavor != Flavor::Moab);
}

int64_t cred_priority(const Config& cfg, CredKind k, const std::string& name, bool fallback) {
  if (!name.empty()) {
    const CredCfg* c = cfg.find(k, name);
    if (c && c->priority != 0) return c->priority;
  }
  return fallback ? cfg.default_cred[static_cast<int>(k)].priority : 0;
}

constexpr Sub kCredSub[kCredKinds] = {Sub::CredUser, Sub::CredGroup, Sub::CredAccount, Sub::CredQos, Sub::CredClass};
constexpr Sub kFsSub[kCredKinds] = {Sub::FsUser, Sub::FsGroup, Sub::FsAccount, Sub::FsQos, Sub::FsClass};

int shift_of(int k) {
  int s = 0;
  for (int i = 0; i < k; ++i) s += kIdBits[i];
  return s;
}

}  // namespace

std::shared_ptr<const NameIndex> extend_names(const std::shared_ptr<const NameIndex>& parent, const Config& cfg,
                                              const FsUsage& usage) {
  std::shared_ptr<NameIndex> next;
  auto add = [&](int k, const std::string& name) {
    if (name.empty()) return;
    const NameIndex* cur = next ? next.get() : parent.get();  // (no copy: a pointer)
    if (cur && cur->index[k].count(name)) return;
    if (!next) next = parent ? std::make_shared<NameIndex>(*parent) : std::make_shared<NameIndex>();
    const uint32_t id = static_cast<uint32_t>(next->names[k].size());
    next->names[k].push_back(name);
    next->index[k].emplace(name, id);
  };
  for (int k = 0; k < kCredKinds; ++k) {
    for (const auto& [name, c] : cfg.creds[k]) add(k, name);
    for (const auto& [name, u] : usage.by_name[k]) add(k, name);
  }
  if (next) return next;
  if (parent) return parent;
  return std::make_shared<const NameIndex>();
}

uint32_t next_layout_id() {
  // Unique within one load of the plugin; seeded from the clock in
  // nanoseconds and the pid, so a plugin unloaded and loaded again (or
  // another process) starts elsewhere in the 2^32 range.
  static std::atomic<uint32_t> next{[] {
    const uint64_t ns = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count());
    return static_cast<uint32_t>((ns ^ (ns >> 32)) * 2246822519u) ^ (static_cast<uint32_t>(getpid()) << 12);
  }()};
  uint32_t v = next.fetch_add(1, std::memory_order_relaxed);
  if (v == 0) v = next.fetch_add(1, std::memory_order_relaxed);
  return v;
}

bool pack_handle(uint32_t layout_id, const uint32_t idx[kCredKinds], mfprio_handle_t* h) {
  uint64_t bits = 0;
  for (int k = 0; k < kCredKinds; ++k) {
    const uint64_t mask = (uint64_t{1} << kIdBits[k]) - 1;
    uint64_t v = mask;  // none
    if (idx[k] == kUnknownCred) {
      v = mask - 1;
    } else if (idx[k] != kNoCred) {
      if (idx[k] >= mask - 1) return false;
      v = idx[k];
    }
    bits |= v << shift_of(k);
  }
  h->generation = layout_id;
  h->assoc = static_cast<uint32_t>(bits);
  h->partition = static_cast<uint16_t>(bits >> 32);
  h->qos = static_cast<uint16_t>(bits >> 48);
  return true;
}

void build_fast(const Model& m, const NameIndex& names, uint32_t layout_id, FastPlan* out) {
  const Config& cfg = m.cfg;
  const bool moab = cfg.flavor == Flavor::Moab;
  out->layout_id = layout_id;
  // price_fast reads no per-user activity (the policy never fills it).
  out->usable = m.user_activity.empty();
  out->moab = moab;
  for (int s = 0; s < kSubs; ++s) {
    out->active[s] = counted_in(cfg, static_cast<Sub>(s));
    out->w[s] = out->active[s] ? cfg.weight(static_cast<Sub>(s)) : 0;
    out->cap[s] = cfg.sub_cap[s] > 0 ? static_cast<double>(cfg.sub_cap[s]) : HUGE_VAL;
  }
  for (int c = 0; c < kComponents; ++c)
    out->comp_cap[c] = cfg.comp_cap[c] > 0 ? static_cast<double>(cfg.comp_cap[c]) : HUGE_VAL;
  for (int k = 0; k < kCredKinds; ++k) {
    const CredKind kind = static_cast<CredKind>(k);
    const size_t n = names.names[k].size();
    out->counts[k] = static_cast<uint32_t>(n);
    auto& v = out->creds[k];
    v.assign(n + 2, CredFast{});
    out->extra[k].assign(n + 2, CredExtra{});
    const Sub cs = kCredSub[k], fs = kFsSub[k];
    const bool fallback = kind != CredKind::Qos || moab;  // Maui's QOS priority has no DEFAULT
    for (size_t i = 0; i <= n; ++i) {
      static const std::string kEmpty;
      const std::string& name = i < n ? names.names[k][i] : kEmpty;
      CredFast& c = v[i];
      CredExtra& x = out->extra[k][i];
      x.cfg = name.empty() ? nullptr : cfg.find(kind, name);
      if (x.cfg) {
        x.qt_weight = x.cfg->qt_weight;
        x.xf_weight = x.cfg->xf_weight;
        x.class_weight = x.cfg->class_weight;
        x.fs_weight = x.cfg->fs_weight;
      }
      const double prio = static_cast<double>(cred_priority(cfg, kind, name, fallback));
      const double sf = cap_of(prio, cfg.cap(cs), sub_two_sided(moab, Component::Cred));
      if (kind == CredKind::Class) c.cred = sf;  // its weight depends on the group
      else c.cred = static_cast<double>(counted_in(cfg, cs) ? cfg.weight(cs) : 0) * sf;
      const double d = cap_of(m.fs.delta(kind, name), cfg.cap(fs), sub_two_sided(moab, Component::Fs));
      c.fs = static_cast<double>(counted_in(cfg, fs) ? cfg.weight(fs) : 0) * d;
    }
    // Slot n + 1: a name neither the cfg nor the usage knows (no *CFG line,
    // DEFAULT's PRIORITY, the FS delta of usage 0).
    CredFast& c = v[n + 1];
    const double prio = static_cast<double>(fallback ? cfg.default_cred[k].priority : 0);
    const double sf = cap_of(prio, cfg.cap(cs), sub_two_sided(moab, Component::Cred));
    if (kind == CredKind::Class) c.cred = sf;
    else c.cred = static_cast<double>(counted_in(cfg, cs) ? cfg.weight(cs) : 0) * sf;
    const double d = cap_of(m.fs.enabled ? m.fs.absent_delta[k] : 0.0, cfg.cap(fs), sub_two_sided(moab, Component::Fs));
    c.fs = static_cast<double>(counted_in(cfg, fs) ? cfg.weight(fs) : 0) * d;
  }
}

int64_t record_accrual(AccrualPolicy policy, const mfprio_job_t& j, int64_t now) {
  int64_t accrual = j.submit_time;
  switch (policy) {
    case AccrualPolicy::Always: break;
    case AccrualPolicy::QueuePolicy:
      if (j.eligible_time > 0) accrual = j.eligible_time;
      if (j.flags & MFPRIO_JOBF_BLOCKED) accrual = now;
      break;
    case AccrualPolicy::FullPolicy:
      if (j.eligible_time > 0) accrual = j.eligible_time;
      if (j.flags & (MFPRIO_JOBF_BLOCKED | MFPRIO_JOBF_DEPENDENT)) accrual = now;
      break;
  }
  return accrual;
}

namespace {
template <bool moab>
__attribute__((always_inline)) inline Result price_fast_t(const Model& m, const FastPlan& plan,
                                                          const mfprio_job_t& j, const uint32_t slot[kCredKinds],
                                                          int64_t now) {
  const Config& cfg = m.cfg;
  const CredFast& U = plan.creds[0][slot[0]];
  const CredFast& G = plan.creds[1][slot[1]];
  const CredFast& A = plan.creds[2][slot[2]];
  const CredFast& Q = plan.creds[3][slot[3]];
  const CredFast& C = plan.creds[4][slot[4]];
  const CredExtra& GX = plan.extra[1][slot[1]];
  const CredExtra& AX = plan.extra[2][slot[2]];
  const CredExtra& QX = plan.extra[3][slot[3]];
  const bool has_qos = slot[3] != plan.counts[3];  // "" is slot counts[3]; unknown names counts[3] + 1
  const CredCfg* qos = QX.cfg;

  // ---- the record as to_maui() reads it ----
  const int64_t accrual = record_accrual(cfg.accrual, j, now);
  int64_t submit = j.submit_time;
  const int64_t eff_queue_duration = std::max<int64_t>(0, now - accrual);
  if (accrual == now && accrual != j.submit_time) submit = now;
  const double procs = static_cast<double>(j.cpus);
  const double mem_mb = static_cast<double>(j.mem_mb);
  double swap_mb = 0.0, disk_mb = 0.0;
  for (uint32_t i = 0; i < j.tres_count; ++i) {
    const char* n = j.tres[i].name;
    if (!n) continue;
    if (n[0] == 's' && std::strcmp(n, "swap") == 0) swap_mb = j.tres[i].count;
    else if (n[0] == 'd' && std::strcmp(n, "disk") == 0) disk_mb = j.tres[i].count;
  }
  const int64_t wclimit = static_cast<int64_t>(j.time_limit_min) * 60;

  // ---- price() ----
  int64_t eff_qdate;
  if (moab ? eff_queue_duration >= 0 : eff_queue_duration > 0)
    eff_qdate = now - eff_queue_duration;
  else if (cfg.use_system_queue_time && accrual > 0)
    eff_qdate = accrual;
  else
    eff_qdate = submit;
  if (moab) eff_qdate = std::min(now, eff_qdate);
  const int64_t queued = std::max<int64_t>(0, now - eff_qdate);
  const double wc = static_cast<double>(std::max<int64_t>(0, wclimit));
  double total = 0.0;
  double sum;
  auto add = [&](Sub s, int64_t w, double raw, bool two) {
    sum += static_cast<double>(w) * cap_d(raw, plan.cap[static_cast<int>(s)], two);
  };
  auto end = [&](Component c, int64_t w) {
    total += static_cast<double>(w) * cap_d(sum, plan.comp_cap[static_cast<int>(c)], moab);
  };

  // SERV
  const QueueTerms qterms = queue_terms(cfg, moab, has_qos, queued, wc);
  const double queuetime = qterms.queuetime, xfactor = qterms.xfactor;
  {
    int64_t w_qt = cfg.weight(Sub::QueueTime), w_xf = cfg.weight(Sub::XFactor);
    w_qt += QX.qt_weight;  // 0 without a QOSCFG line
    w_xf += QX.xf_weight;
    const bool two = moab;
    sum = 0.0;
    if (w_qt) add(Sub::QueueTime, (plan.active[static_cast<int>(Sub::QueueTime)] ? w_qt : 0), queuetime, two);
    if (w_xf) add(Sub::XFactor, (plan.active[static_cast<int>(Sub::XFactor)] ? w_xf : 0), xfactor, two);
    if (int64_t w = plan.w[static_cast<int>(Sub::SpViolation)])
      add(Sub::SpViolation, w, (j.flags & MFPRIO_JOBF_SOFT_VIOLATION) ? 1.0 : 0.0, two);
    if (int64_t w = plan.w[static_cast<int>(Sub::Bypass)])
      add(Sub::Bypass, w, static_cast<double>(static_cast<int64_t>(j.bypass_count)), two);
    if (int64_t w = plan.w[static_cast<int>(Sub::StartCount)])
      add(Sub::StartCount, w, static_cast<double>(static_cast<int64_t>(j.start_count)), two);
    if (int64_t w = plan.w[static_cast<int>(Sub::Deadline)])
      add(Sub::Deadline, w,
          j.deadline > 0 ? 1.0 / (1.0 + static_cast<double>(std::max<int64_t>(0, j.deadline - now))) : 0.0, two);
    if (int64_t w = plan.w[static_cast<int>(Sub::UserPrio)])
      add(Sub::UserPrio, w, static_cast<double>(static_cast<int64_t>(j.user_priority)), two);
    end(Component::Serv, cfg.weight(Component::Serv));
  }

  // TARG
  {
    const int64_t w_tqt = plan.w[static_cast<int>(Sub::TargetQueueTime)];
    const int64_t w_txf = plan.w[static_cast<int>(Sub::TargetXFactor)];
    if (w_tqt || w_txf) {
      double tqt = 0.0, txf = 0.0;
      if (qos) {
        if (qos->qt_target > 0)
          tqt = std::pow(1000.0, std::min(1.0, static_cast<double>(queued) / static_cast<double>(qos->qt_target)));
        if (qos->xf_target > 0.0) txf = std::pow(std::max(0.0001, qos->xf_target - xfactor), -2.0);
      }
      sum = 0.0;
      if (w_tqt) add(Sub::TargetQueueTime, w_tqt, tqt, false);
      if (w_txf) add(Sub::TargetXFactor, w_txf, txf, false);
      end(Component::Targ, cfg.weight(Component::Targ));
    }
  }

  // CRED
  {
    int64_t w_class = cfg.weight(Sub::CredClass);
    if (GX.class_weight > 0) w_class = GX.class_weight;
    w_class = (plan.active[static_cast<int>(Sub::CredClass)] ? w_class : 0);
    sum = 0.0;
    sum += U.cred;
    sum += G.cred;
    sum += A.cred;
    sum += Q.cred;
    if (w_class) sum += static_cast<double>(w_class) * C.cred;
    end(Component::Cred, cfg.weight(Component::Cred));
  }

  // ATTR: every input is 0 for a record (Moab's JOBPRIOF is not carried): adds +-0.

  // FS (Moab's global and per-user-activity sub-factors are 0 here: +-0)
  {
    int64_t w_fs = cfg.weight(Component::Fs);
    if (moab) {
      w_fs += GX.fs_weight;
      w_fs += AX.fs_weight;
      w_fs += QX.fs_weight;
    }
    sum = 0.0;
    sum += U.fs;
    sum += G.fs;
    sum += A.fs;
    sum += Q.fs;
    sum += C.fs;
    end(Component::Fs, w_fs);
  }

  // RES
  {
    sum = 0.0;
    if (int64_t w = plan.w[static_cast<int>(Sub::Node)])
      add(Sub::Node, w, static_cast<double>(j.min_nodes), false);
    if (int64_t w = plan.w[static_cast<int>(Sub::Proc)]) add(Sub::Proc, w, procs, false);
    if (int64_t w = plan.w[static_cast<int>(Sub::Mem)]) add(Sub::Mem, w, mem_mb, false);
    if (int64_t w = plan.w[static_cast<int>(Sub::Swap)]) add(Sub::Swap, w, swap_mb, false);
    if (int64_t w = plan.w[static_cast<int>(Sub::Disk)]) add(Sub::Disk, w, disk_mb, false);
    if (int64_t w = plan.w[static_cast<int>(Sub::Ps)]) add(Sub::Ps, w, procs * wc, false);
    if (int64_t w = plan.w[static_cast<int>(Sub::Pe)])
      add(Sub::Pe, w, processor_equivalents_flat(procs, mem_mb, swap_mb, disk_mb, m.totals), false);
    if (int64_t w = plan.w[static_cast<int>(Sub::Walltime)]) add(Sub::Walltime, w, wc, false);
    end(Component::Res, cfg.weight(Component::Res));
  }

  // USAGE (Moab, running jobs; 0 otherwise)
  if (moab && j.state == MFPRIO_JOB_RUNNING) {
    const int64_t el = j.start_time > 0 ? std::max<int64_t>(0, now - j.start_time) : 0;
    const int64_t left = std::max<int64_t>(0, static_cast<int64_t>(wc) - el);
    sum = 0.0;
    if (int64_t w = plan.w[static_cast<int>(Sub::Consumed)])
      add(Sub::Consumed, w, procs * static_cast<double>(el), false);
    if (int64_t w = plan.w[static_cast<int>(Sub::ExecutionTime)])
      add(Sub::ExecutionTime, w, static_cast<double>(el), false);
    if (int64_t w = plan.w[static_cast<int>(Sub::Remaining)])
      add(Sub::Remaining, w, procs * static_cast<double>(left), false);
    if (int64_t w = plan.w[static_cast<int>(Sub::Percent)])
      add(Sub::Percent, w, static_cast<double>((el * 100) / std::max<int64_t>(1, left)), false);
    end(Component::Usage, cfg.weight(Component::Usage));
  }

  Result r;
  r.total_unclamped = total;
  double v = total;
  if (!(v >= 1.0)) {
    v = 1.0;
    r.clamped_low = true;
  } else if (v > kMaxPriority) {
    v = kMaxPriority;
    r.clamped_high = true;
  }
  r.priority = static_cast<uint32_t>(v);
  return r;
}

template <bool moab>
void batch_t(const Model& m, const FastPlan& plan, const mfprio_job_t* jobs, size_t count, int64_t now,
             uint32_t* priorities, int* statuses, uint64_t clamped[2], SlowRecordFn slow, void* ctx) {
  constexpr size_t kAhead = 8;  // prefetch distance for the user's slot (the one large table)
  const CredFast* users = plan.creds[0].data();
  const uint32_t n_users = plan.counts[0];
  for (size_t i = 0; i < count; ++i) {
    if (i + kAhead < count) {
      const mfprio_job_t& a = jobs[i + kAhead];
      const uint32_t u = a.handle.assoc & ((uint32_t{1} << kIdBits[0]) - 1);
      __builtin_prefetch(users + (u < n_users ? u : 0));
    }
    const mfprio_job_t& j = jobs[i];
    uint32_t slot[kCredKinds];
    int rc = MFPRIO_OK;
    if (fast_record(j) && unpack_handle(j.handle, plan.layout_id, plan.counts.data(), slot)) {
      if (j.state == MFPRIO_JOB_HELD) {
        priorities[i] = 0;
      } else {
        const Result r = price_fast_t<moab>(m, plan, j, slot, now);
        priorities[i] = r.priority;
        clamped[0] += r.clamped_high;
        clamped[1] += r.clamped_low;
      }
    } else {
      rc = slow(ctx, i);
    }
    if (statuses) statuses[i] = rc;
  }
}
}  // namespace

Result price_fast(const Model& m, const FastPlan& plan, const mfprio_job_t& j, const uint32_t slot[kCredKinds],
                  int64_t now) {
  return plan.moab ? price_fast_t<true>(m, plan, j, slot, now) : price_fast_t<false>(m, plan, j, slot, now);
}

void price_fast_batch(const Model& m, const FastPlan& plan, const mfprio_job_t* jobs, size_t count, int64_t now,
                      uint32_t* priorities, int* statuses, uint64_t clamped[2], SlowRecordFn slow, void* ctx) {
  if (plan.moab) batch_t<true>(m, plan, jobs, count, now, priorities, statuses, clamped, slow, ctx);
  else batch_t<false>(m, plan, jobs, count, now, priorities, statuses, clamped, slow, ctx);
}

}  // namespace mfprio::maui
