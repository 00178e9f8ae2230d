// maui_kernel.hpp - the one per-record body of maui/moab pricing: price()
// (maui_priority.cpp, by name, with or without terms) and the resolved fast
// path (maui_fast.cpp, from build_fast's tables) both form the component
// sums SERV, TARG, CRED, ATTR, FS, RES and USAGE, their caps and weights,
// here (as multifactor's compute<kExplain>): the explained instantiation
// records the terms, the fast one compiles the recording away.
//
// Template parameters:
//   kExplain  record Terms (Recorder<true>) or nothing (Recorder<false>);
//   moab      the flavor;
//   caps      some cap is finite (false: no cap is tested);
//   tables    the inputs come from build_fast's tables: the CRED and FS
//             terms are already capped and weighed (CRED.CLASS capped:
//             its weight is the group's), a sub-component whose weight is 0
//             is skipped (a record's factors are finite: its times and TRES
//             counts were checked, so it would add +-0), and the
//             components a record never fills (ATTR, Moab's global and
//             per-user-activity FS factors, USAGE of a job not running,
//             TARG without a weight) are left out: they add +-0 to a
//             total that starts at +0.  Without tables every counted
//             sub-component is summed (0 x a non-finite factor is NaN, and
//             NaN must clamp low).
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include <array>
#include <cstdint>

#include "maui_cfg.hpp"
#include "maui_pe.hpp"
#include "maui_priority.hpp"

namespace mfprio::maui {

// The numbers every record reads, from the cfg (fill_kernel_consts;
// build_fast keeps them in its FastConsts, once per state, and the policy's
// by-name price() reads them there; price() without them forms them per call).
struct KernelConsts {
  bool targ = false;   // a TARG sub-component has a weight
  bool usage = false;  // Moab: a USAGE sub-component has a weight
  std::array<double, kSubs> cap{};            // +inf: no cap
  std::array<double, kComponents> comp_cap{};
  std::array<double, kSubs> w{};              // the weight when counted, else 0
  std::array<double, kComponents> comp_w{};   // the component weights
  uint64_t w_bits = 0;        // bit s: w[s] != 0
  uint64_t counted_bits = 0;  // bit s: sub_counted (summed in this flavor)
  uint64_t cap_bits = 0;      // bit s: cap[s] is finite (an infinite cap leaves every value alone)
  uint32_t comp_cap_bits = 0;
};
void fill_kernel_consts(const Config& cfg, KernelConsts* k);

// One record's inputs, looked up by the caller (by name or from the tables).
struct KernelIn {
  int64_t now = 0;
  int64_t queued = 0;   // queued_seconds
  double wc = 0.0;      // the wallclock limit, seconds, >= 0
  double xf_min = 0.0;  // the XFACTOR floor in force (xf_min_of)
  // Effective weights: SERV's QUEUETIME and XFACTOR (QOS QTWEIGHT/XFWEIGHT
  // added), CRED.CLASS (the group's CLASSWEIGHT), the FS component's.
  double w_qt = 0.0, w_xf = 0.0, w_class = 0.0, w_fs = 0.0;
  const CredCfg* qos = nullptr;  // the QOS's *CFG line (TARG), null when none
  bool sp_violation = false;
  double bypass = 0.0, start_count = 0.0, user_prio = 0.0;
  int64_t deadline = 0;
  // Per credential kind (user, group, account, QOS, class): PRIORITY and
  // the fair-share delta (with tables: weight x the capped value; the
  // class's PRIORITY only capped).
  double cred[kCredKinds] = {}, fs[kCredKinds] = {};
  double attr = 0.0, state = 0.0, gres = 0.0;  // ATTR (not with tables)
  const UserActivity* ua = nullptr;            // Moab FS extras (null: 0)
  double nodes = 0.0, procs = 0.0, mem_mb = 0.0, swap_mb = 0.0, disk_mb = 0.0;
  double pe = -1.0;  // < 0: processor_equivalents_flat over `totals`
  const PeResources* totals = nullptr;
  bool running = false;  // Moab USAGE
  int64_t elapsed = 0;   // >= 0
};

// A sub-factor or component after its cap (+inf: none), *bound when the cap
// changed it: apply_cap with the cap as a double.
__attribute__((always_inline)) inline double cap_b(double v, double c, bool two_sided, bool* bound) {
  if (v > c) { *bound = true; return c; }
  if (two_sided && v < -c) { *bound = true; return -c; }
  return v;
}

template <bool kExplain>
struct Recorder {  // the fast instantiation: records nothing
  void begin(Component, double) {}
  void sub(Sub, double, double, bool) {}
  void end(double, double, bool) {}
};
template <>
struct Recorder<true> {
  std::vector<Term>* terms;
  int at = -1;
  double comp_w = 0.0;
  void begin(Component c, double w) {
    const ComponentInfo& ci = component_info(c);
    at = static_cast<int>(terms->size());
    comp_w = w;
    Term t;
    t.name = ci.term_name;
    t.label = ci.label;
    t.weight = w;
    terms->push_back(std::move(t));
  }
  void sub(Sub s, double w, double sf, bool bound) {
    const SubInfo& si = sub_info(s);
    Term t;
    t.name = si.term_name;
    t.label = si.label;
    t.factor = sf;
    t.weight = w * comp_w;
    t.contribution = t.weight * sf;
    t.bound = bound;
    t.parent = at;
    terms->push_back(std::move(t));
  }
  void end(double c, double contribution, bool bound) {
    Term& t = (*terms)[at];
    t.factor = c;
    t.contribution = contribution;
    t.bound = bound;
  }
};

// The unclamped total of one record (clamp_total makes it a priority).
template <bool kExplain, bool moab, bool caps, bool tables>
__attribute__((always_inline)) inline double price_kernel(const KernelConsts& k, const KernelIn& in,
                                                          Recorder<kExplain>& rec) {
  static_assert(!(kExplain && tables), "the tables carry capped factors: no bound flags to explain");
  double total = 0.0, sum = 0.0;
  Component comp = Component::Serv;
  auto bit = [](uint64_t bits, auto e) { return ((bits >> static_cast<int>(e)) & 1) != 0; };
  // Whether sub-component s is summed (tables: it has a weight; else: it is counted).
  auto want = [&](Sub s) { return bit(tables ? k.w_bits : k.counted_bits, s); };
  // A sum starts at +0; with tables at -0, which adds nothing (x + -0 = x,
  // so the additions compile away): the two differ only for a sum of +-0,
  // which adds +-0 to a total that starts at +0 (and so never is -0).
  auto begin = [&](Component c, double w) {
    comp = c;
    sum = tables ? -0.0 : 0.0;
    rec.begin(c, w);
  };
  // `always`: summed whatever its weight (the weight is the record's, or
  // the tables' term is); `pre`: kRaw, kCapped (the tables' capped factor,
  // weighed here) or kWeighted (the tables' weighted, capped term).
  enum Pre { kRaw, kCapped, kWeighted };
  auto sub = [&](Sub s, double w, double raw, bool always = false, Pre pre = kRaw) {
    const int i = static_cast<int>(s);
    if (tables ? !(always || bit(k.w_bits, s)) : !bit(k.counted_bits, s)) return;
    if (pre == kWeighted) {
      sum += raw;
      return;
    }
    bool bound = false;
    const double sf = pre == kRaw && caps && bit(k.cap_bits, s) ? cap_b(raw, k.cap[i], sub_two_sided(moab, comp), &bound)
                                                               : raw;
    sum += w * sf;
    rec.sub(s, w, sf, bound);
  };
  auto sub_k = [&](Sub s, double raw) { sub(s, k.w[static_cast<int>(s)], raw); };
  auto end = [&](double w) {
    const int i = static_cast<int>(comp);
    bool bound = false;
    const double c = caps && bit(k.comp_cap_bits, comp) ? cap_b(sum, k.comp_cap[i], moab, &bound) : sum;
    const double contribution = w * c;
    total += contribution;
    rec.end(c, contribution, bound);
  };

  // ---- SERV (MPriority.c) ----
  const QueueTerms qt = queue_terms(moab, in.xf_min, in.queued, in.wc);
  begin(Component::Serv, k.comp_w[static_cast<int>(Component::Serv)]);
  sub(Sub::QueueTime, in.w_qt, qt.queuetime, true);
  sub(Sub::XFactor, in.w_xf, qt.xfactor, true);
  sub_k(Sub::SpViolation, in.sp_violation ? 1.0 : 0.0);
  sub_k(Sub::Bypass, in.bypass);
  sub_k(Sub::StartCount, in.start_count);
  if (want(Sub::Deadline))
    sub_k(Sub::Deadline,
          in.deadline > 0 ? 1.0 / (1.0 + static_cast<double>(std::max<int64_t>(0, in.deadline - in.now))) : 0.0);
  sub_k(Sub::UserPrio, in.user_prio);
  end(k.comp_w[static_cast<int>(Component::Serv)]);

  // ---- TARG (MPriority.c; the queue-time target follows Moab, Moab's documentation only, low confidence) ----
  if (!tables || k.targ) {
    double tqt = 0.0, txf = 0.0;
    if (const CredCfg* qos = in.qos) {
      if (qos->qt_target > 0)
        tqt = std::pow(1000.0,
                       std::min(1.0, static_cast<double>(in.queued) / static_cast<double>(qos->qt_target)));
      if (qos->xf_target > 0.0) txf = std::pow(std::max(0.0001, qos->xf_target - qt.xfactor), -2.0);
    }
    begin(Component::Targ, k.comp_w[static_cast<int>(Component::Targ)]);
    sub_k(Sub::TargetQueueTime, tqt);
    sub_k(Sub::TargetXFactor, txf);
    end(k.comp_w[static_cast<int>(Component::Targ)]);
  }

  // ---- CRED (MPriority.c) ----
  begin(Component::Cred, k.comp_w[static_cast<int>(Component::Cred)]);
  constexpr Sub kCred[kCredKinds] = {Sub::CredUser, Sub::CredGroup, Sub::CredAccount, Sub::CredQos, Sub::CredClass};
  for (int c = 0; c < kCredKinds; ++c)
    sub(kCred[c], c == kCredKinds - 1 ? in.w_class : k.w[static_cast<int>(kCred[c])], in.cred[c], true,
        !tables ? kRaw : c == kCredKinds - 1 ? kCapped : kWeighted);
  end(k.comp_w[static_cast<int>(Component::Cred)]);

  // ---- ATTR (Maui: never filled, MPriority.c; Moab: JOBPRIOF values from the caller) ----
  if (!tables) {
    begin(Component::Attr, k.comp_w[static_cast<int>(Component::Attr)]);
    sub_k(Sub::AttrAttr, in.attr);
    sub_k(Sub::AttrState, in.state);
    sub_k(Sub::AttrGres, in.gres);
    end(k.comp_w[static_cast<int>(Component::Attr)]);
  }

  // ---- FS (MFS.c) ----
  begin(Component::Fs, in.w_fs);
  constexpr Sub kFs[kCredKinds] = {Sub::FsUser, Sub::FsGroup, Sub::FsAccount, Sub::FsQos, Sub::FsClass};
  for (int c = 0; c < kCredKinds; ++c) sub(kFs[c], k.w[static_cast<int>(kFs[c])], in.fs[c], true, tables ? kWeighted : kRaw);
  if (moab && !tables) {
    // No ID manager here: the imported global usages are 0.
    sub_k(Sub::FsGUser, 0.0);
    sub_k(Sub::FsGGroup, 0.0);
    sub_k(Sub::FsGAccount, 0.0);
    const UserActivity ua = in.ua ? *in.ua : UserActivity{};
    sub_k(Sub::FsJpu, ua.active_jobs);
    sub_k(Sub::FsPpu, ua.active_procs);
    sub_k(Sub::FsPspu, ua.active_proc_seconds);
    sub_k(Sub::WcAccuracy, ua.wc_accuracy);
  }
  end(in.w_fs);

  // ---- RES (MJob.c:MJobGetPE) ----
  begin(Component::Res, k.comp_w[static_cast<int>(Component::Res)]);
  sub_k(Sub::Node, in.nodes);
  sub_k(Sub::Proc, in.procs);
  sub_k(Sub::Mem, in.mem_mb);
  sub_k(Sub::Swap, in.swap_mb);
  sub_k(Sub::Disk, in.disk_mb);
  sub_k(Sub::Ps, in.procs * in.wc);
  if (want(Sub::Pe))
    sub_k(Sub::Pe, in.pe >= 0.0 ? in.pe
                                : processor_equivalents_flat(in.procs, in.mem_mb, in.swap_mb, in.disk_mb, *in.totals));
  sub_k(Sub::Walltime, in.wc);
  end(k.comp_w[static_cast<int>(Component::Res)]);

  // ---- USAGE (MPriority.c:MJobGetRunPriority: 0 in Maui's start priority; Moab: running jobs) ----
  const bool run = moab && in.running;
  if (!tables || (moab && k.usage && run)) {
    const int64_t el = run ? in.elapsed : 0;
    const int64_t left = run ? std::max<int64_t>(0, static_cast<int64_t>(in.wc) - el) : 0;
    begin(Component::Usage, k.comp_w[static_cast<int>(Component::Usage)]);
    sub_k(Sub::Consumed, run ? in.procs * static_cast<double>(el) : 0.0);
    sub_k(Sub::ExecutionTime, static_cast<double>(el));
    sub_k(Sub::Remaining, run ? in.procs * static_cast<double>(left) : 0.0);
    // Integer division, elapsed per *remaining* time (Maui 3.2 src/MPriority.c, MJobGetRunPriority).
    if (want(Sub::Percent))
      sub_k(Sub::Percent, run ? static_cast<double>((el * 100) / std::max<int64_t>(1, left)) : 0.0);
    end(k.comp_w[static_cast<int>(Component::Usage)]);
  }
  return total;
}

}  // namespace mfprio::maui
