// ge_functional.cpp - the pending functional step (8.1.9's EE functional
// pending pass): the categories and the greedy picks (FunctionalPicks), and
// the picks with tied categories grouped (TiedGroups).  The shared types
// are in ge_tickets_pass.hpp.
#include "ge_tickets_pass.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

namespace mfprio::gridengine::detail {
namespace {

constexpr size_t kRest = SIZE_MAX;   // FCand::c of the entry standing for the categories not yet in a heap
constexpr size_t kStale = SIZE_MAX;  // FCand::at of an entry computed at no pick

// ---- pending functional tickets -----------------------------------------------

// EE functional pending pass: categories, greedy picks.  Only the picks
// need a category's members in order, and at most
// max_functional_jobs_to_schedule of them are taken: a category is kept as
// its size and first job; the picks' heaps start from the categories'
// values at the first pick (upper bounds of their later ones) and take the
// best of them first, the rest standing as one entry (their best value, then
// a bound at each pick's sums), so while no category of the rest can win
// none is in a heap; when one may, all of the rest join, in category order.
class FunctionalPicks {
 public:
  FunctionalPicks(Pass& p, const PolicyStep& step)
      : p_(p), jobs_(p.ids.job), ids_(p.ids), step_(step), wp_(functional_weights(p.conf, true, true, true, true)),
        cnt_(p.run_cnt), sum_(p.run_sum), recs_(p.s.cat_recs), info_(p.s.cat_info), rank_(p.s.cat_rank),
        cats_(p.s.cats), head_(p.s.head) {}
  void run() {
    build_categories();
    if (kept_result()) return;
    max_picks_ = std::min<size_t>(p_.conf.max_functional_jobs_to_schedule, members_);
    head_.assign(recs_.size(), 0);
    if (max_picks_ > 0) {
      rank_categories();
      if (!p_.topt.group_tied_categories) pick_each();
      else pick_grouped();
    }
    finish();
    keep_result();
  }

 private:
  // What the functional result is computed from besides the jobs, members
  // and priors: F, the weights, shared or not, the picks.
  std::array<double, 5> weights() const {
    const SchedConf& c = p_.conf;
    return {c.weight_tickets_functional, c.weight_user, c.weight_project, c.weight_department, c.weight_job};
  }
  void keep_result() {
    TicketScratch::Arrays& s = p_.s;
    s.fun_made = true;
    s.fun_weights = weights();
    s.fun_shared = p_.shared_f;
    s.fun_picks = p_.conf.max_functional_jobs_to_schedule;
    s.fun_ft.assign(p_.ft.begin(), p_.ft.end());
    if (step_.dependent) s.fun_prior.assign(p_.prior.begin(), p_.prior.end());  // (else the step leaves them)
  }
  // The last step's result again (every job's ftckt; dependent, the priors
  // after it) when it was computed from the same: every job's flat record
  // the last pass's (the running ones' counts and sums), the categories kept
  // (the same members and priors, the same dependence: kept_categories), the
  // same weights, sharing and picks.
  bool kept_result() {
    TicketScratch::Arrays& s = p_.s;
    const bool same = cats_kept_ && s.flat_all && s.fun_made && s.fun_ft.size() == p_.n &&
                      (!step_.dependent || s.fun_prior.size() == p_.n) && std::memcmp(s.fun_weights.data(), weights().data(),
                                                                sizeof(double) * s.fun_weights.size()) == 0 &&
                      s.fun_shared == p_.shared_f && s.fun_picks == p_.conf.max_functional_jobs_to_schedule;
    s.fun_made = false;  // (until this step's is made or kept)
    if (!same) return false;
    std::copy(s.fun_ft.begin(), s.fun_ft.end(), p_.ft.begin());
    if (step_.dependent) std::copy(s.fun_prior.begin(), s.fun_prior.end(), p_.prior.begin());
    s.fun_made = true;
    return true;
  }

  // Grouped per user (counting sort on the dense user ids), then per user
  // by a small direct table: the picks do not depend on the categories'
  // order (a pick is the largest value, ties to the earlier job, and jobs
  // are distinct).  Key: the user id, then the project and department ids
  // (kNoId: not in the key; a positive fshare means a named object, so
  // kNoId never stands for a name) and -js, these three numbered once per
  // pass (a sub key: few distinct).  The jobs are read twice in pending
  // order, the second time into 32-byte records (MRec, bucket by bucket),
  // so no later step of the grouping reads a job at random.  Per category
  // its size, first job (CatRec) and CatInfo; per job its category (cat_of).
  void build_categories() {
    const std::vector<uint32_t>& pending = p_.pending;
    const uint32_t none = static_cast<uint32_t>(ids_.uo.size());  // the bucket of jobs with no user share
    std::vector<uint32_t>& off = p_.s.user_off;
    const std::vector<uint32_t>&bucket = p_.s.cat_bucket, &subq = p_.s.cat_sub;
    for (size_t b = 0; b <= none; ++b) off[b + 1] += off[b];
    members_ = off[static_cast<size_t>(none) + 1];
    if (kept_categories(none)) return;
    std::vector<MRec>& recs = p_.s.mrecs;
    recs.resize(members_);
    std::vector<uint32_t>& fill = p_.s.user_fill;
    fill.assign(off.begin(), off.end() - 1);
    const bool dep = step_.dependent;
    const double* prior = p_.prior.data();
    for (size_t q = 0; q < pending.size(); ++q) {
      const uint32_t b = bucket[q];
      if (b == UINT32_MAX) continue;
      const size_t j = pending[q];
      recs[fill[b]++] = MRec{dep ? prior[j] : 0.0, jobs_[j].submit, jobs_[j].id, static_cast<uint32_t>(j), subq[q]};
    }
    categories(none);
    p_.s.cats_made = members_;
    p_.s.cats_dep = dep;
    if (dep) p_.s.cats_prior.assign(p_.prior.begin(), p_.prior.end());
  }
  // The last pass's categories, when its members are this pass's: every
  // pending job's scan kept (the same jobs, buckets and sub keys, in the
  // same order) and, when dependent, the same priors (bit for bit): then
  // the member records, the categories, their first jobs and each job's
  // category are what build_categories would make again; only their
  // CatInfo (which points into this pass's counts) is made again.
  bool kept_categories(uint32_t none) {
    TicketScratch::Arrays& s = p_.s;
    const bool dep = step_.dependent;
    const bool same = s.scan_all_kept && s.cats_made == members_ && members_ > 0 && s.cats_dep == dep &&
                      s.mrecs.size() == members_ && s.cat_key.size() == recs_.size() &&
                      (!dep || (s.cats_prior.size() == p_.prior.size() &&
                                std::memcmp(s.cats_prior.data(), p_.prior.data(),
                                            p_.prior.size() * sizeof(double)) == 0));
    s.cats_made = 0;  // (until this pass's are made or kept)
    if (!same) return false;
    info_.clear();
    if (plain_shares()) {
      for (const CatRec& r : recs_)
        info_.push_back(info_of(r.bucket == none ? kNoId : r.bucket, s.subs[s.cat_key[&r - recs_.data()]]));
    } else {
      for (const CatRec& r : recs_) info_.push_back(info_of(jobs_[r.head]));
    }
    s.gathered.assign(static_cast<size_t>(none) + 1, 0);
    s.cats_made = members_;
    cats_kept_ = true;
    return true;
  }
  // Every object's fshare >= 0 (a negative or NaN one is not a key's).
  bool plain_shares() const {
    bool plain = true;
    for (const std::vector<double>* fs : {&ids_.ufs, &ids_.pfs, &ids_.dfs})
      for (const double x : *fs) plain = plain && x >= 0;
    return plain;
  }
  // Per bucket: its categories, numbered in order of first member (a
  // direct table by sub key, its used slots cleared after the bucket).
  void categories(uint32_t none) {
    const std::vector<uint32_t>& off = p_.s.user_off;
    std::vector<MRec>& recs = p_.s.mrecs;
    std::vector<uint32_t>& cat_of = p_.s.cat_of;
    std::vector<uint32_t>& slot = p_.s.sub_slot;
    slot.assign(p_.s.subs.size(), kNoId);
    std::vector<uint32_t>& cat0 = p_.s.bucket_cat0;
    cat0.assign(static_cast<size_t>(none) + 2, 0);
    recs_.clear();
    info_.clear();
    p_.s.cat_key.clear();
    // A negative or NaN fshare is not a key's (kNoId) but counts in the
    // value: then each category's first job's objects (in its order), as read.
    const bool plain = plain_shares();
    for (uint32_t b = 0; b <= none; ++b) {
      cat0[b] = static_cast<uint32_t>(recs_.size());
      const uint32_t lo = off[b], hi = off[b + 1], c0 = cat0[b];
      for (uint32_t q = lo; q < hi; ++q) {
        MRec& x = recs[q];
        uint32_t& c = slot[x.sub];
        if (c == kNoId || c < c0) {  // a slot set in an earlier bucket is stale
          c = static_cast<uint32_t>(recs_.size());
          recs_.push_back(CatRec{x.prior, x.submit, x.id, x.j, 1, b});
          p_.s.cat_key.push_back(x.sub);
          if (plain) info_.push_back(info_of(b == none ? kNoId : b, p_.s.subs[x.sub]));
        } else {
          CatRec& r = recs_[c];
          ++r.n;
          if (x.prior > r.prior || (x.prior == r.prior && (x.submit < r.submit || (x.submit == r.submit && x.id < r.id)))) {
            r.prior = x.prior;
            r.submit = x.submit;
            r.id = x.id;
            r.head = x.j;
          }
        }
        x.sub = c;  // from here on: its category
        cat_of[x.j] = c;
      }
    }
    cat0[static_cast<size_t>(none) + 1] = static_cast<uint32_t>(recs_.size());
    if (!plain)
      for (const CatRec& r : recs_) info_.push_back(info_of(jobs_[r.head]));
    cats_.off.resize(recs_.size() + 1);
    cats_.off[0] = 0;
    for (size_t c = 0; c < recs_.size(); ++c) cats_.off[c + 1] = cats_.off[c] + recs_[c].n;
    cats_.flat.resize(members_);
    p_.s.gathered.assign(static_cast<size_t>(none) + 1, 0);
  }
  // A category's CatInfo from its first job.
  CatInfo info_of(const LJob& l) {
    CatInfo ci;
    ci.share = object_fshares(l, ids_);
    ci.user = l.u;
    if (ci.share.user != 0) ci.u = &cnt_.user[l.u];
    if (ci.share.project != 0 && l.has_p) ci.p = &cnt_.project[l.p];
    if (ci.share.dept != 0 && l.has_d) ci.d = &cnt_.dept[l.d];
    return ci;
  }
  // The same from its key when every fshare is >= 0 (an object outside the
  // key has fshare 0, as has the user of the no-user-share bucket; a
  // positive fshare names an object: has_p, has_d).
  CatInfo info_of(uint32_t u, const SubKey& k) {
    CatInfo ci;
    ci.share = FShares{u == kNoId ? 0.0 : ids_.ufs[u], k.p == kNoId ? 0.0 : ids_.pfs[k.p],
                       k.d == kNoId ? 0.0 : ids_.dfs[k.d], k.js};
    ci.user = u == kNoId ? 0 : u;
    if (ci.share.user != 0) ci.u = &cnt_.user[u];
    if (ci.share.project != 0) ci.p = &cnt_.project[k.p];
    if (ci.share.dept != 0) ci.d = &cnt_.dept[k.d];
    return ci;
  }

  // The ordered members of bucket b's categories (at the first take from
  // one): prior tickets desc when dependent, then earlier (submit, id).
  void gather(uint32_t b) {
    std::vector<uint8_t>& done = p_.s.gathered;
    if (done[b]) return;
    done[b] = 1;
    const uint32_t c0 = p_.s.bucket_cat0[b], c1 = p_.s.bucket_cat0[b + 1];
    const std::vector<MRec>& recs = p_.s.mrecs;
    std::vector<uint32_t>& fill = p_.s.gather_fill;
    fill.assign(cats_.off.begin() + c0, cats_.off.begin() + c1);
    for (uint32_t q = p_.s.user_off[b]; q < p_.s.user_off[b + 1]; ++q) cats_.flat[fill[recs[q].sub - c0]++] = recs[q].j;
    const bool dep = step_.dependent;
    const double* prior = p_.prior.data();
    const auto less = [&](uint32_t a, uint32_t x) {
      if (dep && prior[a] != prior[x]) return prior[a] > prior[x];
      if (jobs_[a].submit != jobs_[x].submit) return jobs_[a].submit < jobs_[x].submit;
      return jobs_[a].id < jobs_[x].id;
    };
    for (uint32_t c = c0; c < c1; ++c) {
      const auto first = cats_.flat.begin() + cats_.off[c], last = cats_.flat.begin() + cats_.off[c + 1];
      // Members in pending order are often in this order already.
      if (last - first >= 2 && !std::is_sorted(first, last, less)) mfprio::stable_order(first, last, less);
    }
  }
  // Category c's next job (its first until a pick takes from it).
  size_t cur(size_t c) const { return head_[c] == 0 ? recs_[c].head : cats_.flat[cats_.off[c] + head_[c]]; }
  bool remaining(size_t c) const { return head_[c] < recs_[c].n; }

  // Per category its value at the first pick (rank_, and by category in
  // rank_val); the batches start with the best 4 * max_picks (at least 1024).
  void rank_categories() {
    rank_.resize(recs_.size());
    std::vector<double>& val = p_.s.rank_val;
    val.resize(recs_.size());
    for (size_t c = 0; c < recs_.size(); ++c) {
      const CatRec& r = recs_[c];
      val[c] = eval(c) + (step_.dependent ? r.prior : 0);
      rank_[c] = FCand{val[c], r.submit, r.id, c, 0};
    }
    next_ = 0;
    batch_ = p_.topt.functional_batch ? p_.topt.functional_batch : std::max<size_t>(1024, 4 * max_picks_);
  }
  // The next batch of categories for a heap, rank_[*b, *e) (the first: the
  // best by rank; the second: all the others), and whether any are left
  // after it (*rest: their best value, submit and id, an upper bound of
  // theirs at any later pick, as values only fall and their next jobs stay
  // their first; rest_max_, rest_prior_ for rest_bound).  A second batch of
  // the best of the rest again would be ranked by the first pick's values,
  // which the bench's queue shows can be far from later ones (a first pick
  // in a department none of the running jobs had divides every department
  // term by ~10^4): its rest then tops the heap batch after batch.
  bool next_batch(size_t* b, size_t* e, FCand* rest) {
    const auto better = [](const FCand& a, const FCand& x) { return fworse(x, a); };
    std::vector<uint8_t>& in_first = p_.s.rank_in;  // per category: in the first batch
    const bool first = next_ == 0;
    const size_t k = first ? std::min(batch_, rank_.size()) : rank_.size() - next_;
    if (first) {
      // nth_element leaves the best of the rest at the batch's end.
      if (k < rank_.size())
        std::nth_element(rank_.begin(), rank_.begin() + static_cast<std::ptrdiff_t>(k), rank_.end(), better);
      in_first.assign(recs_.size(), 0);
      for (size_t q = 0; q < k; ++q) in_first[rank_[q].c] = 1;
    } else {  // the second: the others in ascending category (read in order, not at random)
      const std::vector<double>& val = p_.s.rank_val;
      size_t q = next_;
      for (size_t c = 0; c < recs_.size(); ++c)
        if (!in_first[c]) rank_[q++] = FCand{val[c], recs_[c].submit, recs_[c].id, c, 0};
    }
    *b = next_;
    next_ += k;
    *e = next_;
    if (next_ == rank_.size()) return false;
    rest_max_ = FShares{};
    rest_prior_ = 0;
    for (size_t c = 0; c < recs_.size(); ++c) {  // the rest, in category order
      if (in_first[c]) continue;
      const FShares f = divided_share(c);
      rest_max_.user = std::max(rest_max_.user, f.user);
      rest_max_.project = std::max(rest_max_.project, f.project);
      rest_max_.dept = std::max(rest_max_.dept, f.dept);
      rest_max_.job = std::max(rest_max_.job, f.job);
      if (step_.dependent) rest_prior_ = std::max(rest_prior_, recs_[c].prior);
    }
    *rest = FCand{rank_[next_].v, rank_[next_].submit, rank_[next_].id, kRest, kStale};
    return true;
  }
  // Category c's shares as eval() divides them now (shared: an object's
  // fshare over its count + 1; the counts only grow, so later ones are
  // at most these).
  FShares divided_share(size_t c) const {
    const CatInfo& ci = info_[c];
    FShares f = ci.share;
    if (p_.shared_f) {
      if (ci.u) f.user /= *ci.u + 1;
      if (ci.p) f.project /= *ci.p + 1;
      if (ci.d) f.dept /= *ci.d + 1;
    }
    return f;
  }
  // The rest's entry at this pick: an upper bound of every remaining
  // category's value now (each term at its largest share among them over
  // the sums now, which only grow, plus their largest prior; a little
  // slack over rounding), winning every tie.  It tops the heap as computed
  // at this pick only when some category of the rest may beat the heap.
  FCand rest_bound(size_t pick) const {
    const double v = pending_functional_value(wp_, rest_max_, sum_, nullptr, nullptr, nullptr, p_.shared_f, p_.F);
    const double bound = (v + (step_.dependent ? rest_prior_ : 0)) * (1 + 1e-9) + 1e-300;
    return FCand{bound, std::numeric_limits<int64_t>::min(), 0, kRest, pick};
  }

  // calc_intern_pending_job_functional_tickets: category c's value as if
  // its next job started now.
  double eval(size_t c) const {
    const CatInfo& ci = info_[c];
    return pending_functional_value(wp_, ci.share, sum_, ci.u, ci.p, ci.d, p_.shared_f, p_.F);
  }
  double value_now(size_t c) const { return eval(c) + (step_.dependent ? p_.prior[cur(c)] : 0); }
  FCand fcand(double v, size_t c, size_t at) const {
    const LJob& jb = jobs_[cur(c)];
    return FCand{v, jb.submit, jb.id, c, at};
  }

  // The winner (job j of category best_c) counts as running; the sums take
  // it in (shared: an object's fshare once), and its tickets are recomputed
  // without the +0.001.
  void take(size_t best_c) {
    if (head_[best_c] == 0 && recs_[best_c].n > 1) gather(recs_[best_c].bucket);
    const size_t j = cur(best_c);
    ++head_[best_c];
    const LJob& jb = jobs_[j];
    const FShares f = object_fshares(jb, ids_);
    cnt_.add(jb);
    if (p_.shared_f) {
      if (cnt_.u(jb) == 1) sum_.user += f.user;
      if (jb.has_p && cnt_.p(jb) == 1) sum_.project += f.project;
      if (jb.has_d && cnt_.d(jb) == 1) sum_.dept += f.dept;
    } else {
      sum_.user += f.user;
      sum_.project += f.project;
      sum_.dept += f.dept;
    }
    sum_.job += f.job;
    const double ft = functional_value(wp_, p_.job_fshare(jb, cnt_, 0), sum_, p_.F);
    p_.ft[j] = ft;
    taken_.push_back(Taken{static_cast<uint32_t>(j), ft, p_.prior[j]});
  }
  // The last pick evaluates every category still holding jobs (the
  // winner's too): members never picked get that evaluation.
  void last_evals() {
    have_last_ = true;
    std::vector<double>& last = p_.s.last_eval;
    last.resize(recs_.size());
    for (size_t c = 0; c < recs_.size(); ++c)
      if (remaining(c)) last[c] = eval(c);
  }

  // Members never picked copy their category's last evaluation
  // (destribute_ftickets).  A later dependent policy sorts on these tickets
  // (8.1.9 sge_calc_tickets): every picked job's, and of a category that
  // still holds jobs every member's but its first remaining one's, which
  // keeps its prior for that sort (its ftckt is reported all the same).
  // Jobs in no category have 0 functional tickets.  In pending order: every
  // member's value and prior, then the picked jobs' and the first remaining
  // ones' put right.
  void finish() {
    const bool dep = step_.dependent;
    std::vector<double>& prior = p_.prior;
    std::vector<std::pair<uint32_t, double>>& keep = p_.s.keep;  // the first remaining jobs and their priors
    keep.clear();
    if (dep) {  // (an untaken category's first job's prior is in its CatRec)
      for (size_t c = 0; c < recs_.size(); ++c) {
        if (head_[c] == 0) keep.emplace_back(recs_[c].head, recs_[c].prior);
        else if (remaining(c)) keep.emplace_back(static_cast<uint32_t>(cur(c)), prior[cur(c)]);
      }
    }
    const std::vector<uint32_t>& pending = p_.pending;
    const std::vector<uint32_t>& cat_of = p_.s.cat_of;
    const std::vector<double>& last = p_.s.last_eval;
    for (const size_t j : pending) {
      const uint32_t c = cat_of[j];
      if (c == kNoId) continue;
      const double ft = have_last_ ? last[c] : 0.0;
      p_.ft[j] = ft;
      if (dep) prior[j] += ft;
    }
    for (const Taken& t : taken_) {
      p_.ft[t.j] = t.ft;
      if (dep) prior[t.j] = t.prior + t.ft;
    }
    for (const auto& [j, pr] : keep) prior[j] = pr;
  }

  // Each pick is the category with the largest value (ft + prior of its
  // next job), ties to the earlier job.  Every pick only adds to the sums
  // and counts (fshares and -js are >= 0), so no value ever grows: a lazy
  // max-heap of possibly stale values gives the same picks as evaluating
  // every category at each pick.  Pop the top; if its value was computed at
  // this pick it beats every other entry's stale (upper-bound) value; else
  // recompute it and push it back; the entry of the categories not yet in
  // the heap is replaced by the next batch.  One heap entry per category
  // (the reference for pick_grouped).
  void pick_each() {
    std::vector<FCand> fheap;
    auto add_batch = [&] {
      size_t b = 0, e = 0;
      FCand rest{};
      const bool more = next_batch(&b, &e, &rest);
      for (size_t k = b; k < e; ++k) fheap.push_back(rank_[k]);
      if (more) fheap.push_back(rest);
      std::make_heap(fheap.begin(), fheap.end(), FWorse{});
    };
    add_batch();
    for (size_t pick = 0; pick < max_picks_ && !fheap.empty(); ++pick) {
      for (;;) {
        std::pop_heap(fheap.begin(), fheap.end(), FWorse{});
        FCand& top = fheap.back();
        if (top.c == kRest) {
          if (top.at != pick) {  // stale: its bound at this pick first
            top = rest_bound(pick);
            std::push_heap(fheap.begin(), fheap.end(), FWorse{});
            continue;
          }
          fheap.pop_back();
          add_batch();
          continue;
        }
        if (top.at == pick) break;
        top.v = value_now(top.c);
        top.at = pick;
        std::push_heap(fheap.begin(), fheap.end(), FWorse{});
      }
      const size_t best_c = fheap.back().c;
      fheap.pop_back();
      if (pick + 1 == max_picks_) last_evals();
      take(best_c);
      // Its next job: a new value at the next pick (stale bound: +inf would
      // do; the current value is one, as values only fall).
      if (remaining(best_c)) {
        fheap.push_back(fcand(value_now(best_c), best_c, pick + 1));
        std::push_heap(fheap.begin(), fheap.end(), FWorse{});
      }
    }
  }

  void pick_grouped();
  friend class TiedGroups;

  struct Taken {
    uint32_t j;
    double ft, prior;  // its ftckt, its prior before the step
  };

  Pass& p_;
  const std::vector<LJob>& jobs_;
  const Ids& ids_;
  const PolicyStep step_;
  const std::array<double, 4> wp_;
  Counts cnt_;
  FShares sum_;
  std::vector<CatRec>& recs_;
  std::vector<CatInfo>& info_;
  std::vector<FCand>& rank_;
  Cats& cats_;
  std::vector<uint32_t>& head_;
  std::vector<Taken> taken_;
  FShares rest_max_;          // next_batch: the rest's largest divided shares,
  double rest_prior_ = 0;     // and their categories' first jobs' largest prior
  size_t members_ = 0, max_picks_ = 0, next_ = 0, batch_ = 0;
  bool cats_kept_ = false;  // build_categories kept the last pass's (kept_categories)
  bool have_last_ = false;
};

// The functional picks with tied categories grouped.  A category's value is
// a function of its user's fshare over (count + 1) (shared) or the fshare,
// its project and department objects (their counts are shared by every
// category naming them), its -js and its next job's prior: categories equal
// in these have bit-identical values at every pick, so one group entry
// stands for all of them, its best member the earliest next job (submit,
// id).  A pick moves only the winner (its next job) and the other categories
// of the winner's user (the user's count changed).  The groups sit in the
// same lazy max-heap as pick_each's; an entry is an upper bound of its
// group's (value, earliest job) and is exact when computed at this pick for
// the group's current best member.  A category joining a group may improve
// the group's best member: the join pushes a fresh upper bound (+inf) for
// that group.  Categories join in pick_each's batches (the rest one entry).
class TiedGroups {
 public:
  explicit TiedGroups(FunctionalPicks& f)
      : f_(f), groups_(f.p_.s.tied->groups), group_of_(f.p_.s.tied->group_of), gen_(f.p_.s.tied->gen),
        gheap_(f.p_.s.tied->gheap), ucat_first_(f.p_.s.tied->ucat_first), ucat_next_(f.p_.s.tied->ucat_next) {
    group_of_.reset(std::min(f.recs_.size(), 2 * f.batch_));
    gen_.assign(f.recs_.size(), 0);
    gheap_.clear();
    if (f.p_.shared_f) {
      ucat_first_.assign(f.ids_.uo.size(), kNoId);
      ucat_next_.resize(f.recs_.size());
    }
  }

  void run() {
    size_t b = 0, e = 0;
    FCand rest{};
    const bool more = f_.next_batch(&b, &e, &rest);
    for (size_t k = b; k < e; ++k) add(f_.rank_[k].c, false, /*bulk=*/true);
    for (size_t g = 0; g < ngroups_; ++g) std::make_heap(groups_[g].members.begin(), groups_[g].members.end(), later);
    gheap_.reserve(ngroups_ + 64);
    for (size_t g = 0; g < ngroups_; ++g) {
      const Member& m0 = groups_[g].members.front();
      gheap_.push_back(FCand{group_value(groups_[g]), m0.submit, m0.id, g, 0});
    }
    if (more) gheap_.push_back(rest);
    std::make_heap(gheap_.begin(), gheap_.end(), FWorse{});
    for (size_t pick = 0; pick < f_.max_picks_; ++pick) {
      size_t g = 0;
      const Member* m = top(pick, &g);
      if (!m) break;
      const size_t best_c = m->c;
      if (pick + 1 == f_.max_picks_) f_.last_evals();
      f_.take(best_c);
      ++gen_[best_c];
      // The group keeps its other members: a bound for them.
      push_bound(g);
      if (f_.p_.shared_f && f_.info_[best_c].u) {
        for (uint32_t c2 = ucat_first_[f_.info_[best_c].user]; c2 != kNoId; c2 = ucat_next_[c2]) {
          if (c2 == best_c || !f_.remaining(c2)) continue;
          ++gen_[c2];
          join(c2, true);
        }
      }
      if (f_.remaining(best_c)) join(best_c, true);
    }
  }

 private:
  using Member = TiedMember;
  using Group = TiedGroup;
  static bool later(const Member& a, const Member& b) {  // min-heap on (submit, id)
    if (a.submit != b.submit) return a.submit > b.submit;
    return a.id > b.id;
  }

  // What a category's join reads (joining(): its group key now, base
  // shares and next job).
  struct Joining {
    Key5 key;
    FShares base;
    double prior = 0;
    int64_t submit = 0;
    uint64_t id = 0;
  };
  // A category's first join: listed under its user when its value reads
  // the user's count.
  uint32_t add(size_t c, bool bound, bool bulk = false, const Joining* x = nullptr) {
    if (f_.p_.shared_f && f_.info_[c].u) {
      const uint32_t u = f_.info_[c].user;
      ucat_next_[c] = ucat_first_[u];
      ucat_first_[u] = static_cast<uint32_t>(c);
    }
    return x ? join(c, *x, bound, bulk) : join(c, joining(c), bound, bulk);
  }
  void push_bound(size_t g) {
    gheap_.push_back(FCand{std::numeric_limits<double>::infinity(), 0, 0, g, kStale});
    std::push_heap(gheap_.begin(), gheap_.end(), FWorse{});
  }
  // Category c's group key now, its base shares and its next job (the
  // prior does not change during the picks).  A category not taken from
  // yet is read from its CatRec alone (a batch joins categories in order: no
  // job read at random); its project and department ids are its counts'
  // places.
  Joining joining(size_t c) const {
    const CatInfo& ci = f_.info_[c];
    Joining x;
    if (f_.head_[c] == 0) {
      const CatRec& r = f_.recs_[c];
      x.submit = r.submit;
      x.id = r.id;
      x.prior = r.prior;  // 0 when independent
    } else {
      const size_t j = f_.cur(c);
      x.submit = f_.jobs_[j].submit;
      x.id = f_.jobs_[j].id;
      x.prior = f_.step_.dependent ? f_.p_.prior[j] : 0.0;
    }
    x.base = ci.share;
    if (f_.p_.shared_f && ci.u) x.base.user /= *ci.u + 1;
    const uint64_t pid = ci.p ? static_cast<uint64_t>(ci.p - f_.cnt_.project.data()) : kNoId;
    const uint64_t did = ci.d ? static_cast<uint64_t>(ci.d - f_.cnt_.dept.data()) : kNoId;
    x.key = Key5{{dbits(x.base.user), pid, did, dbits(x.base.job), dbits(x.prior)}};
    return x;
  }
  // bound: push a fresh upper bound for the group (not while the first
  // groups are built: the heap is made once from them afterwards).
  uint32_t join(size_t c, bool bound) { return join(c, joining(c), bound, false); }
  // bulk: the member is appended only (the batch's joins make each touched
  // group's heap once, in linear time, after the batch).
  uint32_t join(size_t c, const Joining& x, bool bound, bool bulk) {
    const CatInfo& ci = f_.info_[c];
    bool added = false;
    const uint32_t gi = group_of_.insert(x.key, static_cast<uint32_t>(ngroups_), &added);
    if (added) {
      if (ngroups_ == groups_.size()) groups_.emplace_back();
      Group& g = groups_[ngroups_++];
      g.base = x.base;
      g.p = ci.p;
      g.d = ci.d;
      g.prior = x.prior;
      g.members.clear();
    }
    Group& g = groups_[gi];
    g.members.push_back(Member{x.submit, x.id, static_cast<uint32_t>(c), gen_[c]});
    if (!bulk) std::push_heap(g.members.begin(), g.members.end(), later);
    if (bound) push_bound(gi);
    return gi;
  }
  // The group's best live member, nullptr when it has none.
  const Member* best(Group& g) {
    while (!g.members.empty() && g.members.front().gen != gen_[g.members.front().c]) {
      std::pop_heap(g.members.begin(), g.members.end(), later);
      g.members.pop_back();
    }
    return g.members.empty() ? nullptr : &g.members.front();
  }
  // eval() for every member of the group (same operations, same operands:
  // the base's user share is divided already).
  double group_value(const Group& g) const {
    return pending_functional_value(f_.wp_, g.base, f_.sum_, nullptr, g.p, g.d, f_.p_.shared_f, f_.p_.F) +
           (f_.step_.dependent ? g.prior : 0);
  }
  // The next batch joins while pick `pick` is chosen (the rest's entry
  // topped the heap): each group it touched gets one entry, exact at this
  // pick for its best member (not a bound per category: a batch is up to
  // half the categories), then the rest's entry if any are left.
  void add_batch(size_t pick) {
    size_t b = 0, e = 0;
    FCand rest{};
    const bool more = f_.next_batch(&b, &e, &rest);
    touched_.clear();
    // The group places of the categories this far on, fetched ahead (their
    // keys kept for their joins: nothing a join changes goes into a key).
    constexpr size_t kAhead = 8;
    std::array<Joining, kAhead> ahead;
    for (size_t k = b; k < std::min(b + kAhead, e); ++k) {
      ahead[k % kAhead] = joining(f_.rank_[k].c);
      group_of_.prefetch(ahead[k % kAhead].key);
    }
    for (size_t k = b; k < e; ++k) {
      const Joining x = ahead[k % kAhead];
      if (k + kAhead < e) {
        ahead[k % kAhead] = joining(f_.rank_[k + kAhead].c);
        group_of_.prefetch(ahead[k % kAhead].key);
      }
      const uint32_t gi = add(f_.rank_[k].c, false, /*bulk=*/true, &x);
      if (stamp_.size() < ngroups_) stamp_.resize(ngroups_, 0);
      if (stamp_[gi] != batch_stamp_ + 1) {
        stamp_[gi] = batch_stamp_ + 1;
        touched_.push_back(gi);
      }
    }
    ++batch_stamp_;
    for (const uint32_t gi : touched_) std::make_heap(groups_[gi].members.begin(), groups_[gi].members.end(), later);
    for (const uint32_t gi : touched_) {
      const Member* m = best(groups_[gi]);
      if (!m) continue;
      gheap_.push_back(FCand{group_value(groups_[gi]), m->submit, m->id, gi, pick});
      std::push_heap(gheap_.begin(), gheap_.end(), FWorse{});
    }
    if (more) {
      gheap_.push_back(rest);
      std::push_heap(gheap_.begin(), gheap_.end(), FWorse{});
    }
  }
  // This pick's winner: the group whose exact value tops the heap (*g), its
  // best member; the rest's entry on top joins the next batch.
  const Member* top(size_t pick, size_t* g) {
    while (!gheap_.empty()) {
      std::pop_heap(gheap_.begin(), gheap_.end(), FWorse{});
      const FCand t = gheap_.back();
      gheap_.pop_back();
      if (t.c == kRest) {
        if (t.at != pick) {  // stale: its bound at this pick first
          gheap_.push_back(f_.rest_bound(pick));
          std::push_heap(gheap_.begin(), gheap_.end(), FWorse{});
          continue;
        }
        add_batch(pick);
        continue;
      }
      *g = t.c;
      const Member* m = best(groups_[*g]);
      if (!m) continue;  // emptied: dropped
      if (t.at == pick && t.submit == m->submit && t.id == m->id) return m;
      gheap_.push_back(FCand{group_value(groups_[*g]), m->submit, m->id, *g, pick});
      std::push_heap(gheap_.begin(), gheap_.end(), FWorse{});
    }
    return nullptr;  // unreachable: max_picks <= pending jobs in categories
  }

  FunctionalPicks& f_;
  std::vector<Group>& groups_;
  size_t ngroups_ = 0;
  FlatIndex& group_of_;
  std::vector<uint32_t>& gen_;
  std::vector<FCand>& gheap_;
  std::vector<uint32_t>&ucat_first_, &ucat_next_;
  std::vector<uint32_t> touched_, stamp_;  // add_batch's groups (stamp_: per group, the batch that touched it + 1)
  uint32_t batch_stamp_ = 0;
};

void FunctionalPicks::pick_grouped() { TiedGroups(*this).run(); }

}  // namespace

void functional_step(Pass& p, const PolicyStep& step) { FunctionalPicks(p, step).run(); }

}  // namespace mfprio::gridengine::detail
