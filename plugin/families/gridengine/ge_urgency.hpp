// ge_urgency.hpp - Grid Engine urgency of one job and the normalisation used
// for nurg and every other normalised column.  sgeee.c:sge_do_priority, sge_urgency.c.
//
//   urg     = rrcontr + wtcontr + dlcontr            (no rounding; qstat's nint is display)
//   rrcontr = sum over the implicit slots request and every HARD request of
//             numeric complex: value * urgency * S   (value per slot, TRUE = 1)
//             string complex:  urgency               (once)
//   S       = 1 sequential; PE fixed count; PE range -> the PE's urgency_slots
//             (min = first id, max = last id or PE slots when infinite,
//              avg = mean of the ids capped at PE slots, truncated; or an integer)
//   wtcontr = weight_waiting_time * (now - submit)   (running jobs too)
//   dlcontr = weight_deadline / max(deadline - now, 1) when a deadline is set
//
// Entry points: urgency_slot_count, job_urgency, normalize; job_urgency is
// static_urgency (S and rrcontr: the requests and complexes, no time) then
// timed_urgency (wtcontr, dlcontr, urg at `now`), which a caller keeping a
// job's static part across passes calls alone.
// Invariant: job_urgency validates every request before returning parts.
#pragma once

#include <string>

#include "ge_model.hpp"

namespace mfprio::gridengine {

struct UrgencyParts {
  double rrcontr = 0;
  double wtcontr = 0;
  double dlcontr = 0;
  double urg = 0;
  uint32_t slots = 1;        // S
  bool deadline_bound = false;  // deadline reached: dlcontr = weight_deadline
};

// The part of a job's urgency that does not depend on time.
struct StaticUrgency {
  double rrcontr = 0;
  uint32_t slots = 1;  // S
};

// S of sge_urgency.c (sge_job_slot_request + pe_urgency_slots).
uint32_t urgency_slot_count(const Job& job);

// Fails (with the job id, request and reason in *why) on an unknown complex or a
// numeric complex with a non-numeric value.  A `slots` entry among the requests
// is ignored: the implicit slots request already counts it.
bool job_urgency(const Job& job, const Model& model, int64_t now, UrgencyParts* out,
                 std::string* why);

// S and rrcontr; fails as job_urgency does.
bool static_urgency(const Job& job, const ComplexTable& complexes, StaticUrgency* out, std::string* why);

// The parts at `now` over the static part: wtcontr from the submit time,
// dlcontr from the deadline (has_deadline false: none), urg the sum.
UrgencyParts timed_urgency(const StaticUrgency& s, const SchedConf& conf, int64_t submit_time, bool has_deadline,
                           int64_t deadline, int64_t now);

// 0.5 when hi - lo < 1e-5, else (v - lo)/(hi - lo).  URG:sge_normalize_value.
inline double normalize(double v, double lo, double hi) {
  if (hi - lo < 1e-5) return 0.5;
  return (v - lo) / (hi - lo);
}

}  // namespace mfprio::gridengine
