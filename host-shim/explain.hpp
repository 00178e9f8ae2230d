// explain.hpp - `mfprio-host explain`: why a pending job ranks where it does,
// in the family's own terms (mfprio_term_t from job_factors), for every
// family alike.
//
// One job A: each top-level term's factor, weight and contribution, A's rank
// among the file's pending jobs (priority order, ties: submit time, then job
// id, as simulate schedules), and what A needs to pass the job just above it:
// the gap (in the family's unclamped scale) and, per term, how much that term
// alone would have to grow ("cannot" when the term is capped, has weight 0,
// or is text/list/raw).
//
// Two jobs A, B: the terms by which A and B differ, largest first, and the
// time at which B overtakes A when only time moves: the time-dependent terms
// are found by pricing both at now and now + 1 day (a term whose
// contribution moves for either job), then the first sampled time in (now,
// now + 10 years] at which B ranks ahead (a grid doubling from 1 minute) is
// narrowed by bisection to the second, every point a real job_factors call.
//
// Call order: main.cpp has loaded and init'ed the plugin; cmd_explain reads
// the job file, resolves, prices the queue (prioritize when the plugin has
// it), then calls job_factors.  Needs job_factors (else it says so, exit 1).
#pragma once

#include <cstdint>

#include "cli.hpp"
#include "loader.hpp"

namespace mfprio::host {

int cmd_explain(const Options& o, Plugin& plugin, Clock& clock, int64_t now);

}  // namespace mfprio::host
