// views.hpp - text views of what the plugin returns: sprio (per-job factor
// breakdown) and sshare (the association share table).  Pure formatting:
// no plugin calls here, so tests feed rows directly.
//
// Columns follow Slurm's sprio/sshare defaults (REFERENCE §1.10):
//   sprio     JOBID PARTITION PRIORITY SITE AGE ASSOC FAIRSHARE JOBSIZE PARTITION QOS TRES
//   sprio -l  JOBID PARTITION USER ACCOUNT PRIORITY SITE AGE ASSOC FAIRSHARE JOBSIZE
//             PARTITION QOSNAME QOS NICE TRES
//   sshare    Account User RawShares NormShares RawUsage EffectvUsage FairShare
//   sshare -l adds NormUsage (before EffectvUsage), LevelFS, GrpTRESMins, TRESRunMins
// Widths are minimums (nothing is truncated).  Parsable output (-P): no
// padding, '|' after every field, header first.
#pragma once

#include <mfprio/mfprio.h>

#include <cstdint>
#include <string>
#include <vector>

namespace mfprio::host {

struct SprioRow {
  uint64_t job_id = 0;
  std::string partition, user, account, qos;
  mfprio_factors_t f{};
};

// The weights in force, from plugin_info_json (see parse_weights).
struct Weights {
  bool known = false;
  double age = 0, assoc = 0, fairshare = 0, jobsize = 0, partition = 0, qos = 0;
  std::string tres;  // "CPU=1000,Mem=2000" as configured
};

struct SprioOptions {
  bool long_format = false;
  bool normalized = false;  // -n: factors 0..1 with 7 decimals
  bool weights = false;     // -w: a "Weights" row first
  bool parsable = false;    // -P
  bool header = true;
};

std::string format_sprio(const std::vector<SprioRow>& rows, const SprioOptions& opt, const Weights& w);

// Reads weights from a plugin_info_json document: an object "weights" with
// members age, assoc, fairshare, jobsize, partition, qos (numbers) and tres
// (a string, or an object name -> weight), or, failing that, top-level
// PriorityWeightAge ... PriorityWeightTRES members.  Keys compare
// case-insensitively.  known=false when neither form is present.
Weights parse_weights(const std::string& info_json);

struct ShareRow {
  uint32_t depth = 0;
  bool is_user = false;
  bool is_root = false;
  std::string account, user;
  bool shares_parent = false;
  uint32_t raw_shares = 0;
  double norm_shares = 0, raw_usage = 0, norm_usage = 0, eff_usage = 0, level_fs = 0, fairshare = 0;
};

struct SshareOptions {
  bool long_format = false;
  bool parsable = false;
  bool header = true;
};

std::string format_sshare(const std::vector<ShareRow>& rows, const SshareOptions& opt);

// Copies the plugin's rows (valid only until share_table_free).
std::vector<ShareRow> share_rows_from(const mfprio_share_row_t* rows, size_t count);

// "%.Nf" of v; "inf" for infinity, "nan" for NaN.
std::string fixed(double v, int decimals);

}  // namespace mfprio::host
