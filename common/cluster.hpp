// cluster.hpp - the resource totals of a cluster or a partition, one record
// for the host (which fills init's host table from it) and the plugins (which
// read it back from that table).  Header only.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace mfprio {

// Resource totals of the whole cluster (init's host table) or of a partition.
struct ClusterTotals {
  double nodes = 0, cpus = 0, mem_mb = 0;
  std::vector<std::pair<std::string, double>> extra;  // "gres/gpu" -> 8 (lower-case names)

  // The total of TRES `name` ("cpu", "mem", "node" or an extra); 0 when unknown.
  double get(const std::string& name) const {
    if (name == "cpu") return cpus;
    if (name == "mem") return mem_mb;
    if (name == "node") return nodes;
    for (const auto& e : extra)
      if (e.first == name) return e.second;
    return 0;
  }
};

}  // namespace mfprio
