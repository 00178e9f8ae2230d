// maui_fast.cpp - the resolved fast path (maui_fast.hpp): the tables and the
// record's inputs; the sums are price()'s own body (price_kernel,
// maui_kernel.hpp), so the doubles (and the truncated priority) are identical.
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

// apply_cap without the bound flag (the tables need the value only).
inline double cap_of(double v, int64_t cap, bool two_sided) {
  bool bound = false;
  return apply_cap(v, cap, two_sided, &bound);
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
    next->inline_names[k].emplace_back().set(name);
    next->index[k].emplace(name, id);
  };
  for (int k = 0; k < kCredKinds; ++k) {
    for (const auto& [name, c] : cfg.creds[k]) add(k, name);
    for (const auto& [name, u] : usage.by_name[k]) add(k, name);
  }
  if (next)
    for (int k = 0; k < kCredKinds; ++k) next->rehash(k);
  if (next) return next;
  if (parent) return parent;
  return std::make_shared<const NameIndex>();
}

void NameIndex::rehash(int k) {
  size_t cap = 16;
  while (cap < 2 * names[k].size()) cap <<= 1;
  std::vector<uint64_t>& t = hashes[k];
  t.assign(cap, 0);
  for (const std::string& n : names[k]) {
    const uint64_t h = name_hash(n.c_str());
    size_t i = h & (cap - 1);
    while (t[i] != 0 && t[i] != h) i = (i + 1) & (cap - 1);
    t[i] = h;
  }
  size_t bits = 64;
  while (bits < 16 * names[k].size()) bits <<= 1;
  std::vector<uint64_t>& f = filter[k];
  f.assign(bits / 64, 0);
  for (const std::string& n : names[k]) {
    const uint64_t bit = (name_hash(n.c_str()) >> 32) & (bits - 1);
    f[bit >> 6] |= uint64_t{1} << (bit & 63);
  }
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
  out->names = &names;
  // price_fast reads no per-user activity (the policy never fills it).
  out->usable = m.user_activity.empty();
  out->moab = moab;
  for (int s = 0; s < kSubs; ++s) {
    out->active[s] = sub_counted(cfg.flavor == Flavor::Moab, static_cast<Sub>(s));
    out->w[s] = out->active[s] ? cfg.weight(static_cast<Sub>(s)) : 0;
  }

  FastConsts& k = out->k;
  fill_kernel_consts(cfg, &k);
  out->cap = k.cap;
  out->comp_cap = k.comp_cap;
  k.layout_id = layout_id;
  k.accrual = accrual_rule(cfg);
  k.negative = cfg.negative_priority;
  k.use_system_queue_time = cfg.use_system_queue_time;
  auto has_w = [&](Sub s) { return out->w[static_cast<int>(s)] != 0; };
  k.tres_names = has_w(Sub::Swap) || has_w(Sub::Disk) || has_w(Sub::Pe);
  k.xf_min_wclimit = static_cast<double>(cfg.xf_min_wclimit);
  k.fs_weight = cfg.weight(Component::Fs);

  for (int kk = 0; kk < kCredKinds; ++kk) {
    const CredKind kind = static_cast<CredKind>(kk);
    const size_t n = names.names[kk].size();
    out->counts[kk] = static_cast<uint32_t>(n);
    k.lim[kk] = static_cast<uint32_t>(n + 2);
    auto& v = out->creds[kk];
    v.assign(n + 2, CredFast{});
    out->extra[kk].assign(n + 2, CredExtra{});
    const Sub cs = kCredSub[kk], fs = kFsSub[kk];
    const int cs_i = static_cast<int>(cs), fs_i = static_cast<int>(fs);  // k.w: the weight when counted, else 0
    const bool fallback = kind != CredKind::Qos || moab;  // Maui's QOS priority has no DEFAULT
    // Slot kSlotNone and the names' slots.
    for (size_t i = 0; i <= n; ++i) {
      static const std::string kEmpty;
      const std::string& name = i < n ? names.names[kk][i] : kEmpty;
      const size_t at = i < n ? kSlotFirstName + i : kSlotNone;
      CredFast& c = v[at];
      CredExtra& x = out->extra[kk][at];
      x.cfg = name.empty() ? nullptr : cfg.find(kind, name);
      if (x.cfg) {
        x.qt_weight = x.cfg->qt_weight;
        x.xf_weight = x.cfg->xf_weight;
        x.class_weight = x.cfg->class_weight;
        x.fs_weight = x.cfg->fs_weight;
      }
      const double prio = static_cast<double>(cred_priority(cfg, kind, name, fallback));
      const double sf = cap_of(prio, cfg.cap(cs), sub_two_sided(moab, Component::Cred));
      c.cred = kind == CredKind::Class ? sf : k.w[cs_i] * sf;  // the class's weight depends on the group
      c.fs = k.w[fs_i] * cap_of(m.fs.delta(kind, name), cfg.cap(fs), sub_two_sided(moab, Component::Fs));
    }
    // Slot kSlotUnknown: a name neither the cfg nor the usage knows (no *CFG
    // line, DEFAULT's PRIORITY, the FS delta of usage 0).
    CredFast& c = v[kSlotUnknown];
    const double prio = static_cast<double>(fallback ? cfg.default_cred[kk].priority : 0);
    const double sf = cap_of(prio, cfg.cap(cs), sub_two_sided(moab, Component::Cred));
    c.cred = kind == CredKind::Class ? sf : k.w[cs_i] * sf;
    c.fs = k.w[fs_i] * cap_of(m.fs.enabled ? m.fs.absent_delta[kk] : 0.0, cfg.cap(fs), sub_two_sided(moab, Component::Fs));
    // The weights as price() forms them per record (see CredExtra).
    for (CredExtra& x : out->extra[kk]) {
      if (kind == CredKind::Qos) {
        x.xf_min = &x == &out->extra[kk][kSlotNone] ? 0.0 : static_cast<double>(cfg.xf_min_wclimit);
        const int64_t w_qt = weight_sum(cfg.weight(Sub::QueueTime), x.qt_weight);  // 0 without a QOSCFG line
        const int64_t w_xf = weight_sum(cfg.weight(Sub::XFactor), x.xf_weight);
        x.serv_qt = out->active[static_cast<int>(Sub::QueueTime)] ? static_cast<double>(w_qt) : 0.0;
        x.serv_xf = out->active[static_cast<int>(Sub::XFactor)] ? static_cast<double>(w_xf) : 0.0;
      }
      if (kind == CredKind::Group) {
        int64_t w_class = cfg.weight(Sub::CredClass);
        if (x.class_weight > 0) w_class = x.class_weight;
        x.cred_class = out->active[static_cast<int>(Sub::CredClass)] ? static_cast<double>(w_class) : 0.0;
      }
    }
  }
}

AccrualRule accrual_rule(const Config& cfg) {
  AccrualRule r;
  switch (cfg.accrual) {
    case AccrualPolicy::Always: break;
    case AccrualPolicy::QueuePolicy:
      r.stop_flags = MFPRIO_JOBF_BLOCKED;
      r.from_eligible = true;
      break;
    case AccrualPolicy::FullPolicy:
      r.stop_flags = MFPRIO_JOBF_BLOCKED | MFPRIO_JOBF_DEPENDENT;
      r.from_eligible = true;
      break;
    case AccrualPolicy::Accrue:
    case AccrualPolicy::Reset: {
      const uint32_t e = cfg.prio_exceptions;
      if (e & (kExcHardPolicy | kExcIdlePolicy)) r.stop_flags |= MFPRIO_JOBF_BLOCKED;
      if (e & kExcSoftPolicy) r.stop_flags |= MFPRIO_JOBF_SOFT_VIOLATION;
      if (e & kExcDepends) r.stop_flags |= MFPRIO_JOBF_DEPENDENT;
      r.from_eligible = (e & (kExcBatchHold | kExcSystemHold | kExcUserHold | kExcDefer | kExcDepends)) != 0;
      break;
    }
  }
  return r;
}

namespace {

// The five kinds' tables of a plan.
struct Tables {
  const CredFast* cred[kCredKinds];
  const CredExtra* extra[kCredKinds];
  explicit Tables(const FastPlan& plan) {
    for (int k = 0; k < kCredKinds; ++k) {
      cred[k] = plan.creds[k].data();
      extra[k] = plan.extra[k].data();
    }
  }
};

// SWAP and DISK as to_maui() reads them from the TRES list (the last match).
inline void tres_sizes(const mfprio_job_t& j, double* swap_mb, double* disk_mb) {
  for (uint32_t i = 0; i < j.tres_count; ++i) {
    const char* n = j.tres[i].name;
    if (!n) continue;
    if (n[0] == 's' && std::strcmp(n, "swap") == 0) *swap_mb = j.tres[i].count;
    else if (n[0] == 'd' && std::strcmp(n, "disk") == 0) *disk_mb = j.tres[i].count;
  }
}

// price()'s total for a record (not held) whose slots were unpacked, with
// its SWAP and DISK sizes (read only when k.tres_names): the record as
// to_maui() reads it, its credentials' terms from the tables, summed by the
// one kernel (price_kernel, maui_kernel.hpp).  caps: some cap is finite
// (else none is tested).
template <bool moab, bool caps>
__attribute__((always_inline)) inline double total_t(const Model& m, const FastConsts& k, const Tables& t,
                                                     const mfprio_job_t& j, const uint32_t slot[kCredKinds],
                                                     int64_t now, double swap_mb, double disk_mb) {
  const CredExtra& GX = t.extra[1][slot[1]];
  const CredExtra& QX = t.extra[3][slot[3]];
  const RecordQueue rq = record_queue(k.accrual, j, now);
  const int64_t wclimit = static_cast<int64_t>(j.time_limit_min) * 60;

  KernelIn in;
  in.now = now;
  in.queued =
      queued_seconds(moab, k.use_system_queue_time, rq.eff_queue_duration, rq.system_queue_time, rq.submit_time, now);
  in.wc = static_cast<double>(std::max<int64_t>(0, wclimit));
  // QX.xf_min: XFMINWCLIMIT when the job names a QOS, known or not, else 0.
  in.xf_min = moab ? k.xf_min_wclimit : QX.xf_min;
  in.w_qt = QX.serv_qt;
  in.w_xf = QX.serv_xf;
  in.w_class = GX.cred_class;
  in.w_fs = moab ? static_cast<double>(k.fs_weight + GX.fs_weight + t.extra[2][slot[2]].fs_weight + QX.fs_weight)
                 : k.comp_w[static_cast<int>(Component::Fs)];
  in.qos = QX.cfg;
  in.sp_violation = (j.flags & MFPRIO_JOBF_SOFT_VIOLATION) != 0;
  in.bypass = static_cast<double>(static_cast<int64_t>(j.bypass_count));
  in.start_count = static_cast<double>(static_cast<int64_t>(j.start_count));
  in.user_prio = static_cast<double>(static_cast<int64_t>(j.user_priority));
  in.deadline = j.deadline;
  for (int c = 0; c < kCredKinds; ++c) {
    const CredFast& f = t.cred[c][slot[c]];
    in.cred[c] = f.cred;
    in.fs[c] = f.fs;
  }
  in.nodes = static_cast<double>(j.min_nodes);
  in.procs = static_cast<double>(j.cpus);
  in.mem_mb = static_cast<double>(j.mem_mb);
  in.swap_mb = swap_mb;
  in.disk_mb = disk_mb;
  in.totals = &m.totals;
  in.running = j.state == MFPRIO_JOB_RUNNING;
  in.elapsed = j.start_time > 0 ? std::max<int64_t>(0, now - j.start_time) : 0;
  Recorder<false> rec;
  return price_kernel<false, moab, caps, true>(k, in, rec);
}

// The record checks of job_acceptable() in one pass over the fields the
// pricing reads anyway, with one branch for the common case.  True only when
// job_acceptable(j) is true (the four times are tested through their OR,
// which is stricter: a record that fails here goes to the slow path, whose
// check_job and by-name pricing give the same status and priority).  Reads
// the TRES list (counts; names only when wanted) as it checks it.
__attribute__((always_inline)) inline bool quick_record(const mfprio_job_t& j, bool names, double* swap_mb,
                                                        double* disk_mb) {
  if (!fast_record_head_ok(j, /*allow_attrs=*/true)) return false;
  if (!names) return fast_tres_counts_ok(j);
  for (uint32_t i = 0; i < j.tres_count; ++i) {
    const double c = j.tres[i].count;
    if (!(c >= 0) || c == HUGE_VAL) return false;
    const char* n = j.tres[i].name;
    if (!n) continue;
    if (n[0] == 's' && std::strcmp(n, "swap") == 0) *swap_mb = c;
    else if (n[0] == 'd' && std::strcmp(n, "disk") == 0) *disk_mb = c;
  }
  return true;
}

template <bool moab, bool caps>
void batch_t(const Model& m, const FastPlan& plan, const mfprio_job_t* jobs, size_t count, int64_t now,
             uint32_t* priorities, int* statuses, uint64_t clamped[2], SlowRecordFn slow, void* ctx) {
  // Locals: the result stores below cannot alias them.
  const FastConsts k = plan.k;
  const Tables t(plan);
  constexpr size_t kAhead = 16;  // prefetch distance for the user's slot and name
  constexpr uint32_t kUserMask = (uint32_t{1} << kIdBits[0]) - 1;
  const uintptr_t user_names = reinterpret_cast<uintptr_t>(plan.names->inline_names[0].data());
  uint64_t high = 0, low = 0;
  for (size_t i = 0; i < count; ++i) {
    if (i + kAhead < count) {
      const mfprio_job_t& a = jobs[i + kAhead];
      const uint32_t u = (a.handle.assoc + 2) & kUserMask;
      __builtin_prefetch(t.cred[0] + (u < k.lim[0] ? u : 0));
      // The handle check's inline user name (slot - 2; formed as an integer:
      // a forged slot's address is never dereferenced, a prefetch never faults).
      __builtin_prefetch(reinterpret_cast<const void*>(user_names + (uintptr_t{u} - kSlotFirstName) * sizeof(InlineName)));
      __builtin_prefetch(a.user);  // job_acceptable reads its first byte (a prefetch never faults)
      __builtin_prefetch(a.account);  // the handle check reads the names
      __builtin_prefetch(a.group);
    }
    const mfprio_job_t& j = jobs[i];
    uint32_t slot[kCredKinds];
    double swap_mb = 0.0, disk_mb = 0.0;
    int rc = MFPRIO_OK;
    if (quick_record(j, k.tres_names, &swap_mb, &disk_mb) && unpack_handle(j.handle, k.layout_id, k.lim.data(), slot) &&
        slots_name_record(*plan.names, j, slot)) {
      if (j.state == MFPRIO_JOB_HELD) {
        priorities[i] = 0;
      } else {
        const Result r = clamp_total(total_t<moab, caps>(m, k, t, j, slot, now, swap_mb, disk_mb), k.negative);
        high += r.clamped_high;
        low += r.clamped_low;
        priorities[i] = r.priority;
      }
    } else {
      rc = slow(ctx, i);
    }
    if (statuses) statuses[i] = rc;
  }
  clamped[0] += high;
  clamped[1] += low;
}
}  // namespace

Result price_fast(const Model& m, const FastPlan& plan, const mfprio_job_t& j, const uint32_t slot[kCredKinds],
                  int64_t now) {
  const Tables t(plan);
  double swap_mb = 0.0, disk_mb = 0.0;
  tres_sizes(j, &swap_mb, &disk_mb);
  return clamp_total(plan.moab ? total_t<true, true>(m, plan.k, t, j, slot, now, swap_mb, disk_mb)
                             : total_t<false, true>(m, plan.k, t, j, slot, now, swap_mb, disk_mb),
                     plan.k.negative);
}

void price_fast_batch(const Model& m, const FastPlan& plan, const mfprio_job_t* jobs, size_t count, int64_t now,
                      uint32_t* priorities, int* statuses, uint64_t clamped[2], SlowRecordFn slow, void* ctx) {
  const bool caps = plan.k.cap_bits != 0 || plan.k.comp_cap_bits != 0;
  if (plan.moab) {
    if (caps) batch_t<true, true>(m, plan, jobs, count, now, priorities, statuses, clamped, slow, ctx);
    else batch_t<true, false>(m, plan, jobs, count, now, priorities, statuses, clamped, slow, ctx);
  } else {
    if (caps) batch_t<false, true>(m, plan, jobs, count, now, priorities, statuses, clamped, slow, ctx);
    else batch_t<false, false>(m, plan, jobs, count, now, priorities, statuses, clamped, slow, ctx);
  }
}

}  // namespace mfprio::maui
