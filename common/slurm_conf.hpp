// slurm_conf.hpp - what slurm.conf's lines mean beyond syntax, shared by the
// host (cluster totals), every family (the key check) and priority/multifactor
// (partitions):
//
//   - records: a line whose first key is NodeName, PartitionName or NodeSet
//     is one record; the other pairs on that line are its attributes.  As in
//     Slurm, a NodeName=DEFAULT / PartitionName=DEFAULT line sets defaults
//     for the records of its kind after it (later DEFAULT lines add to and
//     override earlier ones) and is not a record itself.
//   - host lists: "n[01-16,20],gpu1" (count, or expand to names).
//   - node lines: CPUs (else Sockets x CoresPerSocket x ThreadsPerCore),
//     RealMemory (MB, default 1 as in Slurm), Gres ("gpu:4",
//     "gpu:a100:2,mps:100", "gpu" = 1) per node, times the host count.
//   - check_slurm_keys: the checks Slurm makes at start that every family
//     must make too (it runs in the plugin runtime, before any family reads
//     its keys): an unknown top-level key starting with "Priority" is an
//     error with the closest known key as a suggestion; the TRES names in
//     PriorityWeightTRES and TRESBillingWeights (top level and on
//     PartitionName lines) must be known TRES types (tres.hpp).
// Errors name file:line and the key; readers collect them (ConfErrors).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "conf.hpp"

namespace mfprio {

struct ConfRecord {
  const ConfPair* head = nullptr;                  // "PartitionName=batch"
  std::map<std::string, const ConfPair*> attrs;    // lower-cased key -> pair (defaults included)
  const std::string& name() const { return head->value; }
  const ConfPair* get(const std::string& lower_key) const {
    auto it = attrs.find(lower_key);
    return it == attrs.end() ? nullptr : it->second;
  }
};

// The records of one kind ("NodeName", "PartitionName", "NodeSet"), in file
// order, DEFAULT lines folded into the records after them.
std::vector<ConfRecord> conf_records(const std::vector<ConfPair>& pairs, const char* kind);

// True for a key that starts a record line (its pairs are not top-level keys).
bool is_record_key(const std::string& key);

// Number of hosts in a Slurm host list ("n[01-04,7],login"); throws
// std::invalid_argument on a malformed list.
uint64_t hostlist_count(const std::string& list);
// The host names of a list, in order ("n[08-10]" -> n08 n09 n10, zero
// padding kept); throws std::invalid_argument on a malformed list or one
// naming more than `max` hosts.
std::vector<std::string> hostlist_expand(const std::string& list, size_t max);

// One NodeName line, per node.
struct NodeLine {
  const ConfRecord* record = nullptr;
  uint64_t count = 0;                                 // hosts on the line
  uint64_t cpus = 0, mem_mb = 0;
  std::vector<std::pair<std::string, double>> gres;   // "gres/gpu" -> 4 per node
};

// Resource totals (the cluster's or a partition's).
struct NodeTotals {
  uint64_t nodes = 0, cpus = 0, mem_mb = 0;
  std::vector<std::pair<std::string, double>> gres;   // sorted by name
};

// The NodeName lines of `records` (conf_records(pairs, "NodeName")).
// Throws ConfigError "file:line: Key: why" on a bad value.
std::vector<NodeLine> node_lines(const std::vector<ConfRecord>& records);
// Their sum (the cluster when ClusterNodes/CPUs/... are not given).
NodeTotals sum_nodes(const std::vector<NodeLine>& lines);

// Host name -> index of its NodeName line (each line's list expanded once,
// at most 2^20 hosts; throws ConfigError beyond).
using HostIndex = std::unordered_map<std::string, size_t>;
HostIndex index_hosts(const std::vector<NodeLine>& nodes);

// A partition's totals from its Nodes= (a host list of NodeName hosts and
// NodeSet names, or ALL), each node counted once.  Returns false (no
// Nodes= key: the cluster's totals apply).  Throws ConfigError naming the
// partition line when a name is neither a node nor a node set.  `hosts` is
// index_hosts(nodes), built once for all partitions.
bool partition_totals(const ConfRecord& partition, const std::vector<NodeLine>& nodes, const HostIndex& hosts,
                      const std::vector<ConfRecord>& nodesets, NodeTotals* out);

// The keys Slurm 22.05 knows that start with "Priority" (top level), plus
// mfprio's own PriorityMaxDecayGap.
const std::vector<const char*>& known_priority_keys();
// Adds to `errors` every problem check_slurm_keys finds (see file comment).
void check_slurm_keys(const std::vector<ConfPair>& pairs, ConfErrors* errors);
// Levenshtein distance, ASCII case-insensitive (for "did you mean").
size_t edit_distance(const std::string& a, const std::string& b);

}  // namespace mfprio
