// simulate.hpp - `mfprio-host simulate`: the policy lab.  One SWF trace is
// scheduled on its machine under each given conf, each on its own fresh
// store, and the outcomes are compared (sim_report.hpp prints them).
//
// Call order: read_swf -> plan_replay (replay.hpp: names, times) ->
//   SimWorld::make (the jobs every policy sees; the import document) ->
//   run_policy per conf (sequentially: a family's .so holds one instance
//   between init and fini) -> sim_report / sim_svg.
//
// The machine (run_policy; simulate.cpp's PolicyRun: the event loop, the
// calc pass, pricing, the EASY scheduler and recording, one method each):
// `procs` processors, no nodes.  Events in time
// order; at one instant: job ends (job_end_batch, else job_end), arrivals,
// the calc-period pass when due (decay(now, running)), then, when anything
// happened, the pending jobs are priced in one call (prioritize, else
// set_priority_batch, else set_priority) and the scheduler starts jobs in
// priority order (ties: submit time, then job id).  EASY backfill: the first
// job that does not fit gets a reservation at the "shadow time", when the
// running jobs' requested times free enough processors; a later job starts
// only if it fits now and either ends (by its requested time) by the shadow
// time or uses only the processors the reserved job leaves spare then.  Each
// job passed over by a backfilled job gets bypass_count + 1.
//
// Invariants: the plugin's clock is the simulated time (Clock fixed); a job
// runs min(run time, requested time) seconds; the requested time (the run
// time when unknown) is only an estimate for reservations; passes continue up
// to the first one at or after the last end, so every job is charged fully.
#pragma once

#include <mfprio/mfprio.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <optional>
#include <string>
#include <vector>

#include "loader.hpp"
#include "replay.hpp"
#include "simulate_map.hpp"
#include "swf.hpp"

namespace mfprio::host {

enum class Backfill { Easy, None };

// A job as every policy sees it.
struct SimJob {
  uint32_t plan = 0;     // index in ReplayPlan::jobs (its mfprio_job_t)
  int64_t submit = 0;    // epoch seconds
  int64_t run = 0;       // seconds it runs: min(run time, requested time)
  int64_t est = 0;       // requested time, else the run time: the reservation estimate
  uint32_t cpus = 0;
  uint32_t account = 0;  // index in SimWorld::accounts
  uint32_t user = 0;     // index in SimWorld::users
  uint32_t partition = 0;  // index in SimWorld::partitions
};

// What every policy shares: the trace's jobs on the machine, sorted by
// submit time then job id, and the account/user names of the report.
struct SimWorld {
  ReplayPlan plan;
  std::vector<SimJob> jobs;
  uint32_t procs = 0;
  uint64_t skipped_too_big = 0;      // jobs asking for more than the machine
  std::vector<std::string> accounts, users;  // sorted names
  std::vector<std::string> partitions;       // sorted names the jobs give ("" none: the default)
  std::vector<std::string> unmatched_rules;  // --map rules ("partition p7") whose trace name no job has
  std::string import_json;           // the mfprio-acct import document
  double cpu_seconds = 0;            // sum of cpus x run over jobs
  std::shared_ptr<std::set<std::string>> mapped;  // the names --map gave (the records point into it)
};

// Builds the world: accounts_json given (the --accounts file's text) or made
// from the trace (replay --emit-accounts' rules).  A job without an account
// is the user's default account in that document.  procs 0: the header's
// MaxProcs (throws std::runtime_error when neither is known).
// map (--map): the trace's users, accounts and partitions renamed first
// (and, with "partition * auto", each job's partition drawn).
SimWorld make_world(const SwfTrace& trace, uint32_t procs, const std::string& accounts_json_text,
                    const std::string& accounts_label, const SimMap* map = nullptr);

// The measures of a set of jobs (man mfprio-host(1), "simulate", Measures).
struct GroupStats {
  std::string name;
  uint64_t jobs = 0;
  double wait_mean = 0, wait_p50 = 0, wait_p95 = 0, wait_p99 = 0, wait_max = 0;
  double bsld_mean = 0;           // bounded slowdown, bound 10 s
  double bsld_p50 = 0, bsld_p95 = 0, bsld_p99 = 0;
  double later_than_fifo = 0;     // fraction of its jobs started later than under FIFO
  double cpu_seconds = 0;         // delivered: cpus x run over its jobs
  double delivered_share = 0;     // cpu_seconds / all jobs' cpu_seconds
  double target_share = 0;
};

struct PolicyResult {
  std::string name;               // the conf's file name without ".conf" (made unique)
  std::string conf;               // as given
  std::string plugin_type;
  std::string pricing_op;         // prioritize / set_priority_batch / set_priority
  std::string target_rule;        // "norm_shares" or "equal"
  int64_t calc_period = 0;
  Backfill backfill = Backfill::Easy;
  // overall
  int64_t first_submit = 0, last_end = 0, makespan = 0;
  double utilization = 0;         // cpu_seconds / (procs x makespan)
  double wait_mean = 0, wait_p50 = 0, wait_p95 = 0, wait_p99 = 0, wait_max = 0, bsld_mean = 0;
  double bsld_p50 = 0, bsld_p95 = 0, bsld_p99 = 0;
  double later_than_fifo = 0;     // fraction of jobs started later than under FIFO
  double jain = 0;                // Jain's index of delivered/target over accounts
  double jain_user_wait = 0;      // Jain's index over users' mean waits (1 when all are 0)
  double jain_user_bsld = 0;      // Jain's index over users' mean bounded slowdowns
  std::string worst_user;         // the user with the highest mean wait (first by name on a tie)
  double worst_user_wait = 0;     // its mean wait
  uint64_t jobs = 0, backfilled = 0, pricing_calls = 0, decay_passes = 0;
  double cpu_seconds = 0;
  std::optional<double> charged_usage;  // share view's top row raw_usage, when there is one
  // The names the family's own files configure (plugin_info_json's
  // "conf_names": kind -> names), for the unused-names warning.
  std::map<std::string, std::vector<std::string>> conf_names;
  std::vector<GroupStats> accounts, users;
  std::vector<GroupStats> partitions;       // by the (mapped) job's partition; "(none)": no partition
  std::vector<GroupStats> sizes, runtimes;  // job-size and run-time classes that have jobs
  // for the plot: sorted waits and bounded slowdowns, and per sample time
  // (a calc pass; 512..1024 kept) each account's share of the CPU time
  // delivered so far and the fraction of processors busy.  With the demand
  // (the report's "timeline", man mfprio-host(1)): each account's share of
  // the CPU time of the jobs submitted so far and of the processors now; the
  // processors the running and pending jobs ask for / the machine's.
  std::vector<int64_t> waits;
  std::vector<double> bslds;
  std::vector<int64_t> sample_t;
  std::vector<std::vector<double>> sample_share;         // [sample][account]
  std::vector<double> sample_util;
  std::vector<std::vector<double>> sample_demand_share;  // [sample][account]
  std::vector<std::vector<double>> sample_acct_util;     // [sample][account]
  std::vector<double> sample_demand;
  double elapsed_s = 0;           // wall time (never in --json/--csv)
};

struct SimOptions {
  Backfill backfill = Backfill::Easy;
  std::string plugin_dir;         // --plugin-dir
  bool verbose = false;
  std::FILE* decisions = nullptr; // --trace-decisions: one line per event (README)
  // Called now and then with (policy index, fraction done) for a progress line.
  std::function<void(size_t, double)> progress;
};

// Each job's start under FIFO (every priority equal: submit time, then job
// id) with the same backfill, no plugin called: the reference of
// later_than_fifo.
std::vector<int64_t> fifo_starts(const SimWorld& world, Backfill backfill);

// Runs one policy on a fresh store in `tmpdir`; `fifo`: fifo_starts (empty:
// later_than_fifo stays 0).  Throws PluginError /
// LoadError / ConfError / std::runtime_error with a one-line reason.
PolicyResult run_policy(const SimWorld& world, const std::string& conf_path, size_t index, const std::string& name,
                        const std::string& tmpdir, const SimOptions& opt, const std::vector<int64_t>& fifo = {});

// The job-size class of `cpus` and the run-time class of `run` seconds
// (their names as the report prints them).
const char* size_class(uint32_t cpus);
const char* runtime_class(int64_t run);

// p in [0,1] of sorted values, nearest rank (0 for none).
double percentile_sorted(const std::vector<double>& sorted, double p);

}  // namespace mfprio::host
