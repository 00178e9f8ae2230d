// mf_settings.hpp - priority/multifactor: the Priority* keys of slurm.conf,
// validated into typed values.
//
// parse_settings() reads every key it knows (case-insensitively) from the
// host's key/value list, later pairs overriding earlier ones, and ignores the
// rest.  Every known key with a bad value is reported, all together, in one
// ConfigError (one "file:line: Key: why" per line); nothing is half-applied
// because the caller only swaps in a fully parsed Settings.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "conf.hpp"
#include "share_tree.hpp"
#include "slurm_conf.hpp"
#include "tres.hpp"

namespace mfprio::multifactor {


enum PriorityFlag : uint32_t {
  kAccrueAlways = 1u << 0,
  kSmallRelativeToTime = 1u << 1,
  kCalculateRunning = 1u << 2,
  kDepthOblivious = 1u << 3,
  kNoFairTree = 1u << 4,
  kIncrOnly = 1u << 5,
  kMaxTres = 1u << 6,
  kNoNormalAssoc = 1u << 7,
  kNoNormalPart = 1u << 8,
  kNoNormalQos = 1u << 9,
  kNoNormalTres = 1u << 10,
  kTicketBased = 1u << 11,
  kFairTree = 1u << 12,  // accepted for old confs: Fair Tree is the default
};

// A PartitionName= line of slurm.conf (PartitionName=DEFAULT applied).
struct ConfPartition {
  std::string name;
  std::string origin;                // "file:line" of the line
  uint32_t job_factor = 1;           // PriorityJobFactor (Priority= sets it and the tier)
  uint32_t tier = 1;                 // PriorityTier: read and checked; scheduling order, not a factor
  std::string billing;               // TRESBillingWeights as written
  std::vector<TresWeight> billing_weights;
  bool has_totals = false;           // Nodes= given: totals from its NodeName hosts
  NodeTotals totals;
  bool is_default = false;           // Default=YES
};

enum class ResetPeriod : uint8_t { None, Now, Daily, Weekly, Monthly, Quarterly, Yearly };

struct Settings {
  int64_t decay_half_life = 7 * 86400;  // seconds; 0 = no decay
  int64_t calc_period = 300;            // seconds, >= 60
  int64_t max_age = 7 * 86400;          // seconds
  bool favor_small = false;
  ResetPeriod reset = ResetPeriod::None;
  uint32_t w_age = 0, w_assoc = 0, w_fairshare = 0, w_jobsize = 0, w_partition = 0, w_qos = 0;
  std::vector<TresWeight> w_tres;
  std::string w_tres_text;  // PriorityWeightTRES as written (views print it so)
  uint32_t flags = 0;
  uint32_t dampening = 1;               // FairShareDampeningFactor
  std::string store_path;               // AccountingStorageLoc, or the default (conf.hpp)
  std::string store_path_origin;        // "file:line" of AccountingStorageLoc or "default: ...", for messages
  std::vector<ConfPartition> partitions;  // PartitionName= lines, in file order

  FairShareAlgo algo() const;
  bool has(uint32_t f) const { return (flags & f) != 0; }
  // Names of the flags set, comma-separated (for views and logs).
  std::string flag_names() const;
  // True when the six scalar weights can sum past 2^32-1.
  bool weights_may_overflow() const;
};

Settings parse_settings(const std::vector<ConfPair>& conf);
// The PartitionName= lines (with NodeName/NodeSet lines for Nodes=); every
// bad value is added to *errors naming file:line and the key.
std::vector<ConfPartition> parse_partitions(const std::vector<ConfPair>& conf, ConfErrors* errors);

const char* reset_period_name(ResetPeriod p);

}  // namespace mfprio::multifactor
