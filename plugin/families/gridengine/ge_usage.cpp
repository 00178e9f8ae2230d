// ge_usage.cpp - usage combination, decay and charging (see ge_usage.hpp).
#include "ge_usage.hpp"

#include <algorithm>
#include <cmath>

namespace mfprio::gridengine {

double combine_usage(const Usage& u, const UsageWeights& w) {
  const double sum = w.cpu + w.mem + w.io;
  if (!(sum > 0)) return 0.0;
  return u.cpu * (w.cpu / sum) + u.mem * (w.mem / sum) + u.io * (w.io / sum);
}

double decay_factor(double constant, double elapsed_seconds) {
  if (elapsed_seconds <= 0) return 1.0;
  if (constant <= 0) return 0.0;
  return std::pow(constant, elapsed_seconds / 60.0);
}

void decay_usage(UsageRecord* r, const SchedConf& conf, int64_t now) {
  if (r->last_decay == 0 || now <= r->last_decay) {
    if (r->last_decay == 0 || now > r->last_decay) r->last_decay = now;
    return;
  }
  const double elapsed = static_cast<double>(now - r->last_decay);
  auto constant_for = [&](const char* name) { return type_decay_constant(conf, name); };
  r->usage.cpu *= decay_factor(constant_for("cpu"), elapsed);
  r->usage.mem *= decay_factor(constant_for("mem"), elapsed);
  r->usage.io *= decay_factor(constant_for("io"), elapsed);
  const double fj = conf.halflife_decay_list.empty() ? 0.0 : constant_for("finished_jobs");
  r->finished_jobs *= decay_factor(fj, elapsed);
  r->last_decay = now;
}

Usage charge_running_job(UsageRecord* owner, const Usage& job_total, Usage* debited) {
  Usage add;
  add.cpu = std::max(job_total.cpu - debited->cpu, 0.0);
  add.mem = std::max(job_total.mem - debited->mem, 0.0);
  add.io = std::max(job_total.io - debited->io, 0.0);
  owner->usage.cpu += add.cpu;
  owner->usage.mem += add.mem;
  owner->usage.io += add.io;
  *debited = job_total;
  return add;
}

Usage record_finished_job(UsageRecord* owner, const Usage& job_total, Usage* debited) {
  Usage add = charge_running_job(owner, job_total, debited);
  owner->finished_jobs += 1.0;
  return add;
}

}  // namespace mfprio::gridengine
