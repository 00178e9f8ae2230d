// ge_tickets_pass.hpp - the state and the shared types of one ticket pass
// (ge_tickets.cpp runs it; the policy steps are ge_override.cpp,
// ge_functional.cpp and ge_share_sort.cpp): the flat jobs and ids, the
// indexes and counters, the working share tree, the functional values, the
// sort and heap records, the per-pass arrays (TicketScratch::Arrays) and
// Pass, and the steps' entry points.  Internal: not installed.
#pragma once

#include "ge_ticket_types.hpp"
#include "stable_order.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

namespace mfprio::gridengine::detail {

constexpr uint32_t kNoId = UINT32_MAX;

// A job as the ticket steps read it: its ids and numbers in one flat
// record (no step reads a Job's strings, maps or PE request; sorts and
// picks in category or tree order touch 56 bytes a job, not a whole Job).
struct LJob {
  int64_t submit = 0;
  uint64_t id = 0;
  double js = 0;          // -js
  double ot = 0;          // -ot
  uint32_t u = 0, p = 0, d = 0;  // the pass's user, project, department ids
  uint32_t dilute = 1;    // dilute_slots: max(1, min of the first PE range)
  bool running = false, has_p = false, has_d = false;
};

struct Ids {
  std::vector<LJob> job;  // per job
  std::vector<const TicketObject*> uo, po, dobj;  // per id, nullptr = none
  std::vector<std::string_view> uname, pname;     // per id: the user's, the project's name
  std::vector<double> ufs, pfs, dfs;              // per id: its object's fshare, 0 = none
  std::vector<double> uot, pot, dot;              // per id: its object's override tickets, 0 = none
  // Per user id: kPositiveShare (ufs > 0), kPositiveOt (uot > 0): what the
  // pending scan asks of a job's user, in a byte (not two doubles read at
  // random per job).
  static constexpr uint8_t kPositiveShare = 1, kPositiveOt = 2;
  std::vector<uint8_t> uflags;
};

// An equality key of up to five words (ids, and doubles by their bits with
// -0 as +0: the values are never NaN, so equal bits <=> equal values).
struct Key5 {
  uint64_t w[5] = {0, 0, 0, 0, 0};
  bool operator==(const Key5& o) const {
    return w[0] == o.w[0] && w[1] == o.w[1] && w[2] == o.w[2] && w[3] == o.w[3] && w[4] == o.w[4];
  }
};
inline uint64_t dbits(double v) {
  if (v == 0) return 0;
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// Key5 -> index, open addressing (linear probing, at most half full,
// doubled when it would pass that): no allocation per key.
class FlatIndex {
 public:
  static constexpr uint32_t kEmpty = UINT32_MAX;
  FlatIndex() { rehash(64); }
  // Empty, room for n keys without a rehash (a reused index keeps its
  // table, unless it is over 8 times that: a table far larger than its
  // keys costs a clear per pass and a cache miss per probe).
  void reset(size_t n) {
    size_t cap = 64;
    while (cap < 2 * (n + 1)) cap *= 2;
    if (slots_.size() < cap || slots_.size() > 8 * cap) {
      slots_.assign(cap, Slot{});
      mask_ = cap - 1;
    } else {
      for (Slot& e : slots_) e.val = kEmpty;
    }
    size_ = 0;
  }
  // Room for `more` keys beyond those held without a rehash on the way.
  void reserve(size_t more) {
    size_t cap = slots_.size();
    while (2 * (size_ + more + 1) > cap) cap *= 2;
    if (cap > slots_.size()) rehash(cap);
  }
  // k's place fetched into the cache ahead of its insert (a table larger
  // than the caches: a run of inserts overlaps their misses).
  void prefetch(const Key5& k) const { __builtin_prefetch(&slots_[slot(k)]); }
  // The index of k, inserting v when absent (*added says which).
  uint32_t insert(const Key5& k, uint32_t v, bool* added) {
    if (2 * (size_ + 1) > slots_.size()) rehash(slots_.size() * 2);
    size_t i = slot(k);
    for (; slots_[i].val != kEmpty; i = (i + 1) & mask_)
      if (slots_[i].key == k) {
        *added = false;
        return slots_[i].val;
      }
    slots_[i] = Slot{k, v};
    ++size_;
    *added = true;
    return v;
  }

 private:
  // A key and its value side by side: a probe reads one place (at 10^6
  // keys the table is far larger than the caches).
  struct Slot {
    Key5 key;
    uint32_t val = kEmpty;
  };
  size_t slot(const Key5& k) const {
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (uint64_t x : k.w) {
      h ^= x + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
      h *= 0xBF58476D1CE4E5B9ull;
    }
    h ^= h >> 31;
    return static_cast<size_t>(h) & mask_;
  }
  void rehash(size_t cap) {
    std::vector<Slot> old(cap);
    old.swap(slots_);
    mask_ = cap - 1;
    for (const Slot& e : old) {
      if (e.val == kEmpty) continue;
      size_t j = slot(e.key);
      while (slots_[j].val != kEmpty) j = (j + 1) & mask_;
      slots_[j] = e;
    }
  }
  std::vector<Slot> slots_;
  size_t mask_ = 0, size_ = 0;
};

// (a, b) -> index, open addressing (linear probing, at most half full,
// doubled when it would pass that) in a table kept between passes, whose
// used slots are cleared by begin(): a pass costs the keys it holds.
class BlockIndex {
 public:
  static constexpr uint32_t kEmpty = UINT32_MAX;
  // Empty, room for n keys without a rehash.
  void begin(size_t n) {
    for (uint32_t i : used_) slots_[i].val = kEmpty;
    used_.clear();
    size_t cap = 16;
    while (cap < 2 * n) cap *= 2;
    if (slots_.size() < cap) slots_.assign(cap, Slot{});
    mask_ = slots_.size() - 1;
  }
  uint32_t insert(uint64_t a, uint64_t b, uint32_t v, bool* added) {
    uint64_t h = (a ^ (b * 0x9E3779B97F4A7C15ull)) * 0xBF58476D1CE4E5B9ull;
    size_t i = static_cast<size_t>(h ^ (h >> 29)) & mask_;
    for (; slots_[i].val != kEmpty; i = (i + 1) & mask_)
      if (slots_[i].a == a && slots_[i].b == b) {
        *added = false;
        return slots_[i].val;
      }
    if (2 * (used_.size() + 1) > slots_.size()) {
      grow();
      return insert(a, b, v, added);
    }
    slots_[i] = Slot{a, b, v};
    used_.push_back(static_cast<uint32_t>(i));
    *added = true;
    return v;
  }

 private:
  struct Slot {
    uint64_t a = 0, b = 0;
    uint32_t val = kEmpty;
  };
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    used_.clear();
    for (const Slot& e : old) {
      if (e.val == kEmpty) continue;
      bool added = false;
      insert(e.a, e.b, e.val, &added);
    }
  }
  std::vector<Slot> slots_;
  std::vector<uint32_t> used_;
  size_t mask_ = 0;
};

// ---- per-object counters for functional and override tickets ------------------------
// Flat, by id; references to values stay valid (the functional pass keeps some).
struct Counts {
  std::vector<double> user, project, dept;
  explicit Counts(const Ids& i) : user(i.uo.size()), project(i.po.size()), dept(i.dobj.size()) {}
  double& u(const LJob& j) { return user[j.u]; }
  double& p(const LJob& j) { return project[j.p]; }
  double& d(const LJob& j) { return dept[j.d]; }
  // The job's objects count one more job (a job without a project or
  // department counts for none).
  void add(const LJob& j) {
    user[j.u] += 1;
    if (j.has_p) project[j.p] += 1;
    if (j.has_d) dept[j.d] += 1;
  }
};

// ---- the working share tree ----------------------------------------------------------
struct WorkTree {
  std::vector<ShareNodeState> nodes;
  std::vector<int> job_node;     // per job, -1 = none
  std::vector<uint32_t> direct;  // per node, its jobs (running and pending): counted as they are mapped
};

// The tree's reachable nodes in preorder (children in order) and each
// one's nearest project ancestor (or itself), -1 if none.
struct TreeShape {
  std::vector<int> preorder, project_of;
};

// What a state's passes share about its tree: the shape, and per (user id,
// project id) of the names' tables the job's leaf (find_job_leaf), kept
// while the model's names and tree index are the same objects (both held
// here, so neither can be freed and another made at its address).  Ids
// outside the tables (numbered by one pass) are looked up per pass.
struct LeafHit {
  uint32_t project;
  int leaf;
  bool is_default;
};
struct TreeCache {
  std::shared_ptr<const NameTables> names;
  std::shared_ptr<const TreeIndex> index;
  bool kept = false;
  TreeShape shape;
  std::vector<std::vector<LeafHit>> by_user;  // per user id, sorted by project id
  // Per job position, the last pass's (user id, its LeafHit) from by_user,
  // user kNoId: none (a queue like the last finds its jobs' leaves in job
  // order, not in per-user vectors at random).
  struct JobLeaf {
    uint32_t user;
    LeafHit hit;
  };
  std::vector<JobLeaf> last;
  // How many of WorkTree::job_node the last pass made with this cache, and
  // its user copies of `default` leaves in the order it made them (the
  // default leaf, the user id): the jobs whose flat records are kept keep
  // their nodes (build_work_tree), their copies made again in that order.
  size_t nodes_made = 0;
  std::vector<std::pair<int, uint32_t>> copies;
  FlatIndex found;                            // this pass's other (user, project) -> leaves[]
  std::vector<std::pair<int, bool>> leaves;
};

// ---- functional shares of a job's objects ------------------------------------------
// By the pass's ids (intern_ids: a job's ids as given, other names one look-up
// each); the ticket objects are looked up once per id.
struct FShares {
  double user = 0, project = 0, dept = 0, job = 0;
};

inline FShares object_fshares(uint32_t u, uint32_t p, uint32_t d, double js, const Ids& ids) {
  return FShares{ids.ufs[u], ids.pfs[p], ids.dfs[d], js};
}
inline FShares object_fshares(const LJob& j, const Ids& ids) { return object_fshares(j.u, j.p, j.d, j.js, ids); }

// EE:get_functional_weighting_parameters: weights of the categories flagged
// in use, renormalised; all 1 when none is usable.
inline std::array<double, 4> functional_weights(const SchedConf& c, bool u, bool p, bool d, bool j) {
  std::array<double, 4> w{u ? c.weight_user : 0, p ? c.weight_project : 0,
                          d ? c.weight_department : 0, j ? c.weight_job : 0};
  double sum = w[0] + w[1] + w[2] + w[3];
  if (!(sum > 0)) {
    w = {1, 1, 1, 1};
    sum = 4;
  }
  for (auto& x : w) x /= sum;
  return w;
}

inline double functional_value(const std::array<double, 4>& w, const FShares& share, const FShares& sum,
                               double F) {
  double t = 0;
  if (sum.user != 0) t += w[0] * share.user * F / sum.user;
  if (sum.project != 0) t += w[1] * share.project * F / sum.project;
  if (sum.dept != 0) t += w[2] * share.dept * F / sum.dept;
  if (sum.job != 0) t += w[3] * share.job * F / sum.job;
  return t;
}

// calc_intern_pending_job_functional_tickets: the value of a pending job with
// object shares `share` as if it started now, against the sums + 0.001.
// Shared fshares: each object's share over its running count + 1 (u, p, d:
// the counts; nullptr: not divided); else the shares join the sums.
inline double pending_functional_value(const std::array<double, 4>& w, FShares share, const FShares& sum,
                                       const double* u, const double* p, const double* d, bool shared, double F) {
  FShares s{sum.user + 0.001, sum.project + 0.001, sum.dept + 0.001, sum.job + 0.001};
  if (shared) {
    if (u) share.user /= *u + 1;
    if (p) share.project /= *p + 1;
    if (d) share.dept /= *d + 1;
  } else {
    s.user += share.user;
    s.project += share.project;
    s.dept += share.dept;
  }
  s.job += share.job;
  return functional_value(w, share, s, F);
}

struct PolicyStep {
  char policy;
  bool dependent;
};

// std::merge's result (b's element first only when it is less than a's),
// without a branch on the comparison (the levels merge keys that interleave
// at random, which a branch mispredicts half the time), from both ends at
// once: the front takes the least heads (a's on ties), the back the
// greatest tails (b's on ties), two independent chains of loads and
// selects.  The front and back never take the same element (a's last one
// goes back only when b's last is less, and then b's head is less too).
template <typename T, typename Less>
void merge_runs(const T* a, const T* ae, const T* b, const T* be, T* d, Less less) {
  if (a == ae || b == be) {
    d = std::copy(a, ae, d);
    std::copy(b, be, d);
    return;
  }
  T* de = d + (ae - a) + (be - b);
  const T* ra = ae - 1;  // the unconsumed: a's [a, ra], b's [b, rb]
  const T* rb = be - 1;
  auto pick = [](const T* x, const T* y, uintptr_t take_y) {
    const uintptr_t px = reinterpret_cast<uintptr_t>(x), py = reinterpret_cast<uintptr_t>(y);
    return reinterpret_cast<const T*>(px ^ ((px ^ py) & (0 - take_y)));  // a select, not a branch
  };
  while (a <= ra && b <= rb) {
    const uintptr_t front_b = less(*b, *a);   // 0 or 1
    const uintptr_t back_a = less(*rb, *ra);
    *d++ = *pick(a, b, front_b);
    *--de = *pick(rb, ra, back_a);
    a += 1 - front_b;
    b += front_b;
    ra -= back_a;
    rb -= 1 - back_a;
  }
  if (a <= ra) std::copy(a, ra + 1, d);
  else if (b <= rb) std::copy(b, rb + 1, d);
}

// A stable sort that uses the runs already in v: the share-tree levels sort
// the concatenation of their children's lists, each still in its own order
// and, when the keys are independent, in the new one.  Maximal
// non-descending runs are merged pairwise (left first on ties), which is
// stable: the result is exactly stable_order's.  Runs mostly of one
// element: stable_order itself; more than `max_runs` runs (a merge pass per
// doubling): `many_runs(v, n)`, which must give the same stable order.
template <typename T, typename Less, typename ManyRuns>
void natural_order(T* v, size_t n, std::vector<T>& buf, std::vector<size_t>& runs, Less less, size_t max_runs,
                   ManyRuns many_runs) {
  if (n < 2) return;
  runs.clear();
  runs.push_back(0);
  for (size_t i = 1; i < n; ++i)
    if (less(v[i], v[i - 1])) runs.push_back(i);
  runs.push_back(n);
  if (runs.size() == 2) return;
  if (runs.size() - 1 > max_runs) {
    many_runs(v, n);
    return;
  }
  if (runs.size() > n / 2 + 2) {
    mfprio::stable_order(v, v + n, less);
    return;
  }
  if (buf.size() < n) buf.resize(n);
  T* src = v;
  T* dst = buf.data();
  while (runs.size() > 2) {  // boundaries: runs.size() - 1 runs
    // The merged runs' boundaries overwrite the first half of `runs` (w <
    // k: an entry is read before any write reaches it): no allocation.
    size_t k = 0, w = 0;
    for (; k + 2 < runs.size(); k += 2) {
      merge_runs(src + runs[k], src + runs[k + 1], src + runs[k + 1], src + runs[k + 2], dst + runs[k], less);
      runs[w++] = runs[k];
    }
    if (k + 1 < runs.size()) {  // an odd run out: copied
      std::copy(src + runs[k], src + runs[k + 1], dst + runs[k]);
      runs[w++] = runs[k];
    }
    runs[w++] = n;
    runs.resize(w);
    std::swap(src, dst);
  }
  if (src != v) std::copy(src, src + n, v);
}

// A job as the share-tree sorts see it: flat, so no sort reads a Job and
// no level's assignment reads or writes a per-job array.  The order a level
// sorts on is (key desc, id asc) = (k asc, id asc), k = order_key(key);
// running and pending jobs are kept apart (running first at every level).
struct SRec {
  uint64_t k;
  uint64_t id;
  double base;     // the prior tickets the key adds to (0 when independent, and for running jobs)
  uint32_t idx;
  uint32_t slots;  // dilute_slots
};
// An unsigned key whose ascending order is the descending order of the
// (never NaN) doubles, -0 as +0.
inline uint64_t order_key(double v) {
  uint64_t b = dbits(v);
  b = (b >> 63) ? ~b : (b | (1ull << 63));  // ascending in v
  return ~b;
}
// (k, id) ascending, one 128-bit comparison (no branch).
inline bool srec_less(const SRec& a, const SRec& b) {
  using u128 = unsigned __int128;
  return ((static_cast<u128>(a.k) << 64) | a.id) < ((static_cast<u128>(b.k) << 64) | b.id);
}

// A sort record of the radix path: a record's k and its position in the
// range (16 bytes: half an SRec's traffic per pass); the ids are read
// from the range only where two keys tie.
struct KPos {
  uint64_t k;
  uint64_t pos;
};

// One node on the share sort's walk and its next child.
struct ShareSortFrame {
  int node;
  size_t next;
};

// A functional category while grouping and picking: its size, its bucket
// (the block of its user's jobs, build_categories) and its first job in its
// order (prior desc when dependent, then submit, id), found in one pass over
// its members; the members' ordered list is made only for a bucket the
// picks take from (gather).
struct CatRec {
  double prior = 0;  // its first job's prior, 0 when independent
  int64_t submit = 0;
  uint64_t id = 0;
  uint32_t head = 0, n = 0, bucket = 0;  // head: the first job's index
};

// A heap entry: a category's (or group's) value and its next job's submit
// and id (ties broken without reading the jobs); `at`: the pick its value
// was computed at.
struct FCand {
  double v;
  int64_t submit;
  uint64_t id;
  size_t c;
  size_t at;
};
inline bool fworse(const FCand& a, const FCand& b) {
  if (a.v != b.v) return a.v < b.v;
  if (a.submit != b.submit) return b.submit < a.submit;
  return b.id < a.id;
}
// fworse as the heaps' comparator object (inlined; a function pointer is
// called through at every comparison).
struct FWorse {
  bool operator()(const FCand& a, const FCand& b) const { return fworse(a, b); }
};

// Per category, once: its objects' fshares (the same for every member:
// they are the category's key) and where its objects' counts live (the
// counts' vectors do not grow).  A zero fshare stays 0 whatever its count,
// so only the non-zero ones, which name the category's own objects, need one.
struct CatInfo {
  FShares share;
  const double *u = nullptr, *p = nullptr, *d = nullptr;
  uint32_t user = 0;
};

// A category's key past its user: the project and department (kNoId: not
// in the key) and -js.
struct SubKey {
  uint32_t p, d;
  double js;
};
// A member as the grouping reads it, bucket by bucket: what its category's
// order compares (prior 0 when independent), its index, its sub key (then
// its category).
struct MRec {
  double prior;
  int64_t submit;
  uint64_t id;
  uint32_t j, sub;
};

// A pending override round's heap entry: a category's value (stale until
// recomputed) and its next job's id.
struct OCand {
  double v;
  uint64_t id;
  size_t c;
};

// TiedGroups' containers (ge_functional.cpp), kept between passes.
struct TiedMember {
  int64_t submit;
  uint64_t id;
  uint32_t c, gen;
};
struct TiedGroup {
  FShares base;  // user share already divided by its count + 1 (shared)
  const double *p = nullptr, *d = nullptr;
  double prior = 0;
  std::vector<TiedMember> members;  // heap; entries of moved categories are stale (gen)
};
// Reused by every pass: groups_[0, ngroups) are this pass's (the others
// keep their members' capacity).
struct TiedScratch {
  std::vector<TiedGroup> groups;
  FlatIndex group_of;  // (user share, project id, department id, -js, prior) -> group
  std::vector<uint32_t> gen;
  std::vector<FCand> gheap;
  std::vector<uint32_t> ucat_first, ucat_next;  // per user, per category: the joined categories reading its count
};

// The categories' members in order, category by category (filled only for
// the buckets the picks took from): category c = flat[off[c], off[c + 1]).
struct Cats {
  std::vector<uint32_t> flat;
  std::vector<uint32_t> off;
};
}  // namespace mfprio::gridengine::detail

namespace mfprio::gridengine {

// Every per-job and per-node array of a pass (see ge_ticket_types.hpp): each
// step sets what it reads before reading it.
struct TicketScratch::Arrays {
  detail::Ids ids;
  detail::WorkTree w;
  detail::TreeCache tree;                // build_work_tree: shape and (user, project) -> leaf
  std::vector<double> leaf_running_js, prior;
  std::vector<uint32_t> running, pending;  // the jobs' indices by kind, ascending
  // intern_ids: how many of ids.job are made (from the last pass's jobs)
  // with these names' tables, for TicketOptions::kept_jobs.
  size_t flat_made = 0;
  std::shared_ptr<const NameTables> flat_names;
  size_t flat_kept = 0;  // this pass's: the first jobs whose flat records are the last pass's
  bool flat_all = false;  // this pass's: every job's flat record is the last pass's, and no other
  // pending_override
  detail::FlatIndex ot_index;
  std::vector<uint32_t> ot_member, ot_cat, ot_off, ot_flat, ot_head;
  std::vector<detail::Key5> ot_keys;  // per override category, its key (scan_pending)
  // scan_pending: how many pending jobs the last scan read, and with which
  // steps (functional, shared override): the kept jobs among them keep what
  // it found.
  size_t scan_made = 0;
  bool scan_fun = false, scan_ovr = false;
  bool scan_all_kept = false;  // this pass's: every pending job's scan is the last pass's, and no other
  // FunctionalPicks::build_categories: the last categories' members
  // (cats_made: how many, 0 = none kept), whether they were dependent, and
  // the priors they were ordered by (per job; dependent only): the same
  // members with the same priors make the same categories.
  size_t cats_made = 0;
  bool cats_dep = false;
  std::vector<double> cats_prior;
  std::vector<uint32_t> cat_key;  // per category: its first member's sub key
  // FunctionalPicks::run: the last functional step's result (every job's
  // ftckt, the priors after it) and what it was computed from besides the
  // jobs and priors (fun_made: valid).  The same jobs (every flat record,
  // running ones too), members, priors and these give the same result.
  bool fun_made = false;
  std::array<double, 5> fun_weights{};  // F and the user, project, department, job weights
  bool fun_shared = false;
  uint32_t fun_picks = 0;
  std::vector<double> fun_ft, fun_prior;
  std::vector<detail::OCand> ot_heap;
  // FunctionalPicks
  detail::BlockIndex cat_index;  // (project, department, -js) -> sub key
  std::vector<uint32_t> cat_bucket, cat_sub, user_off, user_fill;  // per pending job its bucket, sub key; per bucket its range
  std::vector<uint32_t> cat_of, sub_slot, bucket_cat0;  // per job its category (kNoId: none); per sub key; per bucket its first category
  std::vector<detail::SubKey> subs;
  std::vector<detail::MRec> mrecs;                          // the members bucket by bucket
  std::vector<uint8_t> gathered;                            // per bucket: its categories' lists are made
  std::vector<TicketJob> job_form;       // the Job form's TicketJobs
  std::vector<detail::CatRec> cat_recs;
  std::vector<detail::CatInfo> cat_info;
  std::vector<detail::FCand> cat_rank;   // the categories by their first-pick value (FunctionalPicks' batches)
  std::vector<double> rank_val;          // per category: its first-pick value
  std::vector<uint8_t> rank_in;          // per category: in the first batch
  std::vector<double> last_eval;
  std::vector<std::pair<uint32_t, double>> keep;
  std::unique_ptr<detail::TiedScratch> tied = std::make_unique<detail::TiedScratch>();  // TiedGroups' containers
  detail::Cats cats;
  std::vector<uint32_t> head, gather_fill;
  // ShareSort
  std::vector<uint32_t> doff, direct, fill, rfill;
  std::vector<double> st;                // per job: pass-1 share tickets (ShareSort; pass 2 puts the running jobs')
  std::vector<double> ft, ot, p1;        // per job: functional, override tickets, a running job's pass-1 total
  std::vector<int8_t> bound_memo;        // per node: path_compensated (running_pass2)
  bool share_ran = false, use_tree = false;  // the last pass's (job_tickets)
  std::vector<detail::SRec> all, all_running, sort_buf;
  std::vector<size_t> sort_runs;
  std::vector<detail::ShareSortFrame> frames;
  std::vector<int> post;                 // ShareSort: the walk's nodes as it leaves them
  // Per node, the last pass's order of its pending (running) range: the
  // sorted k-th record was at position order[node][k] before the sort.
  std::vector<std::vector<uint32_t>> order, rorder;
  std::vector<uint32_t> saved_idx;
  std::vector<detail::KPos> sort_kpos;  // the radix path's two halves
};

}  // namespace mfprio::gridengine

namespace mfprio::gridengine::detail {

// ge_tickets.cpp: the pass's ids (Pass's constructor); the first `kept`
// jobs' flat records are kept (TicketOptions::kept_jobs) when the arrays
// hold that many made with the same name tables.
void intern_ids(const TicketJob* jobs, size_t n, const Model& m, size_t kept, TicketScratch::Arrays* a);

// ---- one pass: the state the policy steps share --------------------------------------
struct Pass {
  Pass(const TicketJob* js, size_t count, const Model& model, const TicketOptions& o,
       TicketScratch::Arrays& arrays, TicketResult& out)
      : m(model), conf(model.conf), topt(o), WS(conf.weight_tickets_share),
        F(conf.weight_tickets_functional), n(count), shared_f(conf.share_functional_shares), s(arrays),
        ids(interned(js, count, model, o.kept_jobs, arrays)), w(arrays.w), r(out), leaf_running_js(arrays.leaf_running_js),
        run_cnt(ids), running(arrays.running), pending(arrays.pending), prior(arrays.prior) {}
  static const Ids& interned(const TicketJob* js, size_t count, const Model& model, size_t kept,
                             TicketScratch::Arrays& a) {
    intern_ids(js, count, model, kept, &a);
    return a.ids;
  }
  const Model& m;
  const SchedConf& conf;
  const TicketOptions& topt;
  const double WS, F;
  const size_t n;
  const bool shared_f;
  TicketScratch::Arrays& s;
  const Ids& ids;
  WorkTree& w;
  bool use_tree = false;
  TicketResult& r;
  std::vector<double>& leaf_running_js;  // per node: the -js of its running jobs
  Counts run_cnt;                        // running jobs per user, project, department
  FShares run_sum;                       // running jobs' functional shares
  std::vector<uint32_t>& running;        // the jobs' indices by kind, ascending
  std::vector<uint32_t>& pending;
  std::vector<double>& prior;            // tickets of earlier dependent policies
  // Per job, what running_pass2 writes into the result's JobTickets (each
  // step writes 8 bytes a job, not into 48-byte records).
  std::vector<double>&ft = s.ft, &ot = s.ot, &p1 = s.p1, &st = s.st;
  bool share_ran = false;                // ShareSort set st for every job

  // T = ostt(leaf)*WS split by -js (truncated) or evenly over `divisor` jobs.
  double running_share_tickets(const std::vector<ShareNodeState>& nodes, size_t j, uint32_t divisor) const {
    const int leaf = w.job_node[j];
    if (leaf < 0) return 0.0;
    const double T = nodes[leaf].ostt * WS;
    const double sum_js = leaf_running_js[leaf];
    if (sum_js > 0) return std::floor(ids.job[j].js * T / sum_js);  // (u_long) truncation
    return divisor > 0 ? T / divisor : 0.0;
  }
  // The job's functional shares, divided by its objects' job counts (+ extra) when shared.
  FShares job_fshare(const LJob& j, Counts& cnt, double extra) const {
    FShares f = object_fshares(j, ids);
    if (shared_f) {
      f.user = f.user / std::max(1.0, cnt.u(j) + extra);
      if (j.has_p) f.project = f.project / std::max(1.0, cnt.p(j) + extra);
      if (j.has_d) f.dept = f.dept / std::max(1.0, cnt.d(j) + extra);
    }
    return f;
  }
  // the objects' override tickets (over their job counts + extra when shared) plus -ot.
  double override_value(const LJob& j, const Counts& cnt, double extra, bool shared) const {
    double t = 0;
    auto add = [&](double oticket, const std::vector<double>& counts, uint32_t id) {
      if (!(oticket > 0)) return;
      if (!shared) t += oticket;
      else if (counts[id] + extra > 0) t += oticket / (counts[id] + extra);
    };
    add(ids.uot[j.u], cnt.user, j.u);
    if (j.has_p) add(ids.pot[j.p], cnt.project, j.p);
    if (j.has_d) add(ids.dot[j.d], cnt.dept, j.d);
    return t + j.ot;
  }
};

// The policy steps on the pending jobs (compute_tickets runs them in
// policy_hierarchy order).  ge_override.cpp: the one read of the pending
// jobs before the steps, and the override step; ge_functional.cpp: the
// functional step; ge_share_sort.cpp: the share-tree step.
void scan_pending(Pass& p);
void pending_override(Pass& p, const PolicyStep& step);
void functional_step(Pass& p, const PolicyStep& step);
void share_tree_step(Pass& p, const PolicyStep& step);

}  // namespace mfprio::gridengine::detail
