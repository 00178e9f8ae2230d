// ge_share_sort.cpp - the pending share-tree step (8.1.9's
// sge_sort_job_nodes, ShareSort): every level's sort of its subtree's
// jobs, by its last order when that still holds, by insertion for a short
// range, by merges of the runs already there (natural_order) or by radix
// (radix_share_order).  The shared types are in ge_tickets_pass.hpp.
#include "ge_tickets_pass.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <vector>

namespace mfprio::gridengine::detail {
namespace {

// srec_less's stable order by radix, most significant byte of k first:
// a byte equal in every record of a range is no pass; a range is scattered
// stably by its byte into the other buffer and each bucket sorted on by the
// next byte; a bucket of at most 48 records, or of one key, is
// stable_order'd (by (k, id), or by id; `src`: the records the positions
// are in).  Stable at every step: exactly stable_order(srec_less)'s
// result.  For the upper share-tree levels of a dependent step, whose
// children's lists are cut into many short runs by the prior tickets (a
// merge sort's log2(runs) passes over 32-byte records; the doubles' top
// bytes split such a range into small buckets in two or three passes).
// The records are in a (b: scratch); the result goes to b when `into_b`,
// else stays in a.
void radix_order(KPos* a, KPos* b, size_t n, int byte, bool into_b, const SRec* src) {
  for (;; --byte) {
    if (n <= 48 || byte < 0) {
      if (byte < 0) {
        mfprio::stable_order(a, a + n, [src](const KPos& x, const KPos& y) { return src[x.pos].id < src[y.pos].id; });
      } else {
        mfprio::stable_order(a, a + n, [src](const KPos& x, const KPos& y) {
          return x.k < y.k || (x.k == y.k && src[x.pos].id < src[y.pos].id);
        });
      }
      if (into_b) std::copy(a, a + n, b);
      return;
    }
    const int shift = 8 * byte;
    std::array<uint32_t, 257> at{};
    for (size_t i = 0; i < n; ++i) ++at[((a[i].k >> shift) & 255) + 1];
    if (at[((a[0].k >> shift) & 255) + 1] == n) continue;  // one bucket: the next byte
    for (size_t d = 1; d <= 256; ++d) at[d] += at[d - 1];
    std::array<uint32_t, 256> fill;
    std::copy(at.begin(), at.end() - 1, fill.begin());
    for (size_t i = 0; i < n; ++i) b[fill[(a[i].k >> shift) & 255]++] = a[i];
    for (size_t d = 0; d < 256; ++d)
      if (at[d + 1] > at[d]) radix_order(b + at[d], a + at[d], at[d + 1] - at[d], byte - 1, !into_b, src);
    return;
  }
}
// The radix path of the share-tree levels: (k, position) pairs sorted,
// then the records gathered in their order; from[k] (when given) = the
// sorted k-th record's position before.
void radix_share_order(SRec* v, size_t n, std::vector<SRec>& buf, std::vector<KPos>& kp, uint32_t* from) {
  if (buf.size() < n) buf.resize(n);
  if (kp.size() < 2 * n) kp.resize(2 * n);
  for (size_t i = 0; i < n; ++i) kp[i] = KPos{v[i].k, i};
  radix_order(kp.data(), kp.data() + n, n, 7, false, v);
  for (size_t i = 0; i < n; ++i) buf[i] = v[kp[i].pos];
  if (from)
    for (size_t i = 0; i < n; ++i) from[i] = static_cast<uint32_t>(kp[i].pos);
  std::copy(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n), v);
}
// How the share-tree levels sort: merges for a few runs, radix for many.
constexpr size_t kRadixMinRuns = 64, kRadixMinLen = 1024;
void share_order(SRec* v, size_t n, std::vector<SRec>& buf, std::vector<size_t>& runs, std::vector<KPos>& kp,
                 bool radix) {
  natural_order(v, n, buf, runs, srec_less, radix && n >= kRadixMinLen ? kRadixMinRuns : SIZE_MAX,
                [&buf, &kp](SRec* x, size_t m) { radix_share_order(x, m, buf, kp, nullptr); });
}
// Whether share_order takes its radix path (counting runs up to there).
bool takes_radix(const SRec* v, size_t n, bool radix) {
  if (!radix || n < kRadixMinLen) return false;
  size_t runs = 1;
  for (size_t i = 1; i < n && runs <= kRadixMinRuns; ++i) runs += srec_less(v[i], v[i - 1]);
  return runs > kRadixMinRuns;
}

// srec_less's order of a short range in place, by insertion ((k, id) is a
// total order: every sort gives this one).
constexpr size_t kSmallRange = 32;
void insertion_order(SRec* v, size_t n) {
  for (size_t i = 1; i < n; ++i) {
    const SRec x = v[i];
    size_t j = i;
    for (; j > 0 && srec_less(x, v[j - 1]); --j) v[j] = v[j - 1];
    v[j] = x;
  }
}

// ---- pending share-tree tickets: 8.1.9 sge_sort_job_nodes ----------------------

class ShareSort {
 public:
  ShareSort(Pass& p, const PolicyStep& step)
      : p_(p), w_(p.w), step_(step), begin_(p.s.doff), rbegin_(p.s.direct), st_(p.s.st), all_(p.s.all),
        run_(p.s.all_running), sort_buf_(p.s.sort_buf), sort_runs_(p.s.sort_runs), frames_(p.s.frames),
        post_(p.s.post) {
    if (p.topt.scratch) {  // only a kept scratch sees a next pass
      p.s.order.resize(w_.nodes.size());
      p.s.rorder.resize(w_.nodes.size());
    }
  }

  void run() {
    count_direct_jobs();
    st_.assign(p_.n, 0.0);
    walk_root_ = 0;
    for (;;) {
      if (has_direct(walk_root_)) break;
      int only = -1, active = 0;
      for (int c : w_.nodes[walk_root_].children)
        if (w_.nodes[c].jobs > 0) ++active, only = c;
      if (active != 1) break;
      walk_root_ = only;
    }
    lay_out();
    for (const int node : post_) leave(node);
    // st_ holds every pending job's stckt now (0 outside the tree).
    p_.share_ran = true;
    if (step_.dependent)
      for (size_t j : p_.pending) p_.prior[j] += st_[j];
  }

 private:
  using Frame = ShareSortFrame;

  // Depth-first from the walk root over the nodes with jobs, children in
  // order (frames reused: no allocation per node).
  template <typename Enter, typename Leave>
  void walk(Enter&& enter, Leave&& leave) {
    frames_.clear();
    frames_.push_back(Frame{walk_root_, 0});
    enter(walk_root_);
    while (!frames_.empty()) {
      Frame& f = frames_.back();
      const std::vector<int>& kids = w_.nodes[f.node].children;
      while (f.next < kids.size() && w_.nodes[kids[f.next]].jobs == 0) ++f.next;
      if (f.next == kids.size()) {
        const int done = f.node;
        frames_.pop_back();
        leave(done);
        continue;
      }
      const int kid = kids[f.next++];
      frames_.push_back(Frame{kid, 0});
      enter(kid);
    }
  }

  // Per node, its direct pending and running jobs' counts (in begin_, rbegin_
  // until lay_out), from pass 1's counts (count_jobs: every job, the running ones).
  void count_direct_jobs() {
    begin_.assign(w_.nodes.size() + 1, 0);
    rbegin_.assign(w_.nodes.size() + 1, 0);
    for (size_t k = 0; k < w_.nodes.size(); ++k) {
      const ShareNodeState& n = w_.nodes[k];
      begin_[k] = n.direct_jobs - n.direct_running;
      rbegin_[k] = n.direct_running;
    }
  }
  bool has_direct(int node) const {
    return begin_[static_cast<size_t>(node)] + rbegin_[static_cast<size_t>(node)] > 0;
  }
  // Every job in one array (running jobs in another) laid out as the lists
  // were concatenated: a node's range is its direct jobs (in job order),
  // then each active child's range in order.  Each node's direct range
  // begins at begin_[node] (rbegin_[node]); its whole range ends where the
  // next node in the walk's order begins, at its leaving.  The jobs are
  // read once, in job order.  The first key: -js, or (dependent) the prior
  // + 0.01 x -js (a running job's prior counts as 0).
  void lay_out() {
    size_t at = 0, rat = 0;
    post_.clear();
    walk(
        [&](int node) {
          const size_t k = static_cast<size_t>(node);
          const uint32_t c = begin_[k], rc = rbegin_[k];
          begin_[k] = static_cast<uint32_t>(at);
          rbegin_[k] = static_cast<uint32_t>(rat);
          at += c;
          rat += rc;
        },
        [&](int node) { post_.push_back(node); });
    all_.resize(at);
    run_.resize(rat);
    std::vector<uint32_t>& fill = p_.s.fill;
    std::vector<uint32_t>& rfill = p_.s.rfill;
    fill.assign(begin_.begin(), begin_.end());
    rfill.assign(rbegin_.begin(), rbegin_.end());
    const std::vector<LJob>& jobs = p_.ids.job;
    for (size_t j = 0; j < p_.n; ++j) {
      const int node = w_.job_node[j];
      if (node < 0) continue;
      const LJob& l = jobs[j];
      const double base = step_.dependent && !l.running ? p_.prior[j] : 0.0;
      const double key = step_.dependent ? base + 0.01 * l.js : l.js;
      const SRec rec{order_key(key), l.id, base, static_cast<uint32_t>(j), l.dilute};
      if (l.running) run_[rfill[static_cast<size_t>(node)]++] = rec;
      else all_[fill[static_cast<size_t>(node)]++] = rec;
    }
    // Leaving a node, the arrays' fill is the end of its whole range.
    ends_ = 0;
    rends_ = 0;
  }
  // Leaving a node: its whole range is sorted (each child's sorted before)
  // and assigned: the k-th job of the sorted range (running ones first)
  // gets stt/dilute; its key becomes its base + that.  Only the walk root's
  // and its children's assignments can be a job's last, so only they are
  // written out.  Nodes leave in postorder, so a node's range ends where
  // the last node left ended, or at its own direct range's end.
  void leave(int node) {
    const size_t k = static_cast<size_t>(node);
    const size_t b = begin_[k], rb = rbegin_[k];
    const size_t e = std::max(ends_, static_cast<size_t>(p_.s.fill[k]));
    const size_t re = std::max(rends_, static_cast<size_t>(p_.s.rfill[k]));
    ends_ = e;
    rends_ = re;
    const bool assign = node != walk_root_ || has_direct_now(node);
    if (!assign || (e <= b && re <= rb)) return;
    const bool last = node == walk_root_ || w_.nodes[node].parent == walk_root_;
    // No later sort reads the keys: none after the walk root's, none after
    // its children's unless it has direct jobs (then it sorts their keys too).
    const bool keys_read = !(node == walk_root_ || (last && !has_direct_now(walk_root_)));
    double dilute = 1;
    const double stt = w_.nodes[node].stt;
    std::vector<uint32_t>* kept[2] = {nullptr, nullptr};
    if (p_.topt.scratch) kept[0] = &p_.s.rorder[k], kept[1] = &p_.s.order[k];
    int r = 0;
    for (auto [v, lo, hi] : {std::tuple<SRec*, size_t, size_t>{run_.data(), rb, re}, {all_.data(), b, e}}) {
      const SRec* sorted = order_range(v + lo, hi - lo, kept[r++]) - lo;
      for (size_t q = lo; q < hi; ++q) {
        const SRec& x = sorted[q];
        const double st = stt / dilute * p_.WS;
        if (last) st_[x.idx] = st;
        dilute += x.slots;
        if (keys_read) {  // (else no later sort reads the range: not written back; it is a last one)
          SRec y = x;
          y.k = order_key(y.base + st);
          v[q] = y;
        }
      }
    }
  }
  // v[0, n) in srec_less's stable order (share_order's).  A short range
  // is insertion-sorted in place.  With a kept scratch, the node's order of
  // the last pass (`last`: the sorted k-th record's position before the
  // sort) is tried first: the range gathered
  // through it and strictly ascending in (k, id) is the only order
  // srec_less allows (no two records equal: every sort, stable or not,
  // gives it).  Else (another length, keys or ids changed, a tie) the
  // range is sorted and its order kept for the next pass.  Returns the
  // sorted records: v, or the gathered ones in sort_buf_.
  const SRec* order_range(SRec* v, size_t n, std::vector<uint32_t>* last) {
    if (n < 2) return v;
    if (n <= kSmallRange) {  // (most leaves' ranges: no kept order read, no gather)
      insertion_order(v, n);
      return v;
    }
    if (last && last->size() == n) {
      if (sort_buf_.size() < n) sort_buf_.resize(n);
      SRec* g = sort_buf_.data();
      const uint32_t* o = last->data();
      g[0] = v[o[0]];
      bool strict = true;
      for (size_t q = 1; q < n && (strict || (q & 63) != 0); ++q) {  // (a miss stops soon)
        g[q] = v[o[q]];
        strict &= srec_less(g[q - 1], g[q]);
      }
      if (strict) return g;
    }
    if (!last) {
      share_order(v, n, sort_buf_, sort_runs_, p_.s.sort_kpos, p_.topt.radix_share_levels);
      return v;
    }
    last->resize(n);
    if (takes_radix(v, n, p_.topt.radix_share_levels)) {  // (its pairs are the order)
      radix_share_order(v, n, sort_buf_, p_.s.sort_kpos, last->data());
      return v;
    }
    // Each record's idx holds its position while it is sorted (no sort reads idx).
    std::vector<uint32_t>& saved = p_.s.saved_idx;
    saved.resize(n);
    for (size_t q = 0; q < n; ++q) {
      saved[q] = v[q].idx;
      v[q].idx = static_cast<uint32_t>(q);
    }
    share_order(v, n, sort_buf_, sort_runs_, p_.s.sort_kpos, p_.topt.radix_share_levels);
    for (size_t q = 0; q < n; ++q) {
      (*last)[q] = v[q].idx;
      v[q].idx = saved[v[q].idx];
    }
    return v;
  }
  bool has_direct_now(int node) const {
    const size_t k = static_cast<size_t>(node);
    return p_.s.fill[k] > begin_[k] || p_.s.rfill[k] > rbegin_[k];
  }

  Pass& p_;
  const WorkTree& w_;
  const PolicyStep step_;
  std::vector<uint32_t>&begin_, &rbegin_;
  std::vector<double>& st_;
  int walk_root_ = 0;
  size_t ends_ = 0, rends_ = 0;
  std::vector<SRec>&all_, &run_, &sort_buf_;
  std::vector<size_t>& sort_runs_;
  std::vector<Frame>& frames_;
  std::vector<int>& post_;  // the walk's nodes in the order it leaves them (lay_out)
};

}  // namespace

void share_tree_step(Pass& p, const PolicyStep& step) { ShareSort(p, step).run(); }

}  // namespace mfprio::gridengine::detail
