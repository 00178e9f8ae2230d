// explain.cpp - see explain.hpp.
#include "explain.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>

#include "jobs_json.hpp"
#include "json_util.hpp"
#include "layout.hpp"
#include "replay.hpp"
#include "stable_order.hpp"

namespace mfprio::host {
namespace {

constexpr int64_t kHorizon = 10LL * 365 * 86400;  // overtaking is searched up to 10 years ahead
constexpr int64_t kProbe = 86400;                 // time-dependent terms: now vs now + 1 day

struct Priced {
  size_t rec = 0;  // index in the records
  mfprio_factors_t f{};
};

std::string term_name(const mfprio_term_t& t) { return std::string(t.name, strnlen(t.name, sizeof t.name)); }

bool same(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::max(std::fabs(a), std::fabs(b))); }

std::string num(double v, int decimals = 4) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", decimals, v);
  return b;
}

std::string span(int64_t s) {
  char b[64];
  if (s < 3600) std::snprintf(b, sizeof b, "%.1f min", static_cast<double>(s) / 60);
  else if (s < 86400 * 2) std::snprintf(b, sizeof b, "%.1f h", static_cast<double>(s) / 3600);
  else std::snprintf(b, sizeof b, "%.1f days", static_cast<double>(s) / 86400);
  return b;
}

const char* clamp_word(uint32_t c) {
  return c == MFPRIO_CLAMP_LOW ? "low" : c == MFPRIO_CLAMP_HIGH ? "high" : "none";
}

// The top-level terms whose contribution moves between `f` (now) and `later`
// (now + kProbe), each with the sub-terms that move under it: "age",
// "urgency (wtcontr)".  A term moved only through its sub-terms (a family
// normalizing over the queue) is listed by them.  Display-only text terms
// are not terms of the sum and are left out.
std::vector<std::string> timed_terms(const mfprio_factors_t& f, const mfprio_factors_t& later) {
  auto find = [](const mfprio_factors_t& g, const std::string& name, int32_t parent_of, std::string* parent_name) {
    for (uint32_t t = 0; t < g.term_count && t < MFPRIO_MAX_TERMS; ++t) {
      const mfprio_term_t& x = g.terms[t];
      if (term_name(x) != name) continue;
      const bool top = x.parent < 0;
      if ((parent_of < 0) != top) continue;
      if (!top && (x.parent >= static_cast<int32_t>(g.term_count) || term_name(g.terms[x.parent]) != *parent_name))
        continue;
      return &x;
    }
    return static_cast<const mfprio_term_t*>(nullptr);
  };
  std::vector<std::string> out;
  for (uint32_t t = 0; t < f.term_count && t < MFPRIO_MAX_TERMS; ++t) {
    const mfprio_term_t& top = f.terms[t];
    if (top.parent >= 0 || (top.flags & (MFPRIO_TERMF_TEXT | MFPRIO_TERMF_LIST))) continue;
    std::string name = term_name(top);
    const mfprio_term_t* l = find(later, name, -1, nullptr);
    const bool moved = !l || !same(l->contribution, top.contribution);
    std::string subs;
    for (uint32_t c = 0; c < f.term_count && c < MFPRIO_MAX_TERMS; ++c) {
      const mfprio_term_t& ch = f.terms[c];
      if (ch.parent != static_cast<int32_t>(t) || (ch.flags & (MFPRIO_TERMF_TEXT | MFPRIO_TERMF_LIST))) continue;
      const mfprio_term_t* lc = find(later, term_name(ch), 0, &name);
      if (!lc || !same(lc->contribution, ch.contribution)) subs += (subs.empty() ? "" : ", ") + term_name(ch);
    }
    if (moved || !subs.empty()) out.push_back(subs.empty() ? name : name + " (" + subs + ")");
  }
  return out;
}

// The pending jobs of the file (a job in several partitions: its first
// partition's record), resolved, and the running ones, in submission order
// as a controller creates them; and the plugin calls explain makes on them.
// The clock is the explained time while it lives, restored after.
class Pricer {
 public:
  Pricer(Plugin& plugin, Clock& clock, std::vector<JobRecord>& records)
      : plugin_(plugin), ops_(plugin.ops()), clock_(clock), records_(records), was_fixed_(clock.fixed),
        was_now_(clock.now) {
    std::set<uint64_t> seen;
    for (size_t i = 0; i < records.size(); ++i) {
      const JobSpec& s = *records[i].spec;
      if (s.state == MFPRIO_JOB_RUNNING) run_.push_back(i);
      else if (s.state == MFPRIO_JOB_PENDING && seen.insert(s.id).second) pend.push_back(i);
    }
    mfprio::stable_order(pend.begin(), pend.end(), [&](size_t a, size_t b) { return by_submit(a, b); });
    clock.fixed = true;
  }
  ~Pricer() {
    clock_.fixed = was_fixed_;
    clock_.now = was_now_;
  }
  Pricer(const Pricer&) = delete;
  Pricer& operator=(const Pricer&) = delete;

  bool by_submit(size_t a, size_t b) const { return submitted_before(*records_[a].spec, *records_[b].spec); }
  // x ahead of y: higher priority, then earlier submit, then lower job id.
  bool ahead(uint32_t px, size_t x, uint32_t py, size_t y) const { return px != py ? px > py : by_submit(x, y); }

  // job_resolve per pending job; false (reported) at the first that fails.
  bool resolve() {
    if (!ops_.job_resolve) return true;
    for (size_t i : pend) {
      const int rc = ops_.job_resolve(&records_[i].job);
      if (rc == MFPRIO_OK) continue;
      std::fprintf(stderr, "mfprio-host: %s:%u: job %llu: %s (%s)\n", records_[i].spec->file.c_str(),
                   records_[i].spec->line, static_cast<unsigned long long>(records_[i].spec->id),
                   plugin_.last_error().c_str(), status_name(rc));
      return false;
    }
    return true;
  }

  // A whole-queue family normalizes over the queue first, and again at each
  // other time a term is priced at (its waiting time moves with the pass).
  void pass(int64_t t) {
    if (!ops_.prioritize || pend.empty() || t == pass_at_) return;
    std::vector<mfprio_job_t> p, r;
    for (size_t i : pend) p.push_back(records_[i].job);
    for (size_t i : run_) r.push_back(records_[i].job);
    std::vector<uint32_t> prios(p.size());
    std::vector<int> st(p.size());
    plugin_.check(ops_.prioritize(p.data(), p.size(), r.empty() ? nullptr : r.data(), r.size(), t, prios.data(),
                                  st.data()),
                  "prioritize");
    pass_at_ = t;
  }

  void factors_at(size_t rec, int64_t t, mfprio_factors_t* f) {
    pass(t);
    *f = mfprio_factors_t{};
    f->struct_size = sizeof *f;
    clock_.now = t;
    const int rc = ops_.job_factors(&records_[rec].job, t, f);
    if (rc != MFPRIO_OK)
      throw PluginError("job " + std::to_string(records_[rec].spec->id) + ": job_factors at " + std::to_string(t) +
                            ": " + plugin_.last_error() + " (" + status_name(rc) + ")",
                        rc);
  }

  std::vector<size_t> pend;

 private:
  Plugin& plugin_;
  const mfprio_ops_t& ops_;
  Clock& clock_;
  std::vector<JobRecord>& records_;
  std::vector<size_t> run_;
  int64_t pass_at_ = -1;
  bool was_fixed_;
  int64_t was_now_;
};

// Everything explain has priced at now, ranked.
struct Ranked {
  std::vector<Priced> priced;
  std::vector<size_t> order;  // indexes of priced, first ranked first
  const Priced& at_rank(long r) const { return priced[order[static_cast<size_t>(r)]]; }
};

// The json array of names and the text line "time-dependent terms: ...".
void put_timed(const std::vector<std::string>& timed, json_t* owner, std::ostringstream& text) {
  json_t* jt = json_array();
  for (const std::string& n : timed) json_array_append_new(jt, json_string(n.c_str()));
  json_object_set_new(owner, "time_dependent", jt);
  text << "time-dependent terms:";
  for (const std::string& n : timed) text << " " << n;
  text << (timed.empty() ? " none\n" : "\n");
}

// The gap to the job just above A.
struct Gap {
  const Priced* above = nullptr;
  double gap = 0;
  bool strict = false;  // A loses ties to the job above: it must get strictly more
  bool hidden = false;  // a clamp hides the order of the totals: no growth can be stated
};

// The header lines: priority, rank, clamp, the job above and the gap.
Gap explain_header(Plugin& plugin, const Pricer& pr, const std::vector<JobRecord>& records, const Ranked& rk, long rank,
                   int64_t now, json_t* doc, std::ostringstream& text) {
  const Priced& A = rk.at_rank(rank);
  const JobSpec& sa = *records[A.rec].spec;
  json_object_set_new(doc, "now", json_integer(now));
  json_object_set_new(doc, "plugin_type", json_string(plugin.type().c_str()));
  json_object_set_new(doc, "pending", json_integer(static_cast<json_int_t>(rk.priced.size())));
  json_object_set_new(doc, "job_id", json_integer(static_cast<json_int_t>(sa.id)));
  json_object_set_new(doc, "rank", json_integer(rank + 1));
  json_object_set_new(doc, "priority", json_integer(A.f.priority));
  json_object_set_new(doc, "unclamped", json_real(A.f.unclamped));
  text << "explain: job " << sa.id << " (user " << sa.user << ", account "
       << std::string(A.f.account_name, strnlen(A.f.account_name, MFPRIO_NAME_MAX)) << "): priority " << A.f.priority
       << " (unclamped " << num(A.f.unclamped) << "), rank " << rank + 1 << " of " << rk.priced.size()
       << " pending at " << iso_utc(now) << "\n";
  json_object_set_new(doc, "clamped", json_string(clamp_word(A.f.clamped)));
  if (A.f.clamped != MFPRIO_CLAMP_NONE)
    text << "clamped " << clamp_word(A.f.clamped) << ": the total " << num(A.f.unclamped) << " lies "
         << (A.f.clamped == MFPRIO_CLAMP_LOW ? "below" : "above") << " the priorities " << plugin.type()
         << " gives, so the priority is " << A.f.priority << "; it moves only once the total is back inside\n";
  Gap g;
  if (rank == 0) {
    json_object_set_new(doc, "above_job_id", json_null());
    text << "it is first: no job is above it\n";
    return g;
  }
  // To pass the job just above: the gap in the unclamped scale.
  g.above = &rk.at_rank(rank - 1);
  g.gap = g.above->f.unclamped - A.f.unclamped;
  g.strict = pr.by_submit(g.above->rec, A.rec);
  const uint64_t above_id = records[g.above->rec].spec->id;
  const bool tie = g.above->f.priority == A.f.priority;
  g.hidden = g.gap < 0 || (tie && (A.f.clamped != MFPRIO_CLAMP_NONE || g.above->f.clamped != MFPRIO_CLAMP_NONE));
  json_object_set_new(doc, "above_job_id", json_integer(static_cast<json_int_t>(above_id)));
  json_object_set_new(doc, "gap", g.hidden ? json_null() : json_real(g.gap));
  json_object_set_new(doc, "gap_strict", json_boolean(g.strict));
  json_object_set_new(doc, "tie", json_boolean(tie));
  if (tie) {
    const JobSpec& sb = *records[g.above->rec].spec;
    text << "job " << above_id << " has the same priority " << A.f.priority << "; the tie is broken by submit time"
         << (sb.submit == sa.submit ? ", then job id (equal submit times)" : "") << ": job " << above_id
         << " comes first\n";
  }
  if (g.hidden)
    text << "to move up one place, past job " << above_id << " (priority " << g.above->f.priority
         << "): its priority must rise above " << g.above->f.priority
         << "; the totals are clamped, so no growth of the total can be stated\n";
  else
    text << "to move up one place, past job " << above_id << " (priority " << g.above->f.priority
         << "): the total must grow by " << (g.strict ? "more than " : "at least ") << num(g.gap) << "\n";
  return g;
}

// What one top-level term alone would need to pass the job above ("" when
// nothing is asked); to_pass its JSON ("cannot" or {contribution, factor}).
std::string term_need(const mfprio_term_t& term, const Gap& g, double later, json_t* jt) {
  const bool display_only = term.flags & (MFPRIO_TERMF_TEXT | MFPRIO_TERMF_LIST);  // shown, not summed
  if (!g.above || display_only) return std::string();
  if (g.hidden) {
    json_object_set_new(jt, "to_pass", json_string("cannot"));
    return "cannot (the clamp hides the total)";
  }
  const char* why = nullptr;
  if (term.flags & MFPRIO_TERMF_CAPPED) why = "capped";
  else if (term.flags & MFPRIO_TERMF_RAW) why = "an amount set as is";
  else if (term.weight == 0) why = "weight 0";
  std::string reach;
  if (!why && !same(later, term.contribution) && later - term.contribution < g.gap + (g.strict ? 1e-9 : 0)) {
    reach = "it reaches at most " + num(later, 2) + " as time passes";
    why = reach.c_str();
  }
  if (why) {
    json_object_set_new(jt, "to_pass", json_string("cannot"));
    return std::string("cannot (") + why + ")";
  }
  const double df = g.gap / term.weight;
  json_t* tp = json_object();
  json_object_set_new(tp, "contribution", json_real(g.gap));
  json_object_set_new(tp, "factor", json_real(term.factor + df));
  json_object_set_new(jt, "to_pass", tp);
  return "factor " + std::string(g.strict ? "> " : ">= ") + num(term.factor + df, 6) + " (+" + num(df, 6) + ")";
}

// The sub-terms of top-level term `t` that weigh (weight or contribution
// not 0), indented under it; with
// `product` (the family declares "view": {"sub_weight_product": true}) a
// sub-term's weight is shown as what it is, the parent's weight times the
// sub-term's own ("1 x 100"), not as one number that reads like a weight of
// its own.  JSON: the term's "sub_terms" ([{"name", "factor", "weight",
// "contribution"[, "weight_product": [parent, own]]}]).
void explain_sub_terms(const mfprio_factors_t& f, uint32_t t, bool product, json_t* jt, std::ostringstream& text) {
  const mfprio_term_t& top = f.terms[t];
  json_t* subs = nullptr;
  char line[256];
  for (uint32_t c = 0; c < f.term_count && c < MFPRIO_MAX_TERMS; ++c) {
    const mfprio_term_t& sub = f.terms[c];
    if (sub.parent != static_cast<int32_t>(t)) continue;
    if (sub.weight == 0 && sub.contribution == 0 && !(sub.flags & MFPRIO_TERMF_TEXT)) continue;  // weighs nothing
    if (!subs) {
      subs = json_array();
      json_object_set_new(jt, "sub_terms", subs);
    }
    json_t* js = json_object();
    json_object_set_new(js, "name", json_string(term_name(sub).c_str()));
    json_object_set_new(js, "factor", json_real(sub.factor));
    json_object_set_new(js, "weight", json_real(sub.weight));
    json_object_set_new(js, "contribution", json_real(sub.contribution));
    std::string weight = num(sub.weight, 2);
    if (const auto wp = product ? weight_product(top.weight, sub.weight) : std::nullopt) {
      weight = num(wp->term, 0) + " x " + num(wp->own, same(wp->own, std::round(wp->own)) ? 0 : 2);
      put_weight_product(js, *wp);
    }
    json_array_append_new(subs, js);
    std::snprintf(line, sizeof line, "    %-18s %12s %12s %14s\n", term_name(sub).c_str(),
                  (sub.flags & MFPRIO_TERMF_TEXT) ? sub.text : num(sub.factor, 6).c_str(), weight.c_str(),
                  num(sub.contribution, 2).c_str());
    text << line;
  }
}

// The terms table: each top-level term's factor, weight, contribution and
// need, its sub-terms under it.
void explain_terms(Pricer& pr, const Priced& A, const Gap& g, bool product, int64_t now, json_t* doc,
                   std::ostringstream& text) {
  char line[256];
  std::snprintf(line, sizeof line, "  %-20s %12s %12s %14s  %s\n", "TERM", "FACTOR", "WEIGHT", "CONTRIBUTION",
                g.above ? "TO PASS THE JOB ABOVE (this term alone)" : "");
  text << line;
  // A time-dependent term can grow no further than it gets by the horizon:
  // priced there once, a need beyond that is "cannot".
  mfprio_factors_t at_horizon{};
  if (g.above) pr.factors_at(A.rec, now + kHorizon, &at_horizon);
  auto horizon_contribution = [&](const std::string& name, double fallback) {
    for (uint32_t t = 0; t < at_horizon.term_count && t < MFPRIO_MAX_TERMS; ++t)
      if (at_horizon.terms[t].parent < 0 && term_name(at_horizon.terms[t]) == name) return at_horizon.terms[t].contribution;
    return fallback;
  };
  json_t* terms = json_array();
  json_object_set_new(doc, "terms", terms);
  for (uint32_t t = 0; t < A.f.term_count && t < MFPRIO_MAX_TERMS; ++t) {
    const mfprio_term_t& term = A.f.terms[t];
    if (term.parent >= 0) continue;
    json_t* jt = json_object();
    json_object_set_new(jt, "name", json_string(term_name(term).c_str()));
    json_object_set_new(jt, "factor", json_real(term.factor));
    json_object_set_new(jt, "weight", json_real(term.weight));
    json_object_set_new(jt, "contribution", json_real(term.contribution));
    json_object_set_new(jt, "capped", json_boolean(term.flags & MFPRIO_TERMF_CAPPED));
    const std::string need = term_need(term, g, horizon_contribution(term_name(term), term.contribution), jt);
    json_array_append_new(terms, jt);
    std::snprintf(line, sizeof line, "  %-20s %12s %12s %14s  %s\n", term_name(term).c_str(),
                  (term.flags & MFPRIO_TERMF_TEXT) ? term.text : num(term.factor, 6).c_str(), num(term.weight, 2).c_str(),
                  num(term.contribution, 2).c_str(), need.c_str());
    text << line;
    explain_sub_terms(A.f, t, product, jt, text);
  }
  if (product)
    text << "  (a sub-term's weight is its term's weight x its own: WEIGHT x SUBWEIGHT, as the family multiplies them)\n";
}

// The top-level terms by which A and B differ (A - B), largest first.
struct Diff {
  std::string name;
  double d;
};
std::vector<Diff> differences(const mfprio_factors_t& a, const mfprio_factors_t& b) {
  auto contribution_of = [](const mfprio_factors_t& f, const std::string& name) {
    for (uint32_t t = 0; t < f.term_count && t < MFPRIO_MAX_TERMS; ++t)
      if (f.terms[t].parent < 0 && term_name(f.terms[t]) == name) return f.terms[t].contribution;
    return 0.0;
  };
  std::set<std::string> names;
  for (const mfprio_factors_t* f : {&a, &b})
    for (uint32_t t = 0; t < f->term_count && t < MFPRIO_MAX_TERMS; ++t)
      if (f->terms[t].parent < 0 && !(f->terms[t].flags & MFPRIO_TERMF_TEXT)) names.insert(term_name(f->terms[t]));
  std::vector<Diff> diffs;
  for (const std::string& n : names) {
    const double d = contribution_of(a, n) - contribution_of(b, n);
    if (!same(d, 0)) diffs.push_back({n, d});
  }
  mfprio::stable_order(diffs.begin(), diffs.end(), [](const Diff& x, const Diff& y) { return x.d > y.d; });
  return diffs;
}

// When B overtakes A if only time moves: a doubling grid from now + 1 min,
// then bisection to the second.  *when: the time, when there is one.
std::string overtake(Pricer& pr, const Priced& A, const Priced& B, uint64_t b_id, bool a_ahead, bool timed, int64_t now,
                     std::optional<int64_t>* when) {
  if (!a_ahead) return "job " + std::to_string(b_id) + " is already ahead";
  if (!timed) return "never (no term depends on time)";
  auto b_ahead_at = [&](int64_t t) {
    mfprio_factors_t fa{}, fb{};
    pr.factors_at(A.rec, t, &fa);
    pr.factors_at(B.rec, t, &fb);
    return pr.ahead(fb.priority, B.rec, fa.priority, A.rec);
  };
  int64_t lo = now, hi = -1;
  for (int64_t step = 60; step <= kHorizon; step *= 2) {
    const int64_t t = now + step;
    if (b_ahead_at(t)) {
      hi = t;
      break;
    }
    lo = t;
  }
  if (hi < 0 && b_ahead_at(now + kHorizon)) hi = now + kHorizon;
  if (hi < 0) return "never (within 10 years)";
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (b_ahead_at(mid)) hi = mid;
    else lo = mid;
  }
  *when = hi;
  return iso_utc(hi) + " (in " + span(hi - now) + ")";
}

// Two jobs: who is ahead, the differences, the time-dependent terms, the overtaking time.
void explain_versus(Pricer& pr, const std::vector<JobRecord>& records, const Ranked& rk, long ra, long rb, int64_t now,
                    json_t* doc, std::ostringstream& text) {
  const Priced& A = rk.at_rank(ra);
  const Priced& B = rk.at_rank(rb);
  const JobSpec& sa = *records[A.rec].spec;
  const JobSpec& sb = *records[B.rec].spec;
  json_t* vs = json_object();
  json_object_set_new(doc, "versus", vs);
  json_object_set_new(vs, "job_id", json_integer(static_cast<json_int_t>(sb.id)));
  json_object_set_new(vs, "rank", json_integer(rb + 1));
  json_object_set_new(vs, "priority", json_integer(B.f.priority));
  const bool a_ahead = ra < rb;
  text << "\njob " << sa.id << " (rank " << ra + 1 << ", priority " << A.f.priority << ") is "
       << (a_ahead ? "ahead of" : "behind") << " job " << sb.id << " (rank " << rb + 1 << ", priority "
       << B.f.priority << ")\n";
  const std::vector<Diff> diffs = differences(A.f, B.f);
  json_t* jd = json_array();
  json_object_set_new(vs, "differences", jd);
  text << "terms putting " << sa.id << " ahead of " << sb.id << " (A - B, largest first):";
  bool any = false;
  for (const Diff& d : diffs)
    if (d.d > 0) {
      text << " " << d.name << " +" << num(d.d, 2);
      any = true;
    }
  text << (any ? "\n" : " none\n");
  text << "terms favouring " << sb.id << ":";
  any = false;
  for (auto it = diffs.rbegin(); it != diffs.rend(); ++it)
    if (it->d < 0) {
      text << " " << it->name << " " << num(it->d, 2);
      any = true;
    }
  text << (any ? "\n" : " none\n");
  for (const Diff& d : diffs) {
    json_t* o2 = json_object();
    json_object_set_new(o2, "name", json_string(d.name.c_str()));
    json_object_set_new(o2, "difference", json_real(d.d));
    json_array_append_new(jd, o2);
  }
  // Time-dependent terms: those whose contribution moves for A or B in a day.
  mfprio_factors_t a1{}, b1{};
  pr.factors_at(A.rec, now + kProbe, &a1);
  pr.factors_at(B.rec, now + kProbe, &b1);
  std::vector<std::string> timed = timed_terms(A.f, a1);
  for (const std::string& n : timed_terms(B.f, b1))
    if (std::find(timed.begin(), timed.end(), n) == timed.end()) timed.push_back(n);
  put_timed(timed, vs, text);
  std::optional<int64_t> when;
  const std::string verdict = overtake(pr, A, B, sb.id, a_ahead, !timed.empty(), now, &when);
  json_object_set_new(vs, "overtakes_at", when ? json_integer(*when) : json_null());
  json_object_set_new(vs, "overtakes_in", when ? json_integer(*when - now) : json_null());
  json_object_set_new(vs, "overtake", json_string(verdict.c_str()));
  text << "job " << sb.id << " overtakes job " << sa.id << ": " << verdict << "\n";
}

}  // namespace

int cmd_explain(const Options& o, Plugin& plugin, Clock& clock, int64_t now) {
  if (!plugin.ops().job_factors) {
    std::fprintf(stderr, "mfprio-host: explain: %s provides no job_factors: nothing to explain\n", plugin.type().c_str());
    return 1;
  }
  JobFile jf = read_job_file(o.jobs_file);
  for (const std::string& e : jf.errors) std::fprintf(stderr, "mfprio-host: %s\n", e.c_str());
  if (!jf.errors.empty()) return 1;
  std::vector<JobRecord> records = expand_records(jf.jobs);
  Pricer pr(plugin, clock, records);
  if (!pr.resolve()) return 1;
  pr.pass(now);

  Ranked rk;
  rk.priced.resize(pr.pend.size());
  for (size_t k = 0; k < pr.pend.size(); ++k) {
    rk.priced[k].rec = pr.pend[k];
    pr.factors_at(pr.pend[k], now, &rk.priced[k].f);
  }
  rk.order.resize(rk.priced.size());
  for (size_t k = 0; k < rk.order.size(); ++k) rk.order[k] = k;
  std::sort(rk.order.begin(), rk.order.end(), [&](size_t a, size_t b) {
    return pr.ahead(rk.priced[a].f.priority, rk.priced[a].rec, rk.priced[b].f.priority, rk.priced[b].rec);
  });
  std::vector<long> ranks;
  for (uint64_t id : o.explain_ids) {
    long r = -1;
    for (size_t k = 0; k < rk.order.size() && r < 0; ++k)
      if (records[rk.priced[rk.order[k]].rec].spec->id == id) r = static_cast<long>(k);
    if (r < 0) {
      std::fprintf(stderr, "mfprio-host: explain: job %llu is not a pending job of %s\n",
                   static_cast<unsigned long long>(id), o.jobs_file.c_str());
      return 1;
    }
    ranks.push_back(r);
  }

  const Priced& A = rk.at_rank(ranks[0]);
  JsonPtr doc(json_object());
  std::ostringstream text;
  const Gap g = explain_header(plugin, pr, records, rk, ranks[0], now, doc.get(), text);
  explain_terms(pr, A, g, parse_view_info(plugin.info_json()).flag("sub_weight_product", false), now, doc.get(),
                text);
  if (ranks.size() == 1) {
    // What moves the job with time alone: the terms whose contribution moves in a day.
    mfprio_factors_t a1{};
    pr.factors_at(A.rec, now + kProbe, &a1);
    put_timed(timed_terms(A.f, a1), doc.get(), text);
  } else {
    explain_versus(pr, records, rk, ranks[0], ranks[1], now, doc.get(), text);
  }
  if (o.json) std::cout << json_dump_string(doc.get(), JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12)) << "\n";
  else std::cout << text.str();
  std::cout.flush();
  return 0;
}

}  // namespace mfprio::host
