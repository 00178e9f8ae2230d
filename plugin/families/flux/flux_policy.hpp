// flux_policy.hpp - priority/flux as a runtime Policy: flux-accounting's
// multi-factor job priority (or the formula of Flux's "Job Priority Plugin" design page) over the store.
//
// Conf: PriorityParameters=mode=accounting|design,NAME=VALUE,...
// (flux_settings.hpp; README.md here) and AccountingStorageLoc (required).
// Store -> model (mfprio-flux(5), STORE): the accounts tree is the bank tree (an
// account's `priority` is the bank priority), user associations without a
// partition are the (user, bank) associations with their shares and
// permitted queues, the queues table gives the queue priorities, the QOS
// table the design-mode QoS priorities.  Usage per association is kept in
// half-life bins: windowed usage rows of family "flux", kind "assoc", name
// "user/bank", each window one half-life long and aligned to multiples of
// it; bin i (i half-lives back) weighs decay_factor^i, the bins kept are
// int(reset_period / half_life) (4 when 0).  An association's raw_usage,
// set by an import at usage_time, counts as a charge at that time.
//
// Job record -> flux Job: account = bank (the user's default bank when
// empty), partition = queue, qos (design), urgency with
// MFPRIO_JOBF_URGENCY (else 16), submit_time (design wait_time), min_nodes
// (design job_size; usage), cpus and the "gres/gpu" TRES (usage), attribute
// "user_factor" 0..1 (design user factor).  Unknown user or bank:
// MFPRIO_ENOENT; a queue the association may not use: MFPRIO_EPERM.
//
// Usage: each decay pass charges every running job's usage per second
// (job_usage_value over one second: nodes*node_weight + cores*core_weight
// + gpus*gpu_weight) from its start (or its last charge) up to the pass,
// split at half-life boundaries, in one transaction; job_end charges the
// tail once (the store's window ledger).
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "flux_fairshare.hpp"
#include "flux_priority.hpp"
#include "flux_settings.hpp"
#include "policy.hpp"
#include "store.hpp"

namespace mfprio::flux {

struct FluxState : State {
  std::shared_ptr<const Model> model;
  // (user, bank) -> association index; user -> the default association.
  std::unordered_map<std::string, int32_t> assoc_by_key;  // user + '\n' + bank
  std::unordered_map<std::string, int32_t> default_assoc;
  std::vector<uint8_t> is_default;  // per association: its user's default (a job naming no bank)
  // The handle check's names, inline: per association its user and bank,
  // per queue and QOS its name (flux_policy.cpp: handle_names_ok).
  std::vector<std::pair<InlineName, InlineName>> assoc_names;
  std::vector<InlineName> queue_names, qos_names;
  std::unordered_map<std::string, int32_t> bank_by_name;
  // The bank/user tree, for the share view: nodes[i] with its shares and
  // decayed usage (banks: summed over their users), and node -> association.
  std::vector<TreeNode> nodes;
  std::vector<int32_t> node_assoc;  // -1 for banks
  std::vector<double> node_usage;
  std::vector<double> node_priority;  // banks' priority
  int64_t as_of = 0;  // the time the usage bins were read for
  // The batch's fast path (accounting mode; job handles, see resolve): per
  // association its weighted fair-share and bank terms, per queue slot its
  // weighted term (slot = the handle's queue code + 2: 0 unknown, 1 none,
  // i + 2 queue i), and per (association, slot) an entry: the priority at
  // the default urgency (low 32 bits), whether it was clamped low or high,
  // and whether the association may not use the queue.  The products and
  // sums are formed as price_accounting forms them: same doubles.
  struct FastAssoc {
    double fs_c = 0.0;
    double b_c = 0.0;
  };
  static constexpr int kLowBit = 32, kHighBit = 33, kRefusedBit = 34;
  std::vector<FastAssoc> fast;
  std::vector<double> queue_c;       // by slot: W_queue * 0 (unknown, none), W_queue * queue priority
  std::vector<uint64_t> slot_entry;  // [association * slots + slot]
  uint32_t slots = 0;                // queues + 2
  bool fast_ok = false;         // accounting mode and at most 62 queues
};

class FluxPolicy final : public Policy {
 public:
  const char* type() const override { return "priority/flux"; }
  void configure(const HostContext& host) override;
  std::string store_path() const override { return store_path_; }
  std::string store_origin() const override { return store_origin_; }
  std::shared_ptr<State> load(const StoreView* store, uint32_t layout_id) override;

  // Job handles: generation = the state's layout_id (a fresh one per load;
  // a decay's state keeps it when the associations, queues and QOS are the
  // same, else 0: no handle trusted), assoc = association index, partition
  // and qos = queue / QOS index, kHandleNone (0xffff) for none, kHandleUnknown
  // (0xfffe) for a name the model does not know.  A handle is trusted only
  // when current and in range; otherwise the names are looked up again.
  int resolve(const State& state, const mfprio_job_t& job, mfprio_handle_t* h, std::string* why) const override;
  void price_batch(const State& state, const PassState* pass, const mfprio_job_t* jobs, size_t count, int64_t now,
                   uint32_t* priorities, int* statuses, ClampCounts* clamps, BatchError* err) const override;

  int price(const State& state, const PassState* pass, const mfprio_job_t& job, int64_t now, Explain* explain,
            uint32_t* priority, uint32_t* clamp, std::string* why) const override;

  // Usage rules (the runtime runs the pass): windowed rows, one half-life each.
  bool plan_pass(const State& current, const UsagePass& pass, UsagePlan* plan) const override;
  int charge_job(const State& current, const mfprio_job_t& job, int64_t until, bool ended, UsagePlan* plan,
                 std::string* why) const override;
  std::shared_ptr<State> after_pass(const State& current, const UsagePass& pass, const UsagePlan& plan,
                                    const acct::PassResult& result, const StoreView* store, bool* reload) override;
  bool charges_usage() const override { return true; }

  bool has_share_view() const override { return true; }
  void share_view(const State& state, ShareView* out) const override;
  void info(const State& state, InfoView* out) const override;
  const char* clamp_reason() const override { return "the weighted sum passes Flux's largest priority"; }

 private:
  std::shared_ptr<FluxState> build(const acct::StoreData& d, const std::vector<acct::WindowRow>& rows,
                                   int64_t as_of, int64_t last_decay) const;
  std::shared_ptr<FluxState> reread(const StoreView* store, int64_t as_of, int64_t last_decay) const;
  int64_t reference_time(const FluxState& cur, const UsagePass& pass) const;
  // The job's association (ENOENT naming the user or bank when none).
  int association(const FluxState& s, const mfprio_job_t& job, int32_t* assoc, std::string* why) const;
  // The job's association, queue and QOS indices: from a current handle, or
  // by name (ENOENT naming the user, bank or design-mode QOS).
  int ids(const FluxState& s, const mfprio_job_t& job, Job* fj, std::string* why) const;

  const HostContext* host_ = nullptr;
  Settings settings_;
  std::string params_origin_;  // file:line of PriorityParameters ("" = defaults)
  uint32_t cluster_nodes_ = 0;
  std::string store_path_, store_origin_;
};

}  // namespace mfprio::flux
