// ge_priority.cpp - the pricing pass (see ge_priority.hpp; sgeee.c:sge_do_priority).
#include "ge_priority.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>

#include "ge_urgency.hpp"
#include "stable_order.hpp"

namespace mfprio::gridengine {

namespace {
bool validate_job(const Job& j, std::string* why) {
  const auto id = [&j] { return "job " + std::to_string(j.id); };  // only on failure
  if (j.posix_priority < -1023 || j.posix_priority > 1024) {
    *why = id() + ": posix_priority " + std::to_string(j.posix_priority) + " outside -1023..1024";
    return false;
  }
  if (j.job_share < 0 || j.override_tickets < 0) {
    *why = id() + ": job_share and override_tickets must be >= 0";
    return false;
  }
  if (j.pe) {
    if (j.pe->ranges.empty()) {
      *why = id() + ": PE request '" + j.pe->name + "' has no slot range";
      return false;
    }
    for (const auto& r : j.pe->ranges)
      if (r.min < 1 || r.max < r.min) {
        *why = id() + ": PE request '" + j.pe->name + "' has a bad range";
        return false;
      }
  }
  return true;
}
}  // namespace

bool price_queue(const std::vector<Job>& jobs, const Model& model, int64_t now,
                 PricingResult* out, std::string* why, bool with_terms,
                 const std::vector<UrgencyParts>* urgency, bool with_order,
                 const std::vector<JobNameIds>* name_ids, TicketScratch* scratch) {
  const SchedConf& c = model.conf;
  const size_t n = jobs.size();
  std::vector<UrgencyParts> computed;
  if (urgency && urgency->size() != n) urgency = nullptr;
  if (!urgency) computed.resize(n);
  for (size_t i = 0; i < n; ++i) {
    if (!validate_job(jobs[i], why)) return false;
    if (!urgency && !job_urgency(jobs[i], model, now, &computed[i], why)) return false;
  }
  const std::vector<UrgencyParts>& up = urgency ? *urgency : computed;
  // Built in *out (valid jobs: nothing fails from here): a reused result
  // keeps its vectors' capacity; every field is set below.
  PricingResult& r = *out;
  r.pending_order.clear();
  r.sum_tckts_pending = r.sum_tckts_running = 0;
  TicketOptions topt;
  topt.name_ids = name_ids;
  topt.scratch = scratch;
  compute_tickets(jobs, model, topt, &r.tickets);
  r.max_tix = r.tickets.max_tix;
  // URG:sge_do_urgency: min starts at DBL_MAX, max at DBL_MIN.
  double lo = DBL_MAX, hi = DBL_MIN;
  for (const auto& p : up) {
    lo = std::min(lo, p.urg);
    hi = std::max(hi, p.urg);
  }
  r.min_urg = n ? lo : 0;
  r.max_urg = n ? hi : 0;
  const bool urg_off = c.weight_urgency == 0 && !c.report_pjob_tickets;
  const bool prio_off = c.weight_priority == 0 && !c.report_pjob_tickets;
  r.jobs.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const Job& j = jobs[i];
    const JobTickets& t = r.tickets.jobs[i];
    JobPrice& p = r.jobs[i];
    p.id = j.id;
    p.running = j.running;
    p.rrcontr = up[i].rrcontr;
    p.wtcontr = up[i].wtcontr;
    p.dlcontr = up[i].dlcontr;
    p.urg = up[i].urg;
    const bool urg_flat = urg_off || hi - lo < 1e-5;
    p.stckt = t.stckt;
    p.ftckt = t.ftckt;
    p.otckt = t.otckt;
    p.tckts = t.tckts;
    p.slots = up[i].slots;
    (j.running ? r.sum_tckts_running : r.sum_tckts_pending) += t.tckts;
    p.ppri = j.posix_priority;
    const Normalized nz = normalize_job(c, lo, hi, r.max_tix, p.urg, p.tckts, p.ppri);
    p.nurg = nz.nurg;
    p.ntckts = nz.ntckts;
    p.npprior = nz.npprior;
    p.prio = nz.prio;
    p.priority = nz.priority;
    p.terms.clear();
    if (!with_terms) continue;

    auto add = [&](const char* name, const char* label, double f, double w, bool bound, int parent) {
      p.terms.push_back(Term{name, label, f, w, f * w, bound, parent});
      return static_cast<int>(p.terms.size()) - 1;
    };
    const int u = add("urgency", "normalized urgency (nurg)", p.nurg, c.weight_urgency, urg_flat, -1);
    add("rrcontr", "resource requirement contribution", p.rrcontr, 1.0, false, u);
    add("wtcontr", "waiting time contribution (seconds x weight_waiting_time)",
        static_cast<double>(now - j.submit_time), c.weight_waiting_time, false, u);
    const double dl_f =
        j.deadline ? 1.0 / static_cast<double>(std::max<int64_t>(*j.deadline - now, 1)) : 0.0;
    add("dlcontr", "deadline contribution (weight_deadline / seconds left)", dl_f,
        c.weight_deadline, up[i].deadline_bound, u);
    const int tk = add("tickets", "normalized tickets (ntckts)", p.ntckts, c.weight_ticket,
                       !(r.max_tix > 0), -1);
    add("stckt", "share-tree tickets", p.stckt, 1.0, t.share_bound, tk);
    add("ftckt", "functional tickets", p.ftckt, 1.0, false, tk);
    add("otckt", "override tickets", p.otckt, 1.0, false, tk);
    add("priority", "normalized POSIX priority (npprior)", p.npprior, c.weight_priority, prio_off, -1);
  }
  if (!with_order) return true;
  // Sorted on flat records: no comparison reads a Job or a JobPrice.
  struct ORec {
    double prio;
    int64_t submit;
    uint64_t id;
    size_t idx;
  };
  std::vector<ORec> order;
  order.reserve(n);
  for (size_t i = 0; i < n; ++i)
    if (!jobs[i].running) order.push_back(ORec{r.jobs[i].prio, jobs[i].submit_time, jobs[i].id, i});
  mfprio::stable_order(order.begin(), order.end(), [](const ORec& a, const ORec& b) {
    if (a.prio != b.prio) return a.prio > b.prio;
    if (a.submit != b.submit) return a.submit < b.submit;
    return a.id < b.id;
  });
  r.pending_order.reserve(order.size());
  for (const ORec& o : order) r.pending_order.push_back(o.idx);
  return true;
}

}  // namespace mfprio::gridengine
