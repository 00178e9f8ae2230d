// conf_loc.hpp - AccountingStorageLoc from a slurm.conf-style file, for
// mfprio-acct --conf FILE.  Parsed by the host's conf parser (conf_dep), so
// Include, quotes and comments behave as for mfprio-host; the last pair
// wins.  A relative path is taken relative to the file that wrote it; with
// no key, the documented default (conf.hpp: mfprio.db in StateSaveLocation,
// else beside the conf).
#pragma once

#include <cstdint>
#include <string>

namespace mfprio::acct {

// Throws AdminError("FILE:LINE: ...") or ("FILE: no AccountingStorageLoc= ...").
std::string storage_loc_from_conf(const std::string& file);
// The conf's ClusterName as the store's cluster (common/conf.hpp:
// store_cluster): "" when absent.  Throws AdminError naming file:line.
std::string store_cluster_from_conf(const std::string& file);
// The same on text already read (for tests).
std::string storage_loc_from_text(const std::string& text, const std::string& file);

// What `show cluster` and `show assoc` take from the conf: ClusterName
// (lower-cased, as slurmctld registers it), the first SlurmctldHost (old
// confs: ControlMachine; the name, without "(address)"), SlurmctldPort (the
// first of a range; default 6817), and the NodeName lines' totals as
// sacctmgr prints a cluster's TRES ("cpu=64,mem=256000M,node=2,gres/gpu=8";
// "" without node lines).  Throws AdminError naming file:line.
struct ConfCluster {
  std::string name, control_host, control_port, tres;
  uint64_t nodes = 0;
};
ConfCluster cluster_from_conf(const std::string& file);
ConfCluster cluster_from_text(const std::string& text, const std::string& file);

}  // namespace mfprio::acct
