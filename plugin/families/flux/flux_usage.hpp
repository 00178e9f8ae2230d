// flux_usage.hpp - historical usage in half-life bins, as flux-accounting
// keeps it (flux-accounting job_usage_calculation.py), with its documented intent.
//
// Purpose: per association, N bins of raw usage, one per half-life period;
// bin 0 is the current period, bin i the one i half-lives back.
//   N = int(reset_period / half_life), 4 when that is <= 0 (default 28 d / 7 d = 4)
//   decayed usage = sum over i of bin_i * decay_factor^i
// Entry points: job_usage_value() (what one finished job charges),
// bin_index(), advance() (shift the bins after each elapsed half-life),
// charge_at() / charge_interval(), decayed_usage().
// Call order each update: advance(now) first, then charge, then read
// decayed_usage() (fed to the fair-share tree as the association's usage).
// Invariants: usage is never negative; a charge older than the window is
// dropped (that is the reset period: nothing older than N half-lives counts);
// advance() is idempotent for the same `now`.
//
// Where flux-accounting's code differs from its documentation (flux-accounting job_usage_calculation.py:
// the code's case 4 writes new + shifted past into period 0, so the past is
// counted again at the next update; it multiplies bins by D on each shift and
// shifts at most once per update) we follow the documentation
// (doc/components/job-usage-calculation.rst): bins hold raw usage, the decay
// factor is applied once per bin age when summing, and every elapsed
// half-life shifts once.  mfprio-flux(5), DELIBERATE DIFFERENCES.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "flux_settings.hpp"

namespace mfprio::flux {

// flux-accounting's per-job usage: round(((nnodes*node_weight) +
// (ncores*core_weight) + (ngpus*gpu_weight)) * (t_inactive - t_run), 5).
// A negative duration charges 0.
double job_usage_value(uint32_t nnodes, uint32_t ncores, uint32_t ngpus, double t_run,
                       double t_inactive, const UsageSettings& s);

struct UsageBins {
  std::vector<double> bins;  // bins[0] = current half-life period
  int64_t period_end = 0;    // end of the current period: it covers (end - H, end]

  // N empty bins whose current period ends at `period_end`.
  static UsageBins make(int n, int64_t period_end);
};

// Which bin time t falls in: 0 for t > period_end - H (times after the end
// count as current), i for (end-(i+1)H, end-iH], -1 when older than the N bins.
int bin_index(int64_t t, int64_t period_end, int64_t half_life, int nbins);

// Moves the current period forward until it contains `now`, shifting the bins
// once per whole half-life (oldest dropped, bin 0 emptied).  Returns the
// number of shifts (0 when now <= period_end).
int64_t advance(UsageBins* u, int64_t now, int64_t half_life);

// Adds `amount` to the bin of time t (flux-accounting charges a finished job
// into the period of its t_inactive).  Dropped when t is older than the window.
void charge_at(UsageBins* u, int64_t t, double amount, int64_t half_life);

// Spreads rate * seconds of [t0, t1) over the bins it overlaps (for charging
// running jobs each calc period).  Parts older than the window are dropped;
// parts after period_end go to bin 0.
void charge_interval(UsageBins* u, double t0, double t1, double rate, int64_t half_life);

// sum of bins[i] * decay_factor^i.
double decayed_usage(const UsageBins& u, double decay_factor);

// decay_factor^i for i in [0, n), each the previous times decay_factor: the
// weights decayed_usage gives the bins.
std::vector<double> bin_weights(int n, double decay_factor);

// The same sum for bins kept sparse, as (bin, usage) entries in the order
// they were added (a state keeps only the bins that hold usage: a dense
// vector per association was 100,000 bins x 3,000 associations = 2.4 GB):
// the entries of one bin are summed first, in their order, then the bins in
// ascending order times `weights` (from bin_weights), so the double equals
// decayed_usage over the dense bins.  Sorts *entries.
double decayed_usage_sparse(std::vector<std::pair<int32_t, double>>* entries, const std::vector<double>& weights);

}  // namespace mfprio::flux
