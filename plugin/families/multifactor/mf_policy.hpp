// mf_policy.hpp - priority/multifactor (Slurm) as a runtime Policy:
// settings from the Priority* keys, partitions from slurm.conf's PartitionName
// lines and the store (the store's override or add), the association tree and
// usage from the accounting store, fair share by one of four algorithms, and Slurm's
// decayed usage (Slurm 22.05 priority_multifactor.c, decay):
//   factor = 2^(-(now - last_decay) / PriorityDecayHalfLife)   (1 when no half-life)
//   usage  = (reset boundary crossed ? 0 : usage) * factor
//   usage += seconds run since the job's last charge x billable TRES x QOS UsageFactor
// The store applies the same steps in one transaction and returns what each
// charge added (and to which association), so memory and file agree
// without a reload.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "mf_settings.hpp"
#include "mf_state.hpp"
#include "policy.hpp"
#include "store.hpp"

namespace mfprio::multifactor {

class MultifactorPolicy final : public Policy {
 public:
  const char* type() const override { return "priority/multifactor"; }
  void configure(const HostContext& host) override;
  std::string store_path() const override { return settings_->store_path; }
  std::string store_origin() const override { return settings_->store_path_origin; }
  std::shared_ptr<State> load(const StoreView* store, uint32_t layout_id) override;

  int resolve(const State& state, const mfprio_job_t& job, mfprio_handle_t* h, std::string* why) const override;
  int price(const State& state, const PassState* pass, const mfprio_job_t& job, int64_t now, Explain* explain,
            uint32_t* priority, uint32_t* clamp, std::string* why) const override;
  void price_batch(const State& state, const PassState* pass, const mfprio_job_t* jobs, size_t count,
                   int64_t now, uint32_t* priorities, int* statuses, ClampCounts* clamps,
                   BatchError* err) const override;

  // Usage rules (the runtime runs the pass): one scalar cycle per pass.
  bool plan_pass(const State& current, const UsagePass& pass, UsagePlan* plan) const override;
  int charge_job(const State& current, const mfprio_job_t& job, int64_t until, bool ended, UsagePlan* plan,
                 std::string* why) const override;
  std::shared_ptr<State> after_pass(const State& current, const UsagePass& pass, const UsagePlan& plan,
                                    const acct::PassResult& result, const StoreView* store, bool* reload) override;
  bool charges_usage() const override { return true; }

  bool has_share_view() const override { return true; }
  void share_view(const State& state, ShareView* out) const override;
  bool share_block(const State& state, ShareBlockSink* out) const override;
  void info(const State& state, InfoView* out) const override;

 private:
  // The layout from the store's tree (its name pool moves into the layout,
  // the records it has read are freed); *usage gets each node's usage
  // (users: the store's; accounts: their sums), the first snapshot's.
  std::shared_ptr<const Layout> build_layout(acct::TreeData& data, uint32_t id, std::vector<double>* usage) const;
  // Partitions: slurm.conf's, then the store's, into L (warns once per differing partition).
  void merge_partitions(const acct::TreeData& data, Layout& L) const;
  // `usage`: per node of the layout's tree (users' read; accounts summed here).
  std::shared_ptr<Snapshot> build_snapshot(std::shared_ptr<const Layout> layout, std::vector<double> usage,
                                           int64_t last_decay, const Snapshot* prev) const;

  const HostContext* host_ = nullptr;
  std::shared_ptr<const Settings> settings_;
  ClusterTotals cluster_;
  // Control-thread state: what job ends added since the published snapshot
  // (tree node, amount, in order: the next decay pass adds them to the
  // snapshot's usage first), the reset clock.
  std::vector<std::pair<uint32_t, double>> ended_credits_;
  bool reset_now_done_ = false;  // PriorityUsageResetPeriod=NOW: once per plugin start
  // Partitions defined differently by slurm.conf and the store, already
  // reported (once per plugin start; load() runs on the control thread).
  mutable std::set<std::string> warned_partitions_;
};

}  // namespace mfprio::multifactor
