// maui_policy.hpp - priority/maui and priority/moab as a runtime Policy:
// the admin's own maui.cfg / moab.cfg (PriorityParameters=config=PATH,
// relative to the conf's directory), Maui's job priority (maui_priority),
// and fair-share usage kept per credential in FSINTERVAL windows in the
// store (acct::WindowCycle, family "maui").
//
// Job record -> Maui job (mfprio-maui(5), JOB RECORD): partition is the class,
// account the account, group the group, time_limit_min the wallclock limit,
// min_nodes/cpus/mem_mb the request, deadline, bypass_count, start_count,
// user_priority, MFPRIO_JOBF_SOFT_VIOLATION; accrual (JOBPRIOACCRUALPOLICY):
// ALWAYS from submit_time; QUEUEPOLICY from eligible_time (or submit), 0
// while MFPRIO_JOBF_BLOCKED; FULLPOLICY also 0 while dependent.
//
// Usage: every decay pass charges each running job's FSPOLICY amount per
// second (DEDICATEDPS: procs; DEDICATEDPES: processor equivalents) to its
// user, group, account, QOS and class and to the total, split at FSINTERVAL
// boundaries; job_end charges the tail once.  The fair-share view is built
// from the FSDEPTH windows up to the pass time, weighted FSDECAY^i.
#pragma once

#include <memory>
#include <string>

#include "maui_cfg.hpp"
#include "maui_fast.hpp"
#include "maui_fairshare.hpp"
#include "maui_priority.hpp"
#include "policy.hpp"
#include "store.hpp"

namespace mfprio::maui {

struct MauiState : State {
  std::shared_ptr<const Model> model;   // cfg + PE totals + fair-share view
  FsUsage usage;                        // decayed usage (for the share view)
  std::vector<acct::WindowRow> rows;    // the store's windows (for the share view)
  int64_t as_of = 0;                    // the time the fair-share view was built for
  std::shared_ptr<const NameIndex> names;  // handle indices (append-only per load epoch)
  FastPlan fast;                        // per-credential terms for resolved records
};

class MauiPolicy final : public Policy {
 public:
  explicit MauiPolicy(Flavor flavor) : flavor_(flavor) {}
  const char* type() const override { return flavor_ == Flavor::Moab ? "priority/moab" : "priority/maui"; }
  void configure(const HostContext& host) override;
  std::string store_path() const override { return store_path_; }
  std::string store_origin() const override { return store_origin_; }
  std::shared_ptr<State> load(const StoreView* store, uint32_t layout_id) override;

  int resolve(const State& state, const mfprio_job_t& job, mfprio_handle_t* h, std::string* why) const override;
  int price(const State& state, const PassState* pass, const mfprio_job_t& job, int64_t now, Explain* explain,
            uint32_t* priority, uint32_t* clamp, std::string* why) const override;
  void price_batch(const State& state, const PassState* pass, const mfprio_job_t* jobs, size_t count, int64_t now,
                   uint32_t* priorities, int* statuses, ClampCounts* clamps, BatchError* err) const override;

  // Usage rules (the runtime runs the pass): windowed rows, FSINTERVAL each.
  bool plan_pass(const State& current, const UsagePass& pass, UsagePlan* plan) const override;
  int charge_job(const State& current, const mfprio_job_t& job, int64_t until, bool ended, UsagePlan* plan,
                 std::string* why) const override;
  std::shared_ptr<State> after_pass(const State& current, const UsagePass& pass, const UsagePlan& plan,
                                    const acct::PassResult& result, const StoreView* store, bool* reload) override;
  bool charges_usage() const override { return store_path_.size() > 0; }

  bool has_share_view() const override { return true; }
  void share_view(const State& state, ShareView* out) const override;
  void info(const State& state, InfoView* out) const override;
  const char* clamp_high_text() const override { return "1000000000"; }
  const char* clamp_reason() const override { return "Maui's maximum job priority, 1e9"; }

 private:
  // parent: the state a pass follows (its names and handle layout carry
  // over when nothing new is named; else a new layout_id from
  // next_layout_id()), or null at a load (then `layout_id`, the runtime's).
  std::shared_ptr<MauiState> build(std::vector<acct::WindowRow> rows, int64_t as_of, int64_t last_decay,
                                   const MauiState* parent, uint32_t layout_id) const;
  Job to_maui(const mfprio_job_t& j, int64_t now) const;
  int64_t reference_time(const MauiState& cur, const UsagePass& pass) const;

  Flavor flavor_;
  const HostContext* host_ = nullptr;
  std::shared_ptr<const Config> cfg_;
  std::string cfg_path_;
  PeResources totals_;
  std::string store_path_, store_origin_;
};

}  // namespace mfprio::maui
