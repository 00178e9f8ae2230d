// engine.hpp - the multifactor engine: settings + accounting store + the
// published snapshot.  One Engine lives between init() and fini().
//
// Call order: Engine(host) parses the conf (throws ConfigError) -> open()
// opens the store and publishes the first snapshot -> decay()/job_end() on
// the control thread -> current() from any thread.
//
// Decay arithmetic (one pass at time `now`, REFERENCE §1.4):
//   factor = 2^(-(now - last_decay) / PriorityDecayHalfLife)   (1 when no half-life)
//   usage  = (reset boundary crossed ? 0 : usage) * factor
//   usage += seconds run since the job's last charge x billable TRES x QOS UsageFactor
// The store applies the same steps in one transaction and returns what each
// charge added, so memory and file agree without a reload.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mfprio/mfprio.h"
#include "settings.hpp"
#include "snapshot.hpp"
#include "store.hpp"

namespace mfprio {

class Engine {
 public:
  explicit Engine(const mfprio_host_t& host);
  ~Engine();

  // Opens the store and publishes the first snapshot.  Throws acct::StoreError.
  void open();

  std::shared_ptr<const Snapshot> current() const {
    return snap_.load(std::memory_order_acquire);
  }

  // Control thread.  Return a status; *why names the job or store at fault.
  int decay(int64_t now, const mfprio_job_t* running, size_t count, std::string* why);
  // Charges count finished jobs (end_times[i] for jobs[i]) in one transaction.
  int job_end(const mfprio_job_t* jobs, const int64_t* end_times, size_t count, std::string* why);

  const Settings& settings() const { return *settings_; }
  int64_t now() const;
  void log(int level, const std::string& msg) const;

  std::atomic<uint64_t> clamped_high{0}, clamped_low{0}, jobs_charged{0};

 private:
  std::shared_ptr<const Layout> build_layout(const acct::StoreData& data, uint32_t id) const;
  std::shared_ptr<Snapshot> build_snapshot(std::shared_ptr<const Layout> layout,
                                           const std::vector<double>& user_usage,
                                           int64_t last_decay, uint64_t generation) const;
  void publish(std::shared_ptr<Snapshot> s);
  void reload(int64_t last_decay);
  bool reset_due(int64_t last_reset, int64_t now) const;
  // until[i * until_stride] is job i's charge end (stride 0: one time for all).
  int charges_for(const Snapshot& snap, const mfprio_job_t* jobs, size_t count,
                  const int64_t* until, size_t until_stride, bool ended, std::vector<acct::Charge>* out, std::vector<uint32_t>* nodes,
                  std::string* why) const;

  mfprio_host_t host_;
  std::shared_ptr<const Settings> settings_;
  ClusterTotals cluster_;
  std::unique_ptr<acct::Store> store_;
  std::atomic<std::shared_ptr<const Snapshot>> snap_;
  std::vector<double> usage_;   // per tree node, users only (control thread)
  int64_t last_reset_ = 0;
  bool reset_now_done_ = false;
  uint64_t clamped_high_logged_ = 0;  // clamped_high at the last summary  // PriorityUsageResetPeriod=NOW: once per engine
  uint32_t next_layout_ = 0;  // seeded per Engine (see the constructor)
  uint64_t next_generation_ = 1;
};

// Conf pairs of the host table, as parse_settings wants them.
std::vector<ConfPair> conf_items(const mfprio_host_t& host);

}  // namespace mfprio
