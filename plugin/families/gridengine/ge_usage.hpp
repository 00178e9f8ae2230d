// ge_usage.hpp - per-user (and per-project) usage as Grid Engine keeps it:
// cpu, mem and io separately, combined by usage_weight_list, decayed by
// halftime in one-minute steps.  sgeee.c:sge_calc_node_targets (node usage),
// sge_support.c:decay_usage (decay).
//
// Why one halftime gives 0.49998808 and not 0.5: the code turns the halftime
// into a per-MINUTE constant by linearising ln 2, c = 1 - (ln 2 / (H*3600)) * 60,
// and then raises it to the number of minutes elapsed, c^(t/60).  For H = 168 h
// that is (1 - ln2/10080)^10080 = exp(10080 * ln(1 - ln2/10080))
// = 0.5 * exp(-(ln 2)^2/(2*10080) - ...) = 0.49998808.  We reproduce the same
// constant and the same power (in double precision), not 2^(-t/H).
//
// Entry points: combine_usage, decay_constant_per_minute, decay_factor,
// decay_usage, charge_running_job, record_finished_job.
// Invariants: usage never goes negative; decay is monotone in elapsed time;
// charge adds max(job total - already debited, 0) per type, so a job's usage is
// debited exactly once however often it is charged.
#pragma once

#include <cstdint>

#include "qconf.hpp"

namespace mfprio::gridengine {

struct Usage {
  double cpu = 0;
  double mem = 0;
  double io = 0;
};

// sum_t usage_t * w_t / sum_t w_t (0 when all weights are 0).  sgeee.c:sge_calc_node_targets.
double combine_usage(const Usage& u, const UsageWeights& w);

// decay_constant_per_minute and type_decay_constant (the per-minute
// constants): qconf.hpp (mfprio-acct's usage import decays with them too).

// constant^(elapsed_seconds / 60); elapsed <= 0 gives 1.
double decay_factor(double constant, double elapsed_seconds);

// What a user or project carries between passes.
struct UsageRecord {
  Usage usage;
  double finished_jobs = 0;  // decayed count of finished jobs
  int64_t last_decay = 0;    // seconds; 0 = never decayed
};

// Decay r to time `now` with conf's halftime (hours) or, per type, its
// halflife_decay_list entry (minutes).  Without a list finished_jobs uses
// constant 0 (zeroed at the next decay); with a list it uses its own entry or
// the halftime.  A record never decayed before just gets its stamp.
void decay_usage(UsageRecord* r, const SchedConf& conf, int64_t now);

// A running job's accumulated totals so far; debited = what was already added
// to the owner.  Adds max(total - debited, 0) per type, then debited = total.
// Returns the amount added.  sge_support.c:decay_usage, EE:decay_and_sum_usage.
Usage charge_running_job(UsageRecord* owner, const Usage& job_total, Usage* debited);

// A job ended: charge its tail like charge_running_job and count it.
Usage record_finished_job(UsageRecord* owner, const Usage& job_total, Usage* debited);

}  // namespace mfprio::gridengine
