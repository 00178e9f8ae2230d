// basic_policy.hpp - priority/basic: first come, first served.
//
// Slurm's FIFO rule (Slurm 22.05 priority_basic.c): each new job gets the previous new
// job's priority minus one (never below 1), then its nice is subtracted.  The
// first job starts just under 0xffff0000, Slurm's top priority.  A job seen
// before keeps the priority it was given, so asking twice gives one answer;
// job_end forgets it.  Held jobs get 0.  No accounting store, no fair share,
// no usage, no share view.
//
// State: the job table is the policy's own, behind a mutex (unlike the
// store-backed families, basic's pricing writes: a new job takes a number).
#pragma once

#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "policy.hpp"

namespace mfprio::basic {

class BasicPolicy final : public Policy {
 public:
  const char* type() const override { return "priority/basic"; }
  void configure(const HostContext&) override {}
  std::shared_ptr<State> load(const StoreView*, uint32_t layout_id) override;
  int price(const State& state, const PassState* pass, const mfprio_job_t& job, int64_t now, Explain* explain,
            uint32_t* priority, uint32_t* clamp, std::string* why) const override;
  std::shared_ptr<State> after_pass(const State& current, const UsagePass& pass, const UsagePlan& plan,
                                    const acct::PassResult& result, const StoreView* store, bool* reload) override;
  void info(const State&, InfoView* out) const override;

  static constexpr uint32_t kTopPriority = 0xffff0000u;

 private:
  mutable std::mutex mu_;
  mutable uint32_t last_ = kTopPriority;
  mutable std::unordered_map<uint64_t, uint32_t> base_;  // job id -> priority before nice
};

}  // namespace mfprio::basic
