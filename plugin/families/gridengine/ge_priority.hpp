// ge_priority.hpp - one whole-queue Grid Engine pricing pass: urgency, tickets
// and POSIX priority of every pending and running job, the final prio, its
// 32-bit mapping, the pending order and a term list per job.
// sgeee.c:sge_do_priority (prio, normalisation, order), sge_urgency.c, sgeee.c.
//
//   prio    = weight_urgency*nurg + weight_ticket*ntckts + weight_priority*npprior
//   nurg    = normalize(urg, min urg, max urg) over pending AND running jobs
//   ntckts  = normalize(tckts, 0, max_tix)
//   npprior = normalize(ppri + 1024, 0, 2048)
//   nurg (npprior) is 0.5 when weight_urgency (weight_priority) is 0 and
//   report_pjob_tickets is false.
//
// The 32-bit priority (`priority`): the IEEE-754 single-precision bit pattern of
// prio made order-preserving, u = bits(float(prio)); u = (u has the sign bit) ?
// ~u : u | 0x80000000.  Rounding double -> float is monotone, so a higher prio
// never gets a lower priority and equal prios get equal ones; prios closer than
// float precision (~6e-8 relative) may merge.  Every finite prio maps without
// clamping; NaN maps to 0.
//
// Pending order: prio desc, then submit time asc, then job id asc (SUP:sgeee_sort_jobs_by).
// Entry point: price_queue.  Pure and deterministic.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ge_model.hpp"
#include "ge_tickets.hpp"
#include "ge_urgency.hpp"

namespace mfprio::gridengine {

// One line of a job's explanation.  Top level: urgency, tickets, priority
// (factor = normalised value, weight = sched_conf weight, contribution = product,
// parent = -1).  Children point at their parent's index: rrcontr, wtcontr,
// dlcontr under urgency; stckt, ftckt, otckt under tickets (factor x weight =
// contribution to the parent's raw value).  bound: the value was clamped or
// replaced (urgency/tickets forced to 0.5, deadline reached, compensation factor
// applied on the job's share-tree path).
struct Term {
  std::string name;
  std::string label;
  double factor = 0;
  double weight = 0;
  double contribution = 0;
  bool bound = false;
  int parent = -1;
};

struct JobPrice {
  uint64_t id = 0;
  bool running = false;
  double prio = 0;
  double nurg = 0, urg = 0, rrcontr = 0, wtcontr = 0, dlcontr = 0;
  double ntckts = 0, tckts = 0, stckt = 0, ftckt = 0, otckt = 0;
  double npprior = 0;
  int ppri = 0;
  uint32_t slots = 1;     // S of the urgency (qstat's slots of a pending job)
  uint32_t priority = 0;  // order-preserving map of prio, see above
  std::vector<Term> terms;
};

struct PricingResult {
  std::vector<JobPrice> jobs;         // parallel to the input jobs
  std::vector<size_t> pending_order;  // indices of pending jobs, first = next to dispatch
  double min_urg = 0, max_urg = 0, max_tix = 0;
  // The tckts of every pending job and of every running job: the
  // denominators of qstat -ext's share (a job's tckts over its kind's total).
  double sum_tckts_pending = 0, sum_tckts_running = 0;
  TicketResult tickets;               // share-tree state for the share monitor
};

// Fails (nothing in *out changed) when a job is invalid; *why names the job.
// with_terms = false leaves every JobPrice::terms empty (the whole-queue path of
// the policy, whose explanations come from the JobPrice fields).  urgency, when
// given, is job_urgency of every job at `now` (parallel to jobs), computed by a
// caller that validated the jobs already: the pass uses it instead.
// with_order = false leaves pending_order empty (the policy's pass, which
// returns priorities and never reads the order: a sort of every pending job).
// name_ids (parallel to jobs): the jobs' ids in model.names (TicketOptions).
// scratch: the ticket pass's arrays, kept by a caller that runs many passes.
bool price_queue(const std::vector<Job>& jobs, const Model& model, int64_t now,
                 PricingResult* out, std::string* why, bool with_terms = true,
                 const std::vector<UrgencyParts>* urgency = nullptr, bool with_order = true,
                 const std::vector<JobNameIds>* name_ids = nullptr, TicketScratch* scratch = nullptr);

inline uint32_t priority_to_u32(double prio) {
  if (std::isnan(prio)) return 0;
  float f = static_cast<float>(prio);
  if (f == 0.0f) f = 0.0f;  // -0 and +0 are equal prios: one value
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

// One job's normalised columns, prio and 32-bit priority from its urg,
// tckts and POSIX priority, with a pass's bounds (lo/hi = min/max urg,
// max_tix): the formulas above, the one body every path uses.
struct Normalized {
  double nurg = 0, ntckts = 0, npprior = 0, prio = 0;
  uint32_t priority = 0;
};
inline Normalized normalize_job(const SchedConf& c, double lo, double hi, double max_tix, double urg, double tckts,
                                int ppri) {
  const bool urg_off = c.weight_urgency == 0 && !c.report_pjob_tickets;
  const bool prio_off = c.weight_priority == 0 && !c.report_pjob_tickets;
  Normalized n;
  n.nurg = urg_off ? 0.5 : normalize(urg, lo, hi);
  n.ntckts = normalize(tckts, 0, max_tix);
  n.npprior = prio_off ? 0.5 : normalize(ppri + 1024.0, 0, 2048);
  n.prio = c.weight_urgency * n.nurg + c.weight_ticket * n.ntckts + c.weight_priority * n.npprior;
  n.priority = priority_to_u32(n.prio);
  return n;
}

}  // namespace mfprio::gridengine
