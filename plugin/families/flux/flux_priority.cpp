// flux_priority.cpp - see flux_priority.hpp for the formulas.
//
// The sum is formed in double, in flux-accounting's order (fair share, queue,
// bank, urgency).  flux-accounting multiplies the integer queue priority and
// the urgency by int weights in 32-bit int arithmetic (overflow is undefined
// there); we multiply in double, which is exact for every product a 32-bit
// weight and a 32-bit factor can give below 2^53 and never wraps.
#include "flux_priority.hpp"

#include <algorithm>
#include <cmath>

namespace mfprio::flux {
namespace {

// Only touches *terms (and so allocates) when terms is non-null.
void add_term(std::vector<Term>* terms, const char* name, std::string_view label, double factor,
              double weight, double contribution, bool bound) {
  if (!terms) return;
  Term t;
  t.name = name;
  t.label = std::string(label);
  t.factor = factor;
  t.weight = weight;
  t.contribution = contribution;
  t.bound = bound;
  t.parent = -1;
  terms->push_back(std::move(t));
}

bool valid(int32_t i, size_t n) { return i >= 0 && static_cast<size_t>(i) < n; }

bool permitted(const Association& a, int32_t queue) {
  return std::find(a.queues.begin(), a.queues.end(), queue) != a.queues.end();
}

// The priority of a sum (finish_sum) into *r.
void finish(double sum, Result* r) {
  r->total_unclamped = sum;
  r->priority = finish_sum(sum, &r->clamped_low, &r->clamped_high);
}

double clamp01(double x, bool* bound) {
  if (x < 0.0) {
    *bound = true;
    return 0.0;
  }
  if (x > 1.0) {
    *bound = true;
    return 1.0;
  }
  return x;
}

std::string label_with(const char* what, const std::string& name) {
  return std::string(what) + " '" + name + "'";
}

void price_accounting(const Model& m, const Job& job, const Association* a, int urgency,
                      std::vector<Term>* terms, Result* r) {
  const Weights& w = m.settings.weights;

  const double fs = a ? a->fairshare : 0.0;
  const double fs_c = fairshare_term(w, a);
  if (terms)
    add_term(terms, "fairshare", a ? "fair share (weighted tree rank / N)" : "fair share (unknown association)",
             fs, static_cast<double>(w.fairshare), fs_c, false);

  // Queue: none or unknown to the model -> 0; not permitted -> 0 (check_job
  // refuses such a job; flux-accounting returns INVALID_QUEUE and rejects it).
  double q = 0.0;
  bool q_bound = false;
  if (valid(job.queue, m.queues.size())) {
    if (a && permitted(*a, job.queue))
      q = static_cast<double>(m.queues[job.queue].priority);
    else
      q_bound = true;
  }
  const double q_c = queue_term(w, q);
  if (terms) {
    std::string label = job.queue == kNone       ? std::string("no queue")
                        : !valid(job.queue, m.queues.size()) ? std::string("queue unknown to accounting")
                        : q_bound ? label_with("queue not permitted:", m.queues[job.queue].name)
                                  : label_with("priority of queue", m.queues[job.queue].name);
    add_term(terms, "queue", std::move(label), q, static_cast<double>(w.queue), q_c, q_bound);
  }

  const double b = bank_factor(m, a);
  const double b_c = bank_term(w, b);
  if (terms)
    add_term(terms, "bank", a ? label_with("priority of bank", a->bank) : std::string("bank priority"), b,
             static_cast<double>(w.bank), b_c, false);

  const double u = static_cast<double>(urgency - kUrgencyDefault);
  const double u_c = urgency_term(w, urgency);
  if (terms) add_term(terms, "urgency", "urgency - 16", u, static_cast<double>(w.urgency), u_c, false);

  r->total_unclamped = fs_c + q_c + b_c + u_c;
  r->priority = accounting_total(fs_c, q_c, b_c, u_c, &r->clamped_low, &r->clamped_high);
}

void price_design(const Model& m, const Job& job, const Association* a, int64_t now,
                  std::vector<Term>* terms, Result* r) {
  const Weights& w = m.settings.weights;
  double sum = 0.0;

  // wait_time: capped at max_wait (the design page: no increase past it).
  bool wt_bound = false;
  const double waited = static_cast<double>(now - job.submit_time);
  const double wt = clamp01(waited / static_cast<double>(m.settings.max_wait), &wt_bound);
  const double wt_c = static_cast<double>(w.wait_time) * wt;
  sum += wt_c;
  add_term(terms, "wait_time", "time since submit / max_wait", wt, static_cast<double>(w.wait_time),
           wt_c, wt_bound);

  bool fs_bound = false;
  const double fs = a ? clamp01(a->fairshare, &fs_bound) : 0.0;
  const double fs_c = static_cast<double>(w.fairshare) * fs;
  sum += fs_c;
  add_term(terms, "fairshare", "fair share (0.5 = exactly served)", fs, static_cast<double>(w.fairshare),
           fs_c, fs_bound);

  bool qos_bound = false;
  double qos = 0.0;
  if (valid(job.qos, m.qos.size()) && m.max_qos_priority > 0.0)
    qos = clamp01(m.qos[job.qos].priority / m.max_qos_priority, &qos_bound);
  const double qos_c = static_cast<double>(w.qos) * qos;
  sum += qos_c;
  if (terms)
    add_term(terms, "qos",
             valid(job.qos, m.qos.size()) ? label_with("priority of qos", m.qos[job.qos].name) + " / largest"
                                          : std::string("no known qos"),
             qos, static_cast<double>(w.qos), qos_c, qos_bound);

  bool q_bound = false;
  double q = 0.0;
  if (valid(job.queue, m.queues.size())) {
    if (a && permitted(*a, job.queue)) {
      if (m.max_queue_priority > 0.0)
        q = clamp01(static_cast<double>(m.queues[job.queue].priority) / m.max_queue_priority, &q_bound);
    } else {
      q_bound = true;
    }
  }
  const double q_c = static_cast<double>(w.queue) * q;
  sum += q_c;
  if (terms)
    add_term(terms, "queue",
             valid(job.queue, m.queues.size())
                 ? label_with("priority of queue", m.queues[job.queue].name) + " / largest"
                 : std::string("no known queue"),
             q, static_cast<double>(w.queue), q_c, q_bound);

  bool js_bound = false;
  double js = 0.0;
  if (m.cluster_nodes > 0) {
    const double x = clamp01(static_cast<double>(job.nodes) / static_cast<double>(m.cluster_nodes), &js_bound);
    js = m.settings.job_size_favor == SizeFavor::kSmall ? 1.0 - x : x;
  }
  const double js_c = static_cast<double>(w.job_size) * js;
  sum += js_c;
  add_term(terms, "job_size",
           m.settings.job_size_favor == SizeFavor::kSmall ? "1 - nodes / cluster nodes (favor small)"
                                                          : "nodes / cluster nodes (favor large)",
           js, static_cast<double>(w.job_size), js_c, js_bound);

  // user: 1 unless the user lowered it; it can never raise a priority.
  bool u_bound = false;
  const double uf = std::isnan(job.user_factor) ? 1.0 : clamp01(job.user_factor, &u_bound);
  const double u_c = static_cast<double>(w.user) * uf;
  sum += u_c;
  add_term(terms, "user", "user factor (1 unless lowered)", uf, static_cast<double>(w.user), u_c, u_bound);

  finish(sum, r);
}

}  // namespace

void prepare_model(Model* m) {
  m->max_queue_priority = 0.0;
  for (const Queue& q : m->queues)
    m->max_queue_priority = std::max(m->max_queue_priority, static_cast<double>(q.priority));
  m->max_qos_priority = 0.0;
  for (const Qos& q : m->qos) m->max_qos_priority = std::max(m->max_qos_priority, q.priority);
}

bool check_job(const Model& m, const Job& job, std::string* why) {
  // Built only for a message: this runs for every job priced.
  auto jid = [&] { return "job " + std::to_string(job.id); };
  if (!valid(job.assoc, m.assocs.size())) {
    if (why) *why = jid() + ": no such user association (index " + std::to_string(job.assoc) + ")";
    return false;
  }
  const Association& a = m.assocs[job.assoc];
  if (job.urgency < kUrgencyHold || job.urgency > kUrgencyExpedite) {
    if (why)
      *why = jid() + " (user " + a.user + ", bank " + a.bank + "): urgency " + std::to_string(job.urgency) +
             " is outside 0..31";
    return false;
  }
  if (job.queue != kNone && job.queue != kUnknown && !valid(job.queue, m.queues.size())) {
    if (why) *why = jid() + ": bad queue index " + std::to_string(job.queue);
    return false;
  }
  if (valid(job.queue, m.queues.size()) && !permitted(a, job.queue)) {
    if (why)
      *why = jid() + ": user " + a.user + " in bank " + a.bank + " may not use queue " +
             m.queues[job.queue].name;
    return false;
  }
  if (job.qos != kNone && job.qos != kUnknown && !valid(job.qos, m.qos.size())) {
    if (why) *why = jid() + ": bad qos index " + std::to_string(job.qos);
    return false;
  }
  return true;
}

Result price(const Model& m, const Job& job, int64_t now, std::vector<Term>* terms) {
  Result r;
  if (terms) terms->clear();
  const int urgency = std::clamp(job.urgency, kUrgencyHold, kUrgencyExpedite);

  // flux-core's job manager: hold and expedite win over any plugin.
  if (urgency == kUrgencyHold) {
    add_term(terms, "urgency", "urgency 0: held", 0.0, 0.0, 0.0, true);
    return r;
  }
  if (urgency == kUrgencyExpedite) {
    r.total_unclamped = static_cast<double>(kPriorityMax);
    r.priority = kPriorityMax;
    add_term(terms, "urgency", "urgency 31: expedite", 31.0, 0.0, static_cast<double>(kPriorityMax), true);
    return r;
  }

  const Association* a = valid(job.assoc, m.assocs.size()) ? &m.assocs[job.assoc] : nullptr;
  if (m.settings.mode == Mode::kDesign)
    price_design(m, job, a, now, terms, &r);
  else
    price_accounting(m, job, a, urgency, terms, &r);
  return r;
}

int32_t find_association(const Model& m, std::string_view user, std::string_view bank) {
  for (size_t i = 0; i < m.assocs.size(); ++i)
    if (m.assocs[i].user == user && m.assocs[i].bank == bank) return static_cast<int32_t>(i);
  return kNone;
}

int32_t find_queue(const Model& m, std::string_view name) {
  if (name.empty()) return kNone;
  for (size_t i = 0; i < m.queues.size(); ++i)
    if (m.queues[i].name == name) return static_cast<int32_t>(i);
  return kUnknown;
}

int32_t find_qos(const Model& m, std::string_view name) {
  if (name.empty()) return kNone;
  for (size_t i = 0; i < m.qos.size(); ++i)
    if (m.qos[i].name == name) return static_cast<int32_t>(i);
  return kUnknown;
}

}  // namespace mfprio::flux
