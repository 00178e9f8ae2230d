// flux_settings.hpp - the `flux` family's configuration: the value of
// `PriorityParameters=` parsed into typed settings.
//
// Purpose: one place that knows every key the family accepts, its default and
// its range (README.md in this folder is the admin's view of the same table).
// Entry points: parse_flux_parameters() and parse_slurm_time().
// Invariants:
//   * Validate fully, then change: *out is written only when the whole string
//     is valid, so a bad key leaves the caller's settings untouched.
//   * The defaults are flux-accounting's (flux-accounting mf_priority.cpp for the four
//     factor weights, flux-accounting job_usage_calculation.py for the usage/decay settings); the design-mode keys
//     follow Flux's "Job Priority Plugin" design page (six normalised factors).
//   * Keys are case-insensitive; each key may appear once; a key that the
//     selected mode does not use is an error rather than silently ignored.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

namespace mfprio::flux {

// accounting = flux-accounting's mf_priority formula (flux-accounting mf_priority.cpp);
// design     = the six normalised factors of Flux's "Job Priority Plugin" design page.
enum class Mode { kAccounting, kDesign };

// Design-mode job-size factor: nodes/cluster_nodes (large) or 1 - that (small).
enum class SizeFavor { kLarge, kSmall };

// Integer weights, as flux-accounting keeps them (map<string,int>).  The four
// flux-accounting factors must fit a 32-bit int; the design-only ones are
// 0..4294967295.  Design mode requires every weight to be >= 0.
struct Weights {
  int64_t fairshare = 100000;  // flux-accounting DEFAULT_FSHARE_WEIGHT
  int64_t queue = 10000;       // DEFAULT_QUEUE_WEIGHT
  int64_t bank = 0;            // DEFAULT_BANK_WEIGHT
  int64_t urgency = 1000;      // DEFAULT_URGENCY_WEIGHT (since v0.47.0)
  // design mode only (the design page gives no defaults; 0 = factor off, as Slurm)
  int64_t wait_time = 0;
  int64_t qos = 0;
  int64_t job_size = 0;
  int64_t user = 0;
};

// Usage charging and decay (flux-accounting job_usage_calculation.py, flux-accounting's
// config_table defaults).  Times are seconds.
struct UsageSettings {
  int64_t half_life = 7 * 86400;      // priority_decay_half_life: one bin's length
  int64_t reset_period = 28 * 86400;  // priority_usage_reset_period: the window
  double decay_factor = 0.5;          // in (0, 1)
  double node_weight = 1.0;           // usage = (nodes*nw + cores*cw + gpus*gw) * seconds
  double core_weight = 0.0;
  double gpu_weight = 0.0;

  // Number of bins: int(reset_period / half_life), and 4 when that is <= 0
  // (flux-accounting's rule; with the defaults 28 d / 7 d = 4).
  int bins() const;
};

struct Settings {
  Mode mode = Mode::kAccounting;
  Weights weights;
  int64_t max_wait = 7 * 86400;  // design: wait time reaching this gives factor 1
  SizeFavor job_size_favor = SizeFavor::kLarge;
  UsageSettings usage;
};

inline constexpr int64_t kTimeInfinite = std::numeric_limits<int64_t>::max();

// Slurm time string -> seconds: "min", "min:sec", "h:m:s", "d-h", "d-h:m",
// "d-h:m:s" (slurm.conf(5)); "-1", "INFINITE", "UNLIMITED" give
// kTimeInfinite.  False with a reason in *why (may be null) otherwise.
bool parse_slurm_time(const std::string& text, int64_t* seconds, std::string* why);

// Parses the text after `PriorityParameters=`: comma-separated NAME=VALUE
// items (see README.md for the table).  An empty string gives the defaults.
// On error returns false, leaves *out unchanged and puts a message naming the
// key and the value in *why (may be null).
bool parse_flux_parameters(const std::string& value, Settings* out, std::string* why);

// "accounting" / "design", "large" / "small": for messages and views.
const char* mode_name(Mode m);
const char* size_favor_name(SizeFavor f);

}  // namespace mfprio::flux
