// mf_priority.hpp - one job's multifactor priority (priority_multifactor.c:_get_priority_internal) from a Snapshot.
//
//   prio = Wage*age + Wassoc*assoc + Wfs*fs + Wjs*jobsize + Wpart*part
//        + Wqos*qos + sum_i Wtres[i]*tres[i] + site_factor - nice
// clamped to [1, 2^32-1]; held jobs get 0; INCR_ONLY keeps a larger previous.
//
// resolve_job() does the name look-ups (hash maps) once; job_priority() then
// touches only dense arrays: no allocation, no lock, no I/O.
#pragma once

#include <cstdint>
#include <string>

#include "mfprio/mfprio.h"
#include "mf_state.hpp"

namespace mfprio::multifactor {

// Fills *h for `job` against `snap`.  Returns MFPRIO_OK, or ENOENT/EPERM/
// EINVAL with a message in *why naming the job and what is missing.
int resolve_job(const Snapshot& snap, const mfprio_job_t& job, mfprio_handle_t* h,
                std::string* why);

// Whether a handle is current, in range and names the job's own user,
// account, partition and QOS (policy.hpp: name_is); only then is it used
// instead of resolving the job's names.  Cheap: a few compares of short names.
bool handle_fits(const Snapshot& snap, const mfprio_job_t& job, const mfprio_handle_t& h);

// The priority of a resolved job.  `out` may be null (the fast path); else
// it receives the terms sprio shows, in Slurm's column order: site, age,
// assoc, fairshare, jobsize, partition, qosname, qos, nice, tres (with one
// child per PriorityWeightTRES item).  *clamp receives MFPRIO_CLAMP_*.
uint32_t job_priority(const Snapshot& snap, const mfprio_job_t& job, const mfprio_handle_t& h,
                      int64_t now, Explain* out, uint32_t* clamp);

// The batch fast path: prices every record whose handle is current and that
// needs no check beyond its size, in one tight loop; any other record is
// handed to slow(ctx, i), which must set priorities[i] and return a status.
// clamped[0]/[1] receive the high/low clamp counts of the fast records.
// statuses may be null.  Returns the first non-OK status (or MFPRIO_OK).
using SlowRecordFn = int (*)(void* ctx, size_t index);
int job_priority_batch(const Snapshot& snap, const mfprio_job_t* jobs, size_t count, int64_t now,
                       uint32_t* priorities, int* statuses, SlowRecordFn slow, void* ctx,
                       uint64_t clamped[2]);

// Billable TRES of a running job in its partition, times its QOS UsageFactor.
double job_charge_rate(const Snapshot& snap, const mfprio_job_t& job, const mfprio_handle_t& h);

}  // namespace mfprio::multifactor
