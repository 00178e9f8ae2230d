// loop.hpp - `mfprio-host loop`: a controller's calc-period loop over a job
// stream, on a clock that runs with the wall clock (so two hosts started
// apart, or one restarted, agree on the time: a controller pair).
//
// Simulated time: now = start + (wall - origin) * speed.  Passes at
// start + k * period (k >= 1) up to the first at or after `until`; each pass
// at t, once the wall clock reaches it: first job_end(_batch) for every job
// whose end lies in (previous pass, t] (the first pass: every end <= t),
// each with its own end time, then decay(t, the jobs running at t: start <=
// t < end, or no end).  Passes whose wall time has gone by (a restart) run
// at once, in order: a host that starts late first catches up on every pass
// since `start`; the store makes the repeats no-ops (a pass not after its
// last pass decays nothing, the ledger charges a job's seconds once).  A
// failed call is printed and retried (the same step, after a second), up to
// `retries` times; then the loop stops with status 1.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <vector>

#include "jobs_json.hpp"
#include "loader.hpp"

namespace mfprio::host {

struct LoopOptions {
  int64_t start = 0;          // simulated time at `origin`
  int64_t until = 0;          // the last pass is the first at or after this
  int64_t period = 300;       // seconds between passes
  double speed = 1;           // simulated seconds per wall second
  double origin = 0;          // wall time (epoch seconds) of `start`
  bool report_passes = false; // one line per pass on `out`
  int retries = 30;
};

// Runs the loop (see the top) over `records` (their specs' start and end);
// the plugin must be initialised; `clock` is the one given to its init (the
// loop sets it to each pass time).  Returns the exit status.
int run_loop(const std::vector<JobRecord>& records, const LoopOptions& opt, Plugin& plugin, Clock* clock,
             std::ostream& out);

}  // namespace mfprio::host
