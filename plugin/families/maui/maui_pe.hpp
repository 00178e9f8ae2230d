// maui_pe.hpp - processor equivalents (PE), MJob.c:MJobGetPE.
//
// Purpose: the RES.PE sub-factor.  A job's PE is the number of processors
// "worth" of the machine it blocks: for each requirement, the largest share
// it asks of any one resource (processors, memory, disk, swap), counted per
// task, summed over tasks and requirements, and scaled back to processors:
//
//   pe_task  = max( procs/TotProcs, mem/TotMem, disk/TotDisk, swap/TotSwap )
//              (a resource counts only when both the request and the total
//               are > 0; processors always count)
//   TotalPE  = TotProcs * sum over reqs of tasks * pe_task
//   TotalPE  = 0 when TotProcs <= 0
//
// (src/MJob.c:MJobGetPE; Maui 3.2 Administrator's Guide §5.1.2.3: 25% of the processors and 50% of
// the memory of a 128-processor machine gives max(25%, 50%) * 128 = 64.)
//
// Entry points: processor_equivalents() for a multi-requirement job,
// processor_equivalents_flat() for one requirement given as job totals (the
// per-task maximum times the task count equals the maximum of the totals
// when all tasks are alike).  Pure, no allocation.
#pragma once

#include <cstddef>

namespace mfprio::maui {

// The configured resources of the (global) partition: the denominators of a
// processor equivalent (not the cluster totals of common/cluster.hpp).
struct PeResources {
  double procs = 0.0;
  double mem_mb = 0.0;
  double swap_mb = 0.0;
  double disk_mb = 0.0;
};

// One requirement of a job: `tasks` alike tasks, each asking the amounts.
struct PeRequest {
  double tasks = 1.0;
  double procs_per_task = 0.0;
  double mem_mb_per_task = 0.0;
  double swap_mb_per_task = 0.0;
  double disk_mb_per_task = 0.0;
};

double processor_equivalents(const PeRequest* reqs, size_t n, const PeResources& t);

// One requirement, given as the job's totals.
double processor_equivalents_flat(double procs, double mem_mb, double swap_mb, double disk_mb,
                                  const PeResources& t);

}  // namespace mfprio::maui
