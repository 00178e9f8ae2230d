// maui_priority.hpp - the job start priority of Maui 3.x / Moab 5.x
// (MPriority.c, MPolicy.c and Moab's documentation only, low confidence).
//
// Purpose: price one job against a Model (settings + fair-share view + the
// cluster's resources) at a time `now`:
//
//   for each component C in SERV, TARG, CRED, ATTR, FS, RES, USAGE:
//     sf_i  = sub-factor i, capped by its *CAP when that cap > 0     (MPriority.c)
//     C     = sum_i subweight_i * sf_i, capped by the component CAP  (MPriority.c)
//   total = sum_C weight_C * C
//   priority = trunc(clamp(total, 1, 1e9))                           (MPriority.c, MPolicy.c)
//   (ENABLENEGJOBPRIORITY: trunc(clamp(total, -1e9, 1e9)) + kNegOffset)
//
// Caps: Maui clips from above only.  Moab clips to [-cap, +cap] the SERV,
// CRED, ATTR and FS sub-factors and every component; TARG, RES and USAGE
// sub-factors only from above (Moab's documentation only, low confidence).
//
// Effective weights (MPriority.c, Moab's documentation only, low confidence): QUEUETIMEWEIGHT += QOS QTWEIGHT and
// XFACTORWEIGHT += QOS XFWEIGHT for a job with a QOS; CLASSWEIGHT is replaced
// by GROUPCFG[g] CLASSWEIGHT when that is > 0; Moab adds the GROUPCFG,
// ACCOUNTCFG and QOSCFG FSWEIGHT of the job's credentials to FSWEIGHT.
//
// Terms (the explained path): one Term per component (parent -1), each
// followed by its sub-components (parent = index of the component's Term).
//   component term:     factor = C after its cap, weight = component weight,
//                       contribution = weight * factor; the component
//                       contributions sum to total_unclamped.
//   sub-component term: factor = sf after its cap, weight = effective
//                       sub-weight x component weight, contribution =
//                       weight * factor.  They sum to the component's
//                       contribution unless the component cap bound it
//                       (then the component Term has bound = true).
// Only the sub-components of the Config's flavor are listed (UPROC/UJOB never).
//
// Entry points: price(), accrual_step(), ranks_before().
// Invariants: price() is pure and deterministic, allocates nothing when
// terms == nullptr, and never returns a priority outside [1, 1e9] (with
// ENABLENEGJOBPRIORITY: [1, 2000000001], see clamp_total).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "maui_cfg.hpp"
#include "maui_fairshare.hpp"
#include "maui_pe.hpp"

namespace mfprio::maui {

inline constexpr double kMaxPriority = 1e9;  // MAX_PRIO_VAL

// A component weight plus a credential's (QUEUETIMEWEIGHT + QOS QTWEIGHT,
// XFACTORWEIGHT + QOS XFWEIGHT): saturated at the int64 range, never
// wrapped (a wrapped sum would flip the order of the jobs it weighs).  The
// one sum price() and the fast path both use.
inline int64_t weight_sum(int64_t a, int64_t b) {
  int64_t r;
  if (!__builtin_add_overflow(a, b, &r)) return r;
  return b > 0 ? INT64_MAX : INT64_MIN;
}

// ---- the per-number rules price() and the resolved fast path (maui_fast.cpp)
// both use: each number is formed by one function ----------------------------

// A sub-factor or component after its cap (0 = no cap; a negative cap is
// ignored: MPriority.c); *bound when the cap changed it.
inline double apply_cap(double v, int64_t cap, bool two_sided, bool* bound) {
  if (cap <= 0) return v;
  const double c = static_cast<double>(cap);
  if (v > c) { *bound = true; return c; }
  if (two_sided && v < -c) { *bound = true; return -c; }
  return v;
}
// Moab clips SERV, CRED, ATTR and FS sub-factors both ways; TARG, RES (a
// stale loop index in Moab's lower clamp) and USAGE only from above
// (Moab's documentation only, low confidence).
inline bool sub_two_sided(bool moab, Component c) {
  return moab && (c == Component::Serv || c == Component::Cred || c == Component::Attr || c == Component::Fs);
}
// Whether a sub-component is summed in this flavor (UPROC/UJOB never; Moab's
// own only under Moab).
inline bool sub_counted(bool moab, Sub s) {
  const SubInfo& si = sub_info(s);
  return si.counted && !(si.moab_only && !moab);
}
// PRIORITY of a credential, falling back to the DEFAULT credential's (MPriority.c);
// "" = the job has none.
int64_t cred_priority(const Config& cfg, CredKind k, const std::string& name, bool fallback);
// MPriority.c, MPolicy.c: the seconds a job counts as queued.  Maui uses EffQueueDuration
// when it is > 0, Moab when >= 0 and never a queue date later than now
// (Moab's documentation only, low confidence).  Maui casts a negative queue
// time to unsigned (an enormous XFACTOR); we count it as 0 (mfprio-maui(5),
// DELIBERATE DIFFERENCES).
inline int64_t queued_seconds(bool moab, bool use_system_queue_time, int64_t eff_queue_duration,
                              int64_t system_queue_time, int64_t submit_time, int64_t now) {
  int64_t eff_qdate;
  if (moab ? eff_queue_duration >= 0 : eff_queue_duration > 0)
    eff_qdate = now - eff_queue_duration;
  else if (use_system_queue_time && system_queue_time > 0)
    eff_qdate = system_queue_time;
  else
    eff_qdate = submit_time;
  if (moab) eff_qdate = std::min(now, eff_qdate);
  return std::max<int64_t>(0, now - eff_qdate);
}

// One pending (or running, for Moab's USAGE) job.  Times are epoch seconds.
struct Job {
  uint64_t job_id = 0;
  std::string user, group, account, qos, cls;  // "" = the job has none

  int64_t submit_time = 0;
  // When priority accrual (re)started: Maui's SystemQueueTime, kept by the
  // caller with accrual_step(); 0 = submit_time.
  int64_t system_queue_time = 0;
  // Maui's EffQueueDuration from accrual_step(); < 0 = never selected yet.
  int64_t eff_queue_duration = -1;

  // Requested resources (totals over the whole job).
  double nodes = 0.0;
  double procs = 0.0;
  double mem_mb = 0.0;
  double swap_mb = 0.0;
  double disk_mb = 0.0;
  int64_t wclimit = 0;    // wallclock limit, seconds
  // Processor equivalents for a multi-requirement job (processor_equivalents);
  // < 0 = compute from the totals above as one requirement.
  double pe = -1.0;

  int64_t deadline = 0;   // Moab DEADLINE; 0 = none
  int64_t bypass = 0;     // backfill bypass count
  int64_t start_count = 0;  // Moab STARTCOUNT
  int64_t user_prio = 0;    // Moab USERPRIO (user-specified, -1024..1023)
  bool sp_violation = false;  // soft policy violation

  // Moab ATTR inputs (JOBPRIOF is resolved by the caller): attribute, state
  // and generic-resource priorities.  Maui never fills ATTR (MPriority.c).
  double attr_prio = 0.0, state_prio = 0.0, gres_prio = 0.0;

  bool running = false;   // Moab USAGE only
  int64_t elapsed = 0;    // seconds since start, when running
};

// Moab FSJPU/FSPPU/FSPSPU/WCACCURACY inputs: a user's active work.
struct UserActivity {
  double active_jobs = 0.0;
  double active_procs = 0.0;
  double active_proc_seconds = 0.0;
  double wc_accuracy = 0.0;   // 0..1
};

struct Model {
  Config cfg;
  PeResources totals;       // for PE
  FsView fs;                  // build_fs_view(cfg, ledger.decayed(...))
  std::unordered_map<std::string, UserActivity> user_activity;  // Moab only
};

struct Term {
  std::string name;     // "SERV", "SERV.QUEUETIME", "FS.USER", ...
  std::string label;
  double factor = 0.0;
  double weight = 0.0;
  double contribution = 0.0;
  bool bound = false;   // a cap changed the factor
  int parent = -1;      // index of the component term, -1 for a component
};

struct Result {
  double total_unclamped = 0.0;
  uint32_t priority = 1;
  bool clamped_low = false;   // total < 1 (or NaN) -> 1; -1e9 with ENABLENEGJOBPRIORITY
  bool clamped_high = false;  // total > 1e9 -> 1e9
};

// The final clamp and truncation (MPriority.c) of a total: price()'s and the
// resolved fast path's one rule.  Without ENABLENEGJOBPRIORITY: [1, 1e9].
// With it (`negative`) the lower bound is -1e9 and the 32-bit result is
// trunc(v) + kNegOffset (maui_cfg.hpp), so negative priorities keep their
// order: -1e9 -> 1, 0 -> 1000000001, 1e9 -> 2000000001.
inline Result clamp_total(double total, bool negative = false) {
  Result r;
  r.total_unclamped = total;
  const double floor = negative ? -kMaxPriority : 1.0;
  double v = total;
  const bool lo = !(v >= floor), hi = v > kMaxPriority;  // !(>=) also catches NaN
  v = lo ? floor : v;
  v = hi ? kMaxPriority : v;
  r.clamped_low = lo;
  r.clamped_high = hi;
  r.priority = negative ? static_cast<uint32_t>(static_cast<int64_t>(v) + kNegOffset) : static_cast<uint32_t>(v);
  return r;
}

// The job's start priority at `now`.  terms, when non-null, is cleared and
// filled (the only allocating path).  The first form forms the cfg's kernel
// constants (weights, caps, bit sets: fill_kernel_consts) for the call; a
// state prices with the ones it built once with its model (FastPlan::k),
// which must be m.cfg's.
struct KernelConsts;
Result price(const Model& m, const Job& job, int64_t now, std::vector<Term>* terms);
Result price(const Model& m, const KernelConsts& k, const Job& job, int64_t now, std::vector<Term>* terms);

// SERV's queue time (minutes; Moab counts whole minutes) and expansion factor
// for a job queued `queued` seconds with walltime `wc` seconds: the one rule
// price() and the resolved fast path (maui_fast.cpp) share.  Maui applies
// XFMINWCLIMIT only to a job with a QOS and has no guard against 0/0.
struct QueueTerms {
  double queuetime = 0, xfactor = 0;
};
// `xf_min`: the XFACTOR denominator's floor in force (Moab: XFMINWCLIMIT;
// Maui: XFMINWCLIMIT for a job with a QOS, else 0: xf_min_of).
inline QueueTerms queue_terms(bool moab, double xf_min, int64_t queued, double wc) {
  QueueTerms t;
  t.queuetime = moab ? static_cast<double>(queued / 60) : static_cast<double>(queued) / 60.0;
  double xf_den;
  if (moab) {
    xf_den = std::max(1.0, std::max(xf_min, wc));
  } else {
    xf_den = std::max(xf_min, wc);
    if (!(xf_den > 0.0)) xf_den = 1.0;
  }
  t.xfactor = (static_cast<double>(queued) + wc) / xf_den;
  return t;
}
inline double xf_min_of(const Config& cfg, bool moab, bool has_qos) {
  return moab || has_qos ? static_cast<double>(cfg.xf_min_wclimit) : 0.0;
}

// ---- JOBPRIOACCRUALPOLICY (MPolicy.c) ------------------------------------

// Why a job was not selected in this scheduling iteration.
enum class Block {
  None,        // passed selection
  HardLimit,   // idle/active/system limit at the hard policy level
  Other,       // hold, class disabled, failed dependency, FS cap, ...
  StartDate,   // release date / start date not reached
};

struct Accrual {
  int64_t system_queue_time = 0;    // starts at submit (or a PBS eligible time)
  int64_t eff_queue_duration = -1;  // < 0 = never selected
};

// One iteration of Maui's bookkeeping: HardLimit resets system_queue_time to
// now under QUEUEPOLICY and FULLPOLICY, Other only under FULLPOLICY,
// StartDate never, ALWAYS never.  A selected job (None) gets
// eff_queue_duration = max(0, now - system_queue_time); a blocked one keeps
// its last value (its queue time is frozen).
void accrual_step(AccrualPolicy policy, Block why, int64_t now, Accrual* a);

// ---- order -----------------------------------------------------------------

// Maui sorts with qsort (no defined order for equal priorities).  Ours:
// higher priority first, then earlier submit time, then smaller job id.
bool ranks_before(uint32_t prio_a, int64_t submit_a, uint64_t id_a,
                  uint32_t prio_b, int64_t submit_b, uint64_t id_b);

}  // namespace mfprio::maui
