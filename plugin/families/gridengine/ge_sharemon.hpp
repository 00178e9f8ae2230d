// ge_sharemon.hpp - the share-monitor table (what sge_share_mon prints) as plain
// rows, from a pricing pass.  sgeee.c:sge_calc_node_targets.
//
// Columns per share-tree node (depth-first, children in tree order; per-user
// copies of `default` appear as siblings of `default`):
//   name, depth  the node's own name ("/" for the root) and its depth (root 0);
//                its path is the names of the rows above it at depths 1..depth-1
//                (kept as name and depth: a path per row costs depth^2 bytes
//                on a deep tree)
//   shares       configured shares
//   level_pct    100 * shares / sum of all siblings' shares (configured, active or not)
//   total_pct    product of level_pct/100 along the path, times 100
//   long_target  oltt of the pass with running + pending jobs (0 when inactive)
//   short_target ostt of that pass (0 when inactive)
//   actual_usage usage / root usage (0 when the root has none)
//   usage        combined decayed usage (usage_weight_list)
//   tickets      share-tree tickets of the jobs in the node's subtree (final values)
//   jobs         running + pending jobs in the subtree
// Entry point: share_monitor_rows.
#pragma once

#include <string>
#include <vector>

#include "ge_priority.hpp"

namespace mfprio::gridengine {

struct ShareMonRow {
  std::string name;
  uint32_t depth = 0;
  std::string type;  // "user", "project", "user(default)"
  uint32_t shares = 0;
  double level_pct = 0;
  double total_pct = 0;
  double long_target = 0;
  double short_target = 0;
  double actual_usage = 0;
  double usage = 0;
  double tickets = 0;
  uint32_t jobs = 0;
};

std::vector<ShareMonRow> share_monitor_rows(const PricingResult& pricing);

}  // namespace mfprio::gridengine
