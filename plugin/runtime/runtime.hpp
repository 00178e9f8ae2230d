// runtime.hpp - what every store-backed family shares between init and
// fini: the host context, the policy, the accounting store, the published
// state, and the decay/job_end orchestration.  No family's words in it.
//
// Call order: Runtime(policy, host) configures the policy (throws
// ConfigError) -> open() opens the store (when the family keeps one) and
// publishes the first state -> decay()/job_end() on the control thread ->
// current()/last_pass() from any thread.
//
// The clock rule: a decay `now` more than PriorityMaxDecayGap (a time string,
// default 366-0, INFINITE for none) after the last pass is refused: a clock
// set years ahead would decay every user's usage away and make every later
// (correct) pass look like it ran backwards.  A running record whose start is
// after the pass (a node's clock ahead) is left out of that pass with a
// warning, the others charged: one bad record never stops everybody's pass.
// A job end dated after the host's clock (or the last pass, when later) is
// charged up to it, with a warning: charges never run past the clock.
//
// The usage pass (decay and job_end alike), written here once for every
// family: the family's plan_pass gives the frame (decay plan, PassClock);
// the runtime checks each record (check_charge; a decay skips records that
// are not running), asks the family's charge_job for its charge (ENOENT:
// the association is gone: one warning naming the job, the pass goes on),
// writes the scalar and windowed rows and the pass's clock in ONE store
// transaction (acct::Store::apply_pass), warns once for each charge the
// store found no association for, counts the charges, then asks the
// family's after_pass for the next state and publishes it, numbered here
// (State::publish_seq, +1 per publish).  Handle layouts are numbered by
// next_layout_id() alone.  How a family's next state follows the commit
// is its rule: multifactor applies the store's decay factor and per-charge
// credits to its in-memory usage (no re-read: what the store did is in the
// result, exactly); the windowed families (maui, gridengine, flux) re-read
// their rows, whose weighting depends on the clock.
//
// The failure rule (ABI: "a pass is never applied twice"): when a pass fails
// before the store committed, nothing changed.  When it fails after the
// commit (a reload or snapshot build threw), the runtime rebuilds the state
// from the store, so memory and file agree again; if even that fails the
// runtime is marked stale and the next pass first rebuilds (and refuses to
// run while it cannot), so the committed pass is never decayed again from an
// old in-memory state.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "mfprio/mfprio.h"
#include "policy.hpp"

namespace mfprio {

// init()'s host table in C++ form (validates counts and pointers).
// Throws std::invalid_argument naming the bad member.
HostContext host_context(const mfprio_host_t& host, const char* type);

class Runtime {
 public:
  Runtime(std::unique_ptr<Policy> policy, const mfprio_host_t& host);
  ~Runtime();

  // Opens the store (if the family keeps one) and publishes the first state.
  // Throws acct::StoreError / std::exception; the message names the store.
  void open();

  std::shared_ptr<const State> current() const { return state_.load(std::memory_order_acquire); }
  std::shared_ptr<const PassState> last_pass() const { return pass_.load(std::memory_order_acquire); }
  void set_last_pass(std::shared_ptr<const PassState> p) { pass_.store(std::move(p), std::memory_order_release); }

  // Control thread.  Return a status; *why names the job or store at fault.
  int decay(int64_t now, const mfprio_job_t* running, size_t count, std::string* why);
  int job_end(const mfprio_job_t* jobs, const int64_t* end_times, size_t count, std::string* why);
  // set_accounts (mfprio.h): the host's tree replaces the store's (only what
  // differs is written, in one transaction through the store's admin API),
  // then the state is rebuilt from the store and published.  Control thread.
  int set_accounts(const mfprio_accounts_t& tree, std::string* why);

  const Policy& policy() const { return *policy_; }
  const HostContext& host() const { return host_; }

  // Clamp accounting: the first high clamp is logged at once with its job,
  // later ones are summed once per decay pass.
  void count_clamp(uint32_t clamp, uint64_t job_id);
  void count_clamps(const ClampCounts& c);
  std::atomic<uint64_t> clamped_high{0}, clamped_low{0}, jobs_charged{0};

  // For tests of the failure rule: true while the state could not be rebuilt.
  bool stale() const { return stale_; }

 private:
  void publish(std::shared_ptr<State> s);
  int usage_pass(const State& cur, const UsagePass& pass, std::string* why);
  void report_dropped(const UsagePlan& plan, const acct::PassResult& res, const char* what) const;
  // Rebuilds the state from the store; false (and stale) when that fails.
  bool converge(std::string* why);
  void summarize_clamps();

  HostContext host_;
  std::unique_ptr<Policy> policy_;
  std::unique_ptr<acct::Store> store_;
  std::atomic<std::shared_ptr<const State>> state_;
  std::atomic<std::shared_ptr<const PassState>> pass_;
  uint64_t published_ = 0;     // the publish counter (State::publish_seq)
  uint64_t clamped_high_logged_ = 0;
  bool stale_ = false;
  int64_t max_gap_ = 0;        // PriorityMaxDecayGap, seconds (0: no bound)
  bool create_store_ = true;   // MfprioCreateStore (views say no: never create, open read-only)
  std::string conf_given_;     // the file of a host's MfprioCreateStore pair (line 0): the conf given
  bool durable_store_ = true;  // MfprioStoreDurable (simulate says no: acct::OpenOptions::durable)
};

}  // namespace mfprio
