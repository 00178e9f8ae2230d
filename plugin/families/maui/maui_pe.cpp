// maui_pe.cpp - processor equivalents; formula and sources in maui_pe.hpp.
#include "maui_pe.hpp"

#include <algorithm>

namespace mfprio::maui {

namespace {

// The largest fraction of the machine one task (or one flat job) asks for.
double largest_share(double procs, double mem, double swap, double disk, const PeResources& t) {
  double pe = procs / t.procs;
  if (mem > 0.0 && t.mem_mb > 0.0) pe = std::max(pe, mem / t.mem_mb);
  if (disk > 0.0 && t.disk_mb > 0.0) pe = std::max(pe, disk / t.disk_mb);
  if (swap > 0.0 && t.swap_mb > 0.0) pe = std::max(pe, swap / t.swap_mb);
  return pe;
}

}  // namespace

double processor_equivalents(const PeRequest* reqs, size_t n, const PeResources& t) {
  if (!(t.procs > 0.0) || reqs == nullptr) return 0.0;
  double sum = 0.0;
  for (size_t i = 0; i < n; ++i) {
    const PeRequest& r = reqs[i];
    sum += r.tasks * largest_share(r.procs_per_task, r.mem_mb_per_task, r.swap_mb_per_task,
                                   r.disk_mb_per_task, t);
  }
  return t.procs * sum;
}

double processor_equivalents_flat(double procs, double mem_mb, double swap_mb, double disk_mb,
                                  const PeResources& t) {
  if (!(t.procs > 0.0)) return 0.0;
  return t.procs * largest_share(procs, mem_mb, swap_mb, disk_mb, t);
}

}  // namespace mfprio::maui
