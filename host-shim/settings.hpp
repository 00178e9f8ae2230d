// settings.hpp - the few conf keys the host itself reads (everything else is
// the plugin's business and is passed on untouched):
//
//   PriorityType   priority/<name>, default priority/multifactor
//   PluginDir      colon-separated directories, default the compiled-in one
//   ClusterNodes   cluster totals given to the plugin's init (mfprio_host_t);
//   ClusterCPUs    when absent they are summed from NodeName= lines
//   ClusterMemMB   (CPUs=, RealMemory= in MB, Gres=gpu:4 per node, node
//   ClusterTRES    count from the host list: n[01-16,20],gpu1 = 18 nodes).
//                  ClusterTRES=gres/gpu=8,license/matlab=4: name=count list.
//
// A bad value throws SettingsError "file:line: Key: why".
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cluster.hpp"
#include "conf.hpp"
#include "slurm_conf.hpp"

namespace mfprio::host {

struct SettingsError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct HostSettings {
  std::string priority_type = "priority/multifactor";
  std::vector<std::string> plugin_dirs;
  ClusterTotals cluster;
};

// Reads the host's keys from `conf`.  default_plugindir is used when the conf
// has no PluginDir; plugin_dir_override (the --plugin-dir option) wins over both.
HostSettings read_settings(const Conf& conf, const std::string& default_plugindir,
                           const std::string& plugin_dir_override = "");

// Seconds from the conf's PriorityCalcPeriod, else 5 minutes (the plugin
// validates the key itself; a value it rejects stops init anyway).
int64_t conf_calc_period(const Conf& conf);

// "priority/multifactor" -> "priority_multifactor.so".
std::string plugin_file_name(const std::string& priority_type);

// Number of hosts in a Slurm host list (common/slurm_conf.hpp).
using mfprio::hostlist_count;

// Splits "a:b::c" into non-empty parts.
std::vector<std::string> split_path_list(const std::string& s);

}  // namespace mfprio::host
