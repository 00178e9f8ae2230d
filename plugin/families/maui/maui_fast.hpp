// maui_fast.hpp - the resolved fast path of maui/moab pricing.
//
// job_resolve looks a job's five credential names (user, group, account,
// QOS, class) up once in the state's NameIndex and packs their indices into
// the record's mfprio_handle_t; set_priority(_batch) then reads the
// per-credential terms precomputed at load/decay time (FastPlan) instead of
// hashing names, and builds no maui::Job.
//
// Handle: generation = the state's layout_id (the load epoch, never 0);
// the other 64 bits (assoc | partition << 32 | qos << 48) hold the indices
//   user 20 bits | group 14 | account 14 | QOS 8 | class 8   (low to high),
// each all-ones when the job names no such credential and all-ones minus 1
// for a name the index does not hold (neither a *CFG line nor usage: it
// prices as DEFAULT with usage 0).  A job whose index does not fit its field
// gets a zero handle (priced by name).
//
// NameIndex and layout_id: a decay/job_end state shares its parent's index
// and layout_id when its cfg and usage name nothing new; otherwise (and at
// every load: init, an admin's change, a converge) it gets a new index and a
// new layout_id (next_layout_id(), runtime/policy.hpp), so an
// "unknown name" code never outlives the index it was true for: older
// handles no longer match and are priced by name.  Indices are range-checked
// against the state read: a forged handle is priced by name, never read out
// of bounds.
//
// FastPlan: per credential slot its weighted, capped CRED and FS terms (the
// same doubles price() computes), and its *CFG line.  price_fast() and price()
// form the sums in one body (price_kernel, maui_kernel.hpp), so its result
// is bit-identical to price(model, job-by-name, now) (tests/families/maui:
// differential test).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "maui_cfg.hpp"
#include "maui_fairshare.hpp"
#include "maui_kernel.hpp"
#include "maui_priority.hpp"
#include "policy.hpp"
#include "mfprio/mfprio.h"

namespace mfprio::maui {

inline constexpr uint32_t kNoCred = 0xffffffffu;       // the job names no such credential
inline constexpr uint32_t kUnknownCred = 0xfffffffeu;  // a name the state's index does not hold
inline constexpr int kIdBits[kCredKinds] = {20, 14, 14, 8, 8};  // user, group, account, qos, class

struct NameIndex {
  std::array<std::vector<std::string>, kCredKinds> names;
  std::array<std::vector<InlineName>, kCredKinds> inline_names;  // the same, for the handle check
  std::array<std::unordered_map<std::string, uint32_t>, kCredKinds> index;
  // Per kind, the names' hashes (name_hash) in an open-addressing table
  // (0: empty; size a power of two, at most half full) behind a one-bit-per-
  // hash filter of 16 bits a name (a few KiB: it stays in cache): a name
  // whose bit is clear, or whose hash is absent, is not in the index, found
  // with one word-at-a-time hash and a bit test (the handle check of an
  // unknown credential, per record).
  std::array<std::vector<uint64_t>, kCredKinds> hashes;
  std::array<std::vector<uint64_t>, kCredKinds> filter;
  // kNoCred when absent.
  uint32_t find(int k, const std::string& name) const {
    auto it = index[k].find(name);
    return it == index[k].end() ? kNoCred : it->second;
  }
  // Never 0: the first 15 bytes two words at a time (policy.hpp:
  // name_words), mixed; any rest FNV-1a.
  static uint64_t name_hash(const char* s) {
    uint64_t w0, w1;
    const bool more = name_words(s, &w0, &w1);
    uint64_t h = (w0 ^ 0x9e3779b97f4a7c15ull) * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
    h = (h ^ w1) * 0x94d049bb133111ebull;
    h ^= h >> 29;
    if (__builtin_expect(more, 0))
      for (s += 15; *s; ++s) h = (h ^ static_cast<unsigned char>(*s)) * 1099511628211ull;
    return h | 1;
  }
  // False only when `name` is surely not in kind k (else ask find()).
  bool maybe_known(int k, const char* name) const {
    const std::vector<uint64_t>& t = hashes[k];
    if (t.empty()) return false;
    const uint64_t h = name_hash(name);
    const std::vector<uint64_t>& f = filter[k];
    const uint64_t bit = (h >> 32) & (f.size() * 64 - 1);
    if (!((f[bit >> 6] >> (bit & 63)) & 1)) return false;
    for (size_t i = h & (t.size() - 1);; i = (i + 1) & (t.size() - 1)) {
      if (t[i] == h) return true;
      if (t[i] == 0) return false;
    }
  }
  void rehash(int k);  // after names[k] grew
};

// The parent's index when the cfg and usage name nothing new, else a copy
// with the new names appended.  parent may be null (a new epoch).
std::shared_ptr<const NameIndex> extend_names(const std::shared_ptr<const NameIndex>& parent, const Config& cfg,
                                              const FsUsage& usage);

// Packs indices (kNoCred = none) into *h; false when one does not fit.
bool pack_handle(uint32_t layout_id, const uint32_t idx[kCredKinds], mfprio_handle_t* h);
// The five table slots of a handle for a state whose index has lim[k] - 2
// names per kind; false when the handle is not for this layout or an index
// is out of range.  Slots: 0 = an unknown name (field code all-ones minus
// 1), 1 = no such credential (all-ones), 2 + i = name i; so the slot is the
// field plus 2 modulo its width, and a slot is valid when below lim[k]
// (pack_handle never writes an index >= all-ones minus 1, so the names'
// slots never wrap).
inline bool unpack_handle(const mfprio_handle_t& h, uint32_t layout_id, const uint32_t lim[kCredKinds],
                          uint32_t slot[kCredKinds]) {
  if (h.generation != layout_id || layout_id == 0) return false;
  const uint64_t bits = uint64_t{h.assoc} | (uint64_t{h.partition} << 32) | (uint64_t{h.qos} << 48);
  static_assert(kIdBits[0] + kIdBits[1] + kIdBits[2] + kIdBits[3] + kIdBits[4] == 64, "the handle's 64 bits");
  bool ok = true;
  int shift = 0;
  for (int k = 0; k < kCredKinds; ++k) {  // unrolled by the compiler: constant shifts
    const uint32_t mask = (uint32_t{1} << kIdBits[k]) - 1;
    const uint32_t v = (static_cast<uint32_t>(bits >> shift) + 2) & mask;
    shift += kIdBits[k];
    slot[k] = v;
    ok &= v < lim[k];
  }
  return ok;
}
inline constexpr uint32_t kSlotUnknown = 0, kSlotNone = 1, kSlotFirstName = 2;

// The unpacked slots name the record's own credentials (policy.hpp:
// name_is): a handle kept after the job's user, group, account, QOS or class
// changed (or resolved for another record) is not used.  A name slot costs
// a compare of two short names; an unknown one a look-up (the name must
// still be unknown).
inline bool slots_name_record(const NameIndex& n, const mfprio_job_t& j, const uint32_t slot[kCredKinds]) {
  const char* const given[kCredKinds] = {j.user, j.group, j.account, j.qos, j.partition};
  for (int k = 0; k < kCredKinds; ++k) {
    const char* g = given[k];
    const bool empty = !g || !*g;
    if (slot[k] >= kSlotFirstName) {
      const int r = inline_name_is(n.inline_names[k][slot[k] - kSlotFirstName], g);
      if (r < 0 ? !name_is(n.names[k][slot[k] - kSlotFirstName], g) : r == 0) return false;
    } else if (slot[k] == kSlotNone) {
      if (!empty) return false;
    } else if (empty || (n.maybe_known(k, g) && n.find(k, g) != kNoCred)) {
      return false;
    }
  }
  return true;
}

// The terms every record reads (16 bytes: the large user table stays small).
struct CredFast {
  double cred = 0.0;  // weight x capped PRIORITY (class: the capped PRIORITY only)
  double fs = 0.0;    // FS weight x capped delta
};
// What only some kinds' *CFG lines add (read for group, account and QOS).
struct CredExtra {
  const CredCfg* cfg = nullptr;  // the *CFG line, null when none
  // Its weights price() reads (0 without a *CFG line, as price() adds none).
  int64_t qt_weight = 0, xf_weight = 0, class_weight = 0, fs_weight = 0;
  // As doubles, with the flavor's weights folded in (0 when price() adds
  // nothing or +-0): QOS slots: SERV's QUEUETIME and XFACTOR weights
  // (QUEUETIMEWEIGHT + the QOS's QTWEIGHT ...); group slots: the weight of
  // CRED.CLASS (the group's CLASSWEIGHT when > 0, else CLASSWEIGHT).
  double serv_qt = 0.0, serv_xf = 0.0, cred_class = 0.0;
  double xf_min = 0.0;  // QOS slots, Maui: XFMINWCLIMIT when the job names a QOS (known or not), else 0
};

// When a record's queue time starts (record_accrual).
struct AccrualRule {
  uint16_t stop_flags = 0;  // MFPRIO_JOBF_* bits
  bool from_eligible = false;
};

// Numbers every record reads, precomputed from the cfg (the batch copies
// them into a local, so the stores of its results cannot alias them).
struct FastConsts : KernelConsts {
  uint32_t layout_id = 0;
  std::array<uint32_t, kCredKinds> lim{};  // per kind: names + 2 (the slots)
  AccrualRule accrual;      // accrual_rule(cfg)
  bool negative = false;    // ENABLENEGJOBPRIORITY
  bool use_system_queue_time = false;
  bool tres_names = false;  // SWAP, DISK or PE has a weight: read the TRES names
  double xf_min_wclimit = 0.0;
  int64_t fs_weight = 0;    // FSWEIGHT (Moab adds the *CFG FSWEIGHTs)
};

struct FastPlan {
  uint32_t layout_id = 0;
  const NameIndex* names = nullptr;  // the state's (which owns this plan)
  bool usable = false;
  bool moab = false;
  std::array<double, kSubs> cap{};        // +inf: no cap
  std::array<double, kComponents> comp_cap{};
  std::array<bool, kSubs> active{};    // counted in this flavor
  std::array<int64_t, kSubs> w{};      // the weight when active, else 0
  std::array<uint32_t, kCredKinds> counts{};
  FastConsts k;
  // Per kind: counts[k] + 2 slots (unpack_handle): an unknown name, "no such
  // credential", the names.
  std::array<std::vector<CredFast>, kCredKinds> creds;
  std::array<std::vector<CredExtra>, kCredKinds> extra;  // same slots
};

// Precomputes the plan for a model and the state's names.
void build_fast(const Model& m, const NameIndex& names, uint32_t layout_id, FastPlan* out);

// The priority of a record (not held) whose slots were unpacked: the same
// Result as price(m, to_maui(job, now), now, nullptr).
Result price_fast(const Model& m, const FastPlan& plan, const mfprio_job_t& job, const uint32_t slot[kCredKinds],
                  int64_t now);

// A whole batch: records the one record check would take (policy.hpp:
// fast_record_head_ok, any doubt sent to slow()) whose handle unpacks for this
// plan are priced here (held: 0); slow(ctx, i) prices any other record i and
// returns its status.  statuses may be null; clamped[0] / [1] count the
// high / low clamps of the records priced here.
using SlowRecordFn = int (*)(void* ctx, size_t i);
void price_fast_batch(const Model& m, const FastPlan& plan, const mfprio_job_t* jobs, size_t count, int64_t now,
                      uint32_t* priorities, int* statuses, uint64_t clamped[2], SlowRecordFn slow, void* ctx);

// JOBPRIOACCRUALPOLICY (and Moab's JOBPRIOEXCEPTIONS) as an AccrualRule:
// ALWAYS: none; QUEUEPOLICY: eligible, BLOCKED; FULLPOLICY: eligible,
// BLOCKED|DEPENDENT; ACCRUE/RESET: HARDPOLICY, IDLEPOLICY -> BLOCKED,
// SOFTPOLICY -> SOFT_VIOLATION, DEPENDS -> DEPENDENT; a listed hold, DEFER or
// DEPENDS -> from eligibility.
AccrualRule accrual_rule(const Config& cfg);
// JOBPRIOACCRUALPOLICY over a stateless record: the time accrual counts
// from (selects, not branches: the records' times and flags come in no
// order a predictor could learn).
__attribute__((always_inline)) inline int64_t record_accrual(const AccrualRule& rule, const mfprio_job_t& j,
                                                             int64_t now) {
  auto pick = [](bool c, int64_t a, int64_t b) {
    const int64_t m = -static_cast<int64_t>(c);
    return (a & m) | (b & ~m);
  };
  const int64_t a = pick(rule.from_eligible && j.eligible_time > 0, j.eligible_time, j.submit_time);
  return pick((j.flags & rule.stop_flags) != 0, now, a);
}
// A stateless record's queue as a Job carries it (to_maui and the fast path):
// accrual from record_accrual, the queue duration since then, and a job
// blocked now has queue time 0 (Maui would keep the value of its last
// selection, which a stateless record does not carry): its queue date is now.
struct RecordQueue {
  int64_t system_queue_time = 0, eff_queue_duration = 0, submit_time = 0;
};
__attribute__((always_inline)) inline RecordQueue record_queue(const AccrualRule& rule, const mfprio_job_t& j,
                                                               int64_t now) {
  RecordQueue q;
  q.system_queue_time = record_accrual(rule, j, now);
  q.eff_queue_duration = std::max<int64_t>(0, now - q.system_queue_time);
  q.submit_time = q.system_queue_time == now && q.system_queue_time != j.submit_time ? now : j.submit_time;
  return q;
}

}  // namespace mfprio::maui
