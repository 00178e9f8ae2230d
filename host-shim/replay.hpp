// replay.hpp - `mfprio-host replay`: a workload replay of an SWF trace
// (swf.hpp) through the loaded priority plugin, on simulated time.
//
// Call order: read_swf -> plan_replay (pure: names, times, skips) ->
//   either accounts_json (for `--emit-accounts`, no plugin needed)
//   or Plugin::open/init -> run_replay.
//
// Mapping (for users: mfprio-host(1), replay): SWF user id U -> user "uU",
// group id G -> account "gG" (-1: the user's default account), partition
// number N -> partition "pN", else queue number Q -> "qQ", else the default
// partition.  Trace time t -> epoch epoch0 + t (epoch0: --start, else the
// header's UnixStartTime, else kDefaultEpoch0).  submit = t_submit; start =
// submit + wait (wait -1: start = submit); end = start + run time.  Records
// with an unknown run time, processor count or user are skipped and counted.
//
// Simulation (run_replay): events in time order, at one instant submits,
// then starts, then ends (job_end; a plugin without it charges nothing at
// job end).  Calc-period passes at first_submit + k * period, each after the
// events of its instant: decay(now, running), then the pending jobs priced in
// one call: prioritize(pending, running) when the plugin has it, else
// set_priority_batch, else set_priority per job.  The final share table is
// the plugin's (share_table, optional); root usage is its top row's
// "raw_usage" cell.  Passes continue until the
// first one at or after the last job end, so every job has ended and been
// charged exactly from start to end.  Nothing is charged until every job
// has resolved (job_resolve) and the store's last decay pass is not after
// the trace's first instant.
#pragma once

#include <mfprio/mfprio.h>

#include <cstdint>
#include <deque>
#include <iosfwd>
#include <string>
#include <vector>

#include "loader.hpp"
#include "swf.hpp"

namespace mfprio::host {

inline constexpr int64_t kDefaultEpoch0 = 1000000000;  // 2001-09-09T01:46:40Z

struct ReplayJob {
  const SwfJob* src = nullptr;
  int64_t submit = 0, start = 0, end = 0;  // epoch seconds
  uint32_t cpus = 0;
  mfprio_job_t job{};  // strings point into ReplayPlan::names
};

struct ReplayPlan {
  std::string file;
  int64_t epoch0 = 0;
  std::vector<ReplayJob> jobs;
  uint64_t records = 0;
  uint64_t skipped_runtime = 0, skipped_procs = 0, skipped_user = 0;
  uint64_t cpu_seconds = 0;  // sum of cpus x run time over jobs
  std::deque<std::string> names;  // interned names: stable addresses
  // users in first-seen order, each with its groups in first-seen order
  std::vector<std::pair<int64_t, std::vector<int64_t>>> user_groups;
};

// Builds the plan.  epoch0 < 0: take the trace's UnixStartTime or kDefaultEpoch0.
// The trace must outlive the plan.
ReplayPlan plan_replay(const SwfTrace& trace, int64_t epoch0 = -1);

// An `mfprio-acct import` document creating the plan's accounts and users:
// accounts "gG" under root (1 share each), users "uU" (1 share) in each of
// their groups, the first group seen being the default.  A user seen only
// with group -1 goes to account "nogroup".
std::string accounts_json(const ReplayPlan& plan);

struct ReplayOptions {
  int64_t calc_period = 300;  // seconds, >= 1
  double speed = 0;           // simulated seconds per wall second; 0 = as fast as possible
  bool report_passes = false; // one line per pass
  uint32_t pending_top = 0;   // print the top N pending jobs per pass (0: no)
  bool sshare = true;         // print the final share table
};

// Runs the simulation, printing to `out`.  Returns the exit status (0, or 1
// after printing why on stderr); a failed plugin call throws PluginError.
int run_replay(ReplayPlan& plan, const ReplayOptions& opt, Plugin& plugin, Clock& clock, std::ostream& out);

// "2002-07-28T07:04:05Z"
std::string iso_utc(int64_t t);

}  // namespace mfprio::host
