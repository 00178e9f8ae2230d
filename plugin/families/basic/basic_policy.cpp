// basic_policy.cpp - see basic_policy.hpp.
#include "basic_policy.hpp"

namespace mfprio::basic {

std::shared_ptr<State> BasicPolicy::load(const StoreView*, uint32_t) { return std::make_shared<State>(); }

int BasicPolicy::price(const State&, const PassState*, const mfprio_job_t& job, int64_t, Explain* explain,
                       uint32_t* priority, uint32_t* clamp, std::string*) const {
  *clamp = MFPRIO_CLAMP_NONE;
  if (job.state == MFPRIO_JOB_HELD) {
    *priority = 0;
    if (explain) explain->total(0, 0, MFPRIO_CLAMP_NONE);
    return MFPRIO_OK;
  }
  uint32_t base;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = base_.find(job.job_id);
    if (it == base_.end()) {
      if (last_ >= 2) last_--;
      it = base_.emplace(job.job_id, last_).first;
    }
    base = it->second;
  }
  const int64_t p = static_cast<int64_t>(base) - job.nice;
  if (p < 1) {
    *priority = 1;
    *clamp = MFPRIO_CLAMP_LOW;
  } else if (p > 0xffffffffLL) {
    *priority = 0xffffffffu;
    *clamp = MFPRIO_CLAMP_HIGH;
  } else {
    *priority = static_cast<uint32_t>(p);
  }
  if (explain) {
    explain->term("fifo", "FIFO", base, 1, base, -1, MFPRIO_TERMF_RAW);
    explain->term("nice", "NICE", job.nice, -1, -static_cast<double>(job.nice), -1,
                  MFPRIO_TERMF_RAW | MFPRIO_TERMF_LONG, 11);
    explain->resolved(job.account ? job.account : "", job.partition ? job.partition : "",
                      job.qos ? job.qos : "");
    explain->total(static_cast<double>(p), *priority, *clamp);
  }
  return MFPRIO_OK;
}

// FIFO keeps no usage (plan_pass: none): a decay pass only moves the pass
// time; a job end forgets the job's number.
std::shared_ptr<State> BasicPolicy::after_pass(const State& current, const UsagePass& pass, const UsagePlan&,
                                               const acct::PassResult&, const StoreView*, bool*) {
  if (pass.ended) {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i = 0; i < pass.count; ++i) base_.erase(pass.jobs[i].job_id);
    return nullptr;
  }
  auto s = std::make_shared<State>(current);
  s->last_decay = pass.now;
  return s;
}

void BasicPolicy::info(const State&, InfoView* out) const {
  out->weight("fifo", 1);
  out->term("fifo", "FIFO", MFPRIO_TERMF_RAW);
  out->term("nice", "NICE", MFPRIO_TERMF_RAW | MFPRIO_TERMF_LONG, 11);
  out->set("order", std::string("submission (first seen first), 0xffff0000 - n, minus nice"));
}

}  // namespace mfprio::basic
