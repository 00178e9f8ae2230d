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

}  // namespace

int cmd_explain(const Options& o, Plugin& plugin, Clock& clock, int64_t now) {
  const mfprio_ops_t& ops = plugin.ops();
  if (!ops.job_factors) {
    std::fprintf(stderr, "mfprio-host: explain: %s provides no job_factors: nothing to explain\n", plugin.type().c_str());
    return 1;
  }
  JobFile jf = read_job_file(o.jobs_file);
  for (const std::string& e : jf.errors) std::fprintf(stderr, "mfprio-host: %s\n", e.c_str());
  if (!jf.errors.empty()) return 1;
  std::vector<JobRecord> records = expand_records(jf.jobs);

  // The pending jobs (a job in several partitions: its first partition's
  // record) and the running ones, in submission order as a controller
  // creates them.
  std::vector<size_t> pend, run;
  std::set<uint64_t> seen;
  for (size_t i = 0; i < records.size(); ++i) {
    const JobSpec& s = *records[i].spec;
    if (s.state == MFPRIO_JOB_RUNNING) run.push_back(i);
    else if (s.state == MFPRIO_JOB_PENDING && seen.insert(s.id).second) pend.push_back(i);
  }
  auto by_submit = [&](size_t a, size_t b) {
    const JobSpec &x = *records[a].spec, &y = *records[b].spec;
    return x.submit != y.submit ? x.submit < y.submit : x.id < y.id;
  };
  mfprio::stable_order(pend.begin(), pend.end(), by_submit);
  for (size_t i : pend) {
    if (ops.job_resolve) {
      const int rc = ops.job_resolve(&records[i].job);
      if (rc != MFPRIO_OK) {
        std::fprintf(stderr, "mfprio-host: %s:%u: job %llu: %s (%s)\n", records[i].spec->file.c_str(),
                     records[i].spec->line, static_cast<unsigned long long>(records[i].spec->id),
                     plugin.last_error().c_str(), status_name(rc));
        return 1;
      }
    }
  }
  // A whole-queue family normalizes over the queue first, and again at each
  // other time a term is priced at (its waiting time moves with the pass).
  int64_t pass_at = -1;
  auto pass = [&](int64_t t) {
    if (!ops.prioritize || pend.empty() || t == pass_at) return;
    std::vector<mfprio_job_t> p, r;
    for (size_t i : pend) p.push_back(records[i].job);
    for (size_t i : run) r.push_back(records[i].job);
    std::vector<uint32_t> prios(p.size());
    std::vector<int> st(p.size());
    plugin.check(ops.prioritize(p.data(), p.size(), r.empty() ? nullptr : r.data(), r.size(), t, prios.data(),
                                st.data()),
                 "prioritize");
    pass_at = t;
  };
  pass(now);
  auto factors_at = [&](size_t rec, int64_t t, mfprio_factors_t* f) {
    pass(t);
    *f = mfprio_factors_t{};
    f->struct_size = sizeof *f;
    clock.now = t;
    const int rc = ops.job_factors(&records[rec].job, t, f);
    if (rc != MFPRIO_OK)
      throw PluginError("job " + std::to_string(records[rec].spec->id) + ": job_factors at " + std::to_string(t) + ": " +
                            plugin.last_error() + " (" + status_name(rc) + ")",
                        rc);
  };
  const bool was_fixed = clock.fixed;
  const int64_t was_now = clock.now;
  clock.fixed = true;

  std::vector<Priced> priced(pend.size());
  for (size_t k = 0; k < pend.size(); ++k) {
    priced[k].rec = pend[k];
    factors_at(pend[k], now, &priced[k].f);
  }
  // x ahead of y: higher priority, then earlier submit, then lower job id.
  auto ahead = [&](uint32_t px, size_t x, uint32_t py, size_t y) {
    if (px != py) return px > py;
    return by_submit(x, y);
  };
  std::vector<size_t> order(priced.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return ahead(priced[a].f.priority, priced[a].rec, priced[b].f.priority, priced[b].rec);
  });
  auto find = [&](uint64_t id) -> long {
    for (size_t r = 0; r < order.size(); ++r)
      if (records[priced[order[r]].rec].spec->id == id) return static_cast<long>(r);
    return -1;
  };
  std::vector<long> ranks;
  for (uint64_t id : o.explain_ids) {
    const long r = find(id);
    if (r < 0) {
      std::fprintf(stderr, "mfprio-host: explain: job %llu is not a pending job of %s\n",
                   static_cast<unsigned long long>(id), o.jobs_file.c_str());
      clock.fixed = was_fixed;
      clock.now = was_now;
      return 1;
    }
    ranks.push_back(r);
  }

  const Priced& A = priced[order[ranks[0]]];
  const JobSpec& sa = *records[A.rec].spec;
  JsonPtr doc(json_object());
  std::ostringstream text;
  json_object_set_new(doc.get(), "now", json_integer(now));
  json_object_set_new(doc.get(), "plugin_type", json_string(plugin.type().c_str()));
  json_object_set_new(doc.get(), "pending", json_integer(static_cast<json_int_t>(pend.size())));
  json_object_set_new(doc.get(), "job_id", json_integer(static_cast<json_int_t>(sa.id)));
  json_object_set_new(doc.get(), "rank", json_integer(ranks[0] + 1));
  json_object_set_new(doc.get(), "priority", json_integer(A.f.priority));
  json_object_set_new(doc.get(), "unclamped", json_real(A.f.unclamped));
  text << "explain: job " << sa.id << " (user " << sa.user << ", account "
       << std::string(A.f.account_name, strnlen(A.f.account_name, MFPRIO_NAME_MAX)) << "): priority " << A.f.priority
       << " (unclamped " << num(A.f.unclamped) << "), rank " << ranks[0] + 1 << " of " << pend.size()
       << " pending at " << iso_utc(now) << "\n";
  json_object_set_new(doc.get(), "clamped", json_string(clamp_word(A.f.clamped)));
  if (A.f.clamped != MFPRIO_CLAMP_NONE)
    text << "clamped " << clamp_word(A.f.clamped) << ": the total " << num(A.f.unclamped) << " lies "
         << (A.f.clamped == MFPRIO_CLAMP_LOW ? "below" : "above") << " the priorities " << plugin.type()
         << " gives, so the priority is " << A.f.priority << "; it moves only once the total is back inside\n";

  // To pass the job just above: the gap in the unclamped scale.
  const Priced* above = ranks[0] > 0 ? &priced[order[ranks[0] - 1]] : nullptr;
  double gap = 0;
  bool strict = false;  // A loses ties to the job above: it must get strictly more
  bool hidden = false;  // a clamp hides the order of the totals: no growth can be stated
  if (above) {
    gap = above->f.unclamped - A.f.unclamped;
    strict = by_submit(above->rec, A.rec);
    const uint64_t above_id = records[above->rec].spec->id;
    const bool tie = above->f.priority == A.f.priority;
    hidden = gap < 0 || (tie && (A.f.clamped != MFPRIO_CLAMP_NONE || above->f.clamped != MFPRIO_CLAMP_NONE));
    json_object_set_new(doc.get(), "above_job_id", json_integer(static_cast<json_int_t>(above_id)));
    json_object_set_new(doc.get(), "gap", hidden ? json_null() : json_real(gap));
    json_object_set_new(doc.get(), "gap_strict", json_boolean(strict));
    json_object_set_new(doc.get(), "tie", json_boolean(tie));
    if (tie) {
      const JobSpec& sb = *records[above->rec].spec;
      text << "job " << above_id << " has the same priority " << A.f.priority << "; the tie is broken by submit time"
           << (sb.submit == sa.submit ? ", then job id (equal submit times)" : "") << ": job " << above_id
           << " comes first\n";
    }
    if (hidden)
      text << "to move up one place, past job " << above_id << " (priority " << above->f.priority
           << "): its priority must rise above " << above->f.priority
           << "; the totals are clamped, so no growth of the total can be stated\n";
    else
      text << "to move up one place, past job " << above_id << " (priority " << above->f.priority
           << "): the total must grow by " << (strict ? "more than " : "at least ") << num(gap) << "\n";
  } else {
    json_object_set_new(doc.get(), "above_job_id", json_null());
    text << "it is first: no job is above it\n";
  }
  char line[256];
  std::snprintf(line, sizeof line, "  %-20s %12s %12s %14s  %s\n", "TERM", "FACTOR", "WEIGHT", "CONTRIBUTION",
                above ? "TO PASS THE JOB ABOVE (this term alone)" : "");
  text << line;
  // A time-dependent term can grow no further than it gets by the horizon:
  // priced there once, a need beyond that is "cannot".
  mfprio_factors_t at_horizon{};
  if (above) factors_at(A.rec, now + kHorizon, &at_horizon);
  auto horizon_contribution = [&](const std::string& name, double fallback) {
    for (uint32_t t = 0; t < at_horizon.term_count && t < MFPRIO_MAX_TERMS; ++t)
      if (at_horizon.terms[t].parent < 0 && term_name(at_horizon.terms[t]) == name) return at_horizon.terms[t].contribution;
    return fallback;
  };
  json_t* terms = json_array();
  json_object_set_new(doc.get(), "terms", terms);
  for (uint32_t t = 0; t < A.f.term_count && t < MFPRIO_MAX_TERMS; ++t) {
    const mfprio_term_t& term = A.f.terms[t];
    if (term.parent >= 0) continue;
    json_t* jt = json_object();
    json_object_set_new(jt, "name", json_string(term_name(term).c_str()));
    json_object_set_new(jt, "factor", json_real(term.factor));
    json_object_set_new(jt, "weight", json_real(term.weight));
    json_object_set_new(jt, "contribution", json_real(term.contribution));
    json_object_set_new(jt, "capped", json_boolean(term.flags & MFPRIO_TERMF_CAPPED));
    std::string need;
    const bool display_only = term.flags & (MFPRIO_TERMF_TEXT | MFPRIO_TERMF_LIST);  // shown, not summed
    if (above && hidden && !display_only) {
      need = "cannot (the clamp hides the total)";
      json_object_set_new(jt, "to_pass", json_string("cannot"));
    } else if (above && !display_only) {
      const char* why = nullptr;
      if (term.flags & MFPRIO_TERMF_CAPPED) why = "capped";
      else if (term.flags & MFPRIO_TERMF_RAW) why = "an amount set as is";
      else if (term.weight == 0) why = "weight 0";
      const double later = horizon_contribution(term_name(term), term.contribution);
      std::string reach;
      if (!why && !same(later, term.contribution) && later - term.contribution < gap + (strict ? 1e-9 : 0)) {
        reach = "it reaches at most " + num(later, 2) + " as time passes";
        why = reach.c_str();
      }
      if (why) {
        need = std::string("cannot (") + why + ")";
        json_object_set_new(jt, "to_pass", json_string("cannot"));
      } else {
        const double df = gap / term.weight;
        need = "factor " + std::string(strict ? "> " : ">= ") + num(term.factor + df, 6) + " (+" + num(df, 6) + ")";
        json_t* tp = json_object();
        json_object_set_new(tp, "contribution", json_real(gap));
        json_object_set_new(tp, "factor", json_real(term.factor + df));
        json_object_set_new(jt, "to_pass", tp);
      }
    }
    json_array_append_new(terms, jt);
    std::snprintf(line, sizeof line, "  %-20s %12s %12s %14s  %s\n", term_name(term).c_str(),
                  (term.flags & MFPRIO_TERMF_TEXT) ? term.text : num(term.factor, 6).c_str(), num(term.weight, 2).c_str(),
                  num(term.contribution, 2).c_str(), need.c_str());
    text << line;
  }

  if (ranks.size() == 1) {
    // What moves the job with time alone: the terms whose contribution moves in a day.
    mfprio_factors_t a1{};
    factors_at(A.rec, now + kProbe, &a1);
    const std::vector<std::string> timed = timed_terms(A.f, a1);
    json_t* jt = json_array();
    for (const std::string& n : timed) json_array_append_new(jt, json_string(n.c_str()));
    json_object_set_new(doc.get(), "time_dependent", jt);
    text << "time-dependent terms:";
    for (const std::string& n : timed) text << " " << n;
    text << (timed.empty() ? " none\n" : "\n");
  }

  if (ranks.size() == 2) {
    const Priced& B = priced[order[ranks[1]]];
    const JobSpec& sb = *records[B.rec].spec;
    json_t* vs = json_object();
    json_object_set_new(doc.get(), "versus", vs);
    json_object_set_new(vs, "job_id", json_integer(static_cast<json_int_t>(sb.id)));
    json_object_set_new(vs, "rank", json_integer(ranks[1] + 1));
    json_object_set_new(vs, "priority", json_integer(B.f.priority));
    const bool a_ahead = ranks[0] < ranks[1];
    text << "\njob " << sa.id << " (rank " << ranks[0] + 1 << ", priority " << A.f.priority << ") is "
         << (a_ahead ? "ahead of" : "behind") << " job " << sb.id << " (rank " << ranks[1] + 1 << ", priority "
         << B.f.priority << ")\n";
    // Term differences A - B, largest first.
    struct Diff {
      std::string name;
      double d;
    };
    std::vector<Diff> diffs;
    auto contribution_of = [](const mfprio_factors_t& f, const std::string& name) {
      for (uint32_t t = 0; t < f.term_count && t < MFPRIO_MAX_TERMS; ++t)
        if (f.terms[t].parent < 0 && term_name(f.terms[t]) == name) return f.terms[t].contribution;
      return 0.0;
    };
    std::set<std::string> names;
    for (const mfprio_factors_t* f : {&A.f, &B.f})
      for (uint32_t t = 0; t < f->term_count && t < MFPRIO_MAX_TERMS; ++t)
        if (f->terms[t].parent < 0 && !(f->terms[t].flags & MFPRIO_TERMF_TEXT)) names.insert(term_name(f->terms[t]));
    for (const std::string& n : names) {
      const double d = contribution_of(A.f, n) - contribution_of(B.f, n);
      if (!same(d, 0)) diffs.push_back({n, d});
    }
    mfprio::stable_order(diffs.begin(), diffs.end(), [](const Diff& x, const Diff& y) { return x.d > y.d; });
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
    factors_at(A.rec, now + kProbe, &a1);
    factors_at(B.rec, now + kProbe, &b1);
    std::vector<std::string> timed = timed_terms(A.f, a1);
    for (const std::string& n : timed_terms(B.f, b1))
      if (std::find(timed.begin(), timed.end(), n) == timed.end()) timed.push_back(n);
    json_t* jt = json_array();
    for (const std::string& n : timed) json_array_append_new(jt, json_string(n.c_str()));
    json_object_set_new(vs, "time_dependent", jt);
    text << "time-dependent terms:";
    for (const std::string& n : timed) text << " " << n;
    text << (timed.empty() ? " none\n" : "\n");

    // When B overtakes A (only time moving): doubling grid, then bisection.
    auto b_ahead_at = [&](int64_t t) {
      mfprio_factors_t fa{}, fb{};
      factors_at(A.rec, t, &fa);
      factors_at(B.rec, t, &fb);
      return ahead(fb.priority, B.rec, fa.priority, A.rec);
    };
    std::optional<int64_t> when;
    std::string verdict;
    if (!a_ahead) {
      verdict = "job " + std::to_string(sb.id) + " is already ahead";
    } else if (timed.empty()) {
      verdict = "never (no term depends on time)";
    } else {
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
      if (hi < 0) {
        verdict = "never (within 10 years)";
      } else {
        while (hi - lo > 1) {
          const int64_t mid = lo + (hi - lo) / 2;
          if (b_ahead_at(mid)) hi = mid;
          else lo = mid;
        }
        when = hi;
        verdict = iso_utc(hi) + " (in " + span(hi - now) + ")";
      }
    }
    json_object_set_new(vs, "overtakes_at", when ? json_integer(*when) : json_null());
    json_object_set_new(vs, "overtakes_in", when ? json_integer(*when - now) : json_null());
    json_object_set_new(vs, "overtake", json_string(verdict.c_str()));
    text << "job " << sb.id << " overtakes job " << sa.id << ": " << verdict << "\n";
  }
  clock.fixed = was_fixed;
  clock.now = was_now;
  if (o.json) std::cout << json_dump_string(doc.get(), JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12)) << "\n";
  else std::cout << text.str();
  std::cout.flush();
  return 0;
}

}  // namespace mfprio::host
