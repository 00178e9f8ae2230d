// simulate_map.hpp - `simulate --map FILE`: the trace's names put onto a
// site's.  A trace names users u<N>, accounts g<N> (its group ids) and
// partitions p<N> (else queues q<N>); a site's conf and accounts document use
// their own names, so without a map a multi-partition site refuses the first
// job ("unknown partition 'p1'") and two sites' confs see the same names.
//
// The file, one rule a line ('#' starts a comment; blank lines ignored):
//   user      TRACE SITE
//   account   TRACE SITE      (also: group)
//   partition TRACE SITE      (also: queue, class)
// TRACE "*" maps every name of that kind that has no rule of its own.  A name
// with no rule keeps its trace name.  "user * auto": every trace user without
// a rule of its own keeps its name and is put in one of the --accounts
// document's leaf accounts, drawn with probability proportional to its shares
// (std::mt19937_64 seeded with --seed, users in trace order), and added to
// the document there.  "partition * auto": every job whose trace partition
// has no rule of its own gets one of the site's partitions (site_partitions),
// drawn with probability proportional to its processors (a second generator
// seeded with --seed + 1, jobs in trace order); a site naming none: no
// partition (the default).  `--map auto` is those two rules.  Errors:
// FILE:LINE: why (unknown kind, not three words, a TRACE given twice, auto
// for accounts); nothing is simulated then.
#pragma once

#include <map>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace mfprio::host {

struct SimMap {
  std::string file;
  std::map<std::string, std::string> users, accounts, partitions;
  std::string any_user, any_account, any_partition;  // the "*" rules ("" none)
  std::map<std::string, std::string> user_account;  // "user * auto": the account drawn for each user
  bool auto_partitions = false;                      // "partition * auto"
  std::vector<std::pair<std::string, double>> spread;  // its site partitions and their weights (processors)
  uint64_t seed = 1;                                 // --seed (the partitions' draw uses seed + 1)

  // The site's name for a trace name of that kind (the name itself when unmapped).
  const std::string& user(const std::string& n) const { return pick(users, any_user, n); }
  const std::string& account(const std::string& n) const { return pick(accounts, any_account, n); }
  const std::string& partition(const std::string& n) const { return pick(partitions, any_partition, n); }

 private:
  static const std::string& pick(const std::map<std::string, std::string>& m, const std::string& any,
                                 const std::string& n) {
    auto it = m.find(n);
    if (it != m.end()) return it->second;
    return any.empty() || n.empty() ? n : any;
  }
};

// A partition (class, queue) the site names, where, and its processors.
struct SitePartition {
  std::string name;
  double cpus = 0;      // its processors: Nodes= over the NodeName lines, the document's "tres" cpu=, else the machine's
};
// The names one source (a conf, the accounts document) defines.
struct SiteSource {
  std::string label;    // the conf's path or the accounts file
  std::string kind;     // "partition" or "queue"
  bool from_conf = false;
  std::vector<std::string> names;  // in its order
};
struct SitePartitions {
  std::vector<SitePartition> all;   // every name once, first seen first
  std::vector<SiteSource> sources;  // per conf its PartitionName lines; the document's "partitions" and "queues"
};

// The partitions the site names: each conf's PartitionName lines (sized by
// their Nodes=, else the whole machine), then the accounts document's
// "partitions" (sized by "tres" cpu=N) and "queues".  `procs`: the machine's
// processors.  A conf or document that cannot be read gives none (the run
// itself then names the problem).
SitePartitions site_partitions(const std::vector<std::string>& confs, const std::string& accounts_json,
                               const std::string& accounts_label, double procs);

// One draw of an index with probability weight[i] / sum (sum > 0): the same
// on every platform.
size_t weighted_draw(std::mt19937_64& rng, const std::vector<double>& weights, double sum);

// Parses the map file's text; throws std::runtime_error "FILE:LINE: why".
SimMap parse_sim_map(const std::string& text, const std::string& file);

// "user * auto": draws an account for each of `users` (trace names, in trace
// order) without a rule of its own and returns the accounts document with
// those users added (default account, 1 share).  Throws std::runtime_error
// naming `label` when the document has no leaf account with shares.
std::string spread_users(SimMap* map, const std::vector<std::string>& users, const std::string& accounts_json,
                         const std::string& label, uint64_t seed);

}  // namespace mfprio::host
