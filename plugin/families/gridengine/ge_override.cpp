// ge_override.cpp - the one read of the pending jobs before the policy
// steps (scan_pending: the functional buckets and sub keys, the override
// categories) and the pending override step (pending_override, 8.1.9's
// shared override rounds).  The shared types are in ge_tickets_pass.hpp.
#include "ge_tickets_pass.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace mfprio::gridengine::detail {
namespace {

inline bool oworse(const OCand& a, const OCand& b) {
  if (a.v != b.v) return a.v < b.v;
  return a.id > b.id;
}

// What scan_pending found for the first `kept` pending places, as the last
// scan left it (the same jobs in the same order number the same sub keys
// and override categories first): the buckets counted, the sub keys and
// override categories they numbered indexed again, the others dropped.
void keep_scanned(TicketScratch::Arrays& s, const std::vector<uint32_t>& pending, size_t kept, bool fun) {
  size_t subs = 0;
  for (size_t q = 0; q < (fun ? kept : 0); ++q) {
    const uint32_t b = s.cat_bucket[q];
    if (b == UINT32_MAX) continue;
    ++s.user_off[b + 1];
    subs = std::max<size_t>(subs, s.cat_sub[q] + 1);
  }
  s.subs.resize(subs);
  s.cat_index.begin(std::max<size_t>(64, subs));
  for (size_t k = 0; k < subs; ++k) {
    const SubKey& x = s.subs[k];
    bool added = false;
    s.cat_index.insert((static_cast<uint64_t>(x.p) << 32) | x.d, dbits(x.js), static_cast<uint32_t>(k), &added);
  }
  // The override members are in pending order (ascending): those of the kept places first.
  const size_t members =
      kept == 0 ? 0
                : static_cast<size_t>(std::upper_bound(s.ot_member.begin(), s.ot_member.end(), pending[kept - 1]) -
                                      s.ot_member.begin());
  size_t cats = 0;
  for (size_t k = 0; k < members; ++k) cats = std::max<size_t>(cats, s.ot_cat[k] + 1);
  s.ot_member.resize(members);
  s.ot_cat.resize(members);
  s.ot_keys.resize(cats);
  s.ot_index.reset(std::max(s.ot_off.size(), cats));
  s.ot_off.assign(cats + 1, 0);
  for (size_t c = 0; c < cats; ++c) {
    bool added = false;
    s.ot_index.insert(s.ot_keys[c], static_cast<uint32_t>(c), &added);
  }
  for (size_t k = 0; k < members; ++k) ++s.ot_off[s.ot_cat[k] + 1];
}

}  // namespace

// One read of the pending jobs, in pending order, for the shared override
// rounds and the functional categories, before the policy steps (none of it
// reads a prior): per job its functional bucket (its user with a
// user share, else the no-user-share bucket; UINT32_MAX and cat_of kNoId:
// in no category) and sub key (FunctionalPicks::build_categories), the
// buckets' counts; the override categories' members and counts
// (pending_override).  The jobs kept from the last pass (their flat records
// kept: Arrays::flat_kept) keep what the last scan found for them
// (keep_scanned); the others are read.
void scan_pending(Pass& p) {
  const bool fun = p.F > 0, ovr = p.conf.share_override_tickets;
  const std::vector<LJob>& jobs = p.ids.job;
  const Ids& ids = p.ids;
  const std::vector<uint32_t>& pending = p.pending;
  TicketScratch::Arrays& s = p.s;
  const uint32_t none = static_cast<uint32_t>(ids.uo.size());
  s.user_off.assign(static_cast<size_t>(none) + 2, 0);
  s.cat_bucket.resize(pending.size());
  s.cat_sub.resize(pending.size());
  s.cat_of.resize(p.n);
  // The kept jobs' (TicketScratch::Arrays::flat_kept) pending places as the
  // last scan left them, when it ran the same steps.
  const size_t kept_places =
      static_cast<size_t>(std::lower_bound(pending.begin(), pending.end(), s.flat_kept) - pending.begin());
  const size_t kept = fun == s.scan_fun && ovr == s.scan_ovr ? std::min(s.scan_made, kept_places) : 0;
  s.scan_all_kept = kept == pending.size() && s.scan_made == pending.size();
  s.scan_made = 0;  // (until this scan's are made)
  s.scan_fun = fun;
  s.scan_ovr = ovr;
  keep_scanned(s, pending, kept, fun);
  uint64_t last_pd = 0, last_js = 0;
  uint32_t last_sub = kNoId;
  auto ot_id = [](double oticket, uint32_t id) { return oticket > 0 ? id : kNoId; };
  for (size_t q = kept; q < pending.size(); ++q) {
    const size_t j = pending[q];
    const LJob& l = jobs[j];
    const uint8_t uf = ids.uflags[l.u];
    if (ovr) {  // the job's objects that carry override tickets, and -ot
      const uint32_t u = uf & Ids::kPositiveOt ? l.u : kNoId;
      const uint32_t pr = !l.has_p ? kNoId : ot_id(ids.pot[l.p], l.p);
      const uint32_t d = !l.has_d ? kNoId : ot_id(ids.dot[l.d], l.d);
      if (u != kNoId || pr != kNoId || d != kNoId || l.ot > 0) {
        bool added = false;
        const uint32_t c =
            s.ot_index.insert(Key5{{dbits(l.ot), u, pr, d, 0}}, static_cast<uint32_t>(s.ot_off.size() - 1), &added);
        if (added) {
          s.ot_off.push_back(0);
          s.ot_keys.push_back(Key5{{dbits(l.ot), u, pr, d, 0}});
        }
        ++s.ot_off[c + 1];
        s.ot_member.push_back(static_cast<uint32_t>(j));
        s.ot_cat.push_back(c);
      }
    }
    if (!fun) continue;
    const FShares f{0, ids.pfs[l.p], ids.dfs[l.d], l.js};  // (the user's share: uf)
    const bool user_share = uf & Ids::kPositiveShare;
    if (!user_share && !(f.project > 0) && !(f.dept > 0) && !(f.job > 0)) {
      s.cat_bucket[q] = UINT32_MAX;
      s.cat_of[j] = kNoId;
      continue;
    }
    const uint32_t b = user_share ? l.u : none;
    s.cat_bucket[q] = b;
    ++s.user_off[b + 1];
    const uint64_t pd = (static_cast<uint64_t>(f.project > 0 ? l.p : kNoId) << 32) | (f.dept > 0 ? l.d : kNoId);
    const uint64_t js = dbits(f.job);
    if (pd != last_pd || js != last_js || last_sub == kNoId) {
      bool added = false;
      last_sub = s.cat_index.insert(pd, js, static_cast<uint32_t>(s.subs.size()), &added);
      if (added) s.subs.push_back(SubKey{f.project > 0 ? l.p : kNoId, f.dept > 0 ? l.d : kNoId, f.job});
      last_pd = pd;
      last_js = js;
    }
    s.cat_sub[q] = last_sub;
  }
  s.scan_made = pending.size();
}

// Pending override tickets.  Shared: 8.1.9's
// calculate_pending_shared_override_tickets.  Pending jobs form categories
// (their -ot and those of their user, project and department objects that
// carry override tickets; jobs with none take no part and keep 0), each
// ordered by prior tickets desc (when dependent), submit, job id, else by
// job id.  Each round evaluates every category's first job as if started
// next (an object's tickets over its job count + 1, plus -ot; the prior is
// NOT part of the value), picks the largest, ties to the lower job id, and
// counts the winner as running (its otckt is that value).  Values only fall
// as counts grow, so a lazy max-heap over the categories gives the same
// picks as evaluating every head each round.
void pending_override(Pass& p, const PolicyStep& step) {
  const std::vector<LJob>& jobs = p.ids.job;
  if (!p.conf.share_override_tickets) {
    for (size_t j : p.pending) p.ot[j] = p.override_value(jobs[j], p.run_cnt, 0, false);
  } else {
    // The categories' members (scan_pending, before the steps; a category is
    // a range of ot_flat, its members in pending order before their sort).
    std::vector<uint32_t>&member = p.s.ot_member, &cat = p.s.ot_cat, &off = p.s.ot_off, &flat = p.s.ot_flat;
    const size_t ncats = off.size() - 1;
    for (size_t c = 0; c < ncats; ++c) off[c + 1] += off[c];
    std::vector<uint32_t>& head = p.s.ot_head;  // first each category's fill point, then its next member
    head.assign(off.begin(), off.end() - 1);
    flat.resize(member.size());
    for (size_t k = 0; k < member.size(); ++k) flat[head[cat[k]]++] = member[k];
    const bool dep = step.dependent;
    const auto less = [&](uint32_t a, uint32_t b) {
      if (dep && p.prior[a] != p.prior[b]) return p.prior[a] > p.prior[b];
      if (dep && jobs[a].submit != jobs[b].submit) return jobs[a].submit < jobs[b].submit;
      return jobs[a].id < jobs[b].id;
    };
    for (size_t c = 0; c < ncats; ++c) {
      const auto first = flat.begin() + off[c], last = flat.begin() + off[c + 1];
      if (!std::is_sorted(first, last, less)) mfprio::stable_order(first, last, less);
    }
    Counts cnt = p.run_cnt;
    head.assign(off.begin(), off.end() - 1);
    std::vector<OCand>& heap = p.s.ot_heap;
    heap.clear();
    auto value_of = [&](size_t j) { return p.override_value(jobs[j], cnt, 1, true); };
    for (size_t c = 0; c < ncats; ++c) {
      heap.push_back(OCand{value_of(flat[off[c]]), jobs[flat[off[c]]].id, c});
      std::push_heap(heap.begin(), heap.end(), oworse);
    }
    while (!heap.empty()) {
      std::pop_heap(heap.begin(), heap.end(), oworse);
      const OCand c = heap.back();
      heap.pop_back();
      const size_t j = flat[head[c.c]];
      const double v = value_of(j);
      if (v != c.v) {
        heap.push_back(OCand{v, c.id, c.c});
        std::push_heap(heap.begin(), heap.end(), oworse);
        continue;
      }
      p.ot[j] = v;
      cnt.add(jobs[j]);
      if (++head[c.c] < off[c.c + 1]) {
        const size_t nj = flat[head[c.c]];
        heap.push_back(OCand{value_of(nj), jobs[nj].id, c.c});
        std::push_heap(heap.begin(), heap.end(), oworse);
      }
    }
    // Jobs in no category keep otckt 0, and prior + 0 is prior (priors are
    // sums of tickets >= 0, never -0): only the categories' jobs add.
    if (step.dependent)
      for (const uint32_t j : flat) p.prior[j] += p.ot[j];
    return;
  }
  if (step.dependent)
    for (size_t j : p.pending) p.prior[j] += p.ot[j];
}

}  // namespace mfprio::gridengine::detail
