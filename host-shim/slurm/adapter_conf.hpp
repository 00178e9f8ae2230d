// adapter_conf.hpp - the one reading of priority/mfprio's slurm.conf
// (slurm_conf.cpp), shared by the adapter (its C side, slurm_conf_c.cpp) and
// by mfprio-host (`sprio --slurm`, host-shim/slurm_view.cpp), so both give
// the family the same pairs.  mfprio's code under mfprio's licence: no Slurm
// header is included.
//
// PriorityParameters=family=NAME[,mfprio_plugin_dir=DIR][,mfprio_store=PATH]
//                    [,mfprio_pass_interval=SECONDS][,rest]
// is split into the adapter's items and the family's rest; the family's
// pairs are every pair of the conf but the PriorityParameters ones, then
// PriorityParameters=rest (when there is a rest) and
// AccountingStorageLoc=PATH (mfprio_store), with PriorityType rewritten to
// priority/NAME.  The family's name is not checked here (the adapter checks
// it against the families it knows; mfprio-host's loader finds the .so).
#pragma once

#include <string>
#include <vector>

#include "conf.hpp"

namespace mfprio::slurm_adapter {

struct AdapterConf {
  std::string family;      // lower case, never empty
  std::string plugin_dir;  // mfprio_plugin_dir= (absolute), "" when not given
  unsigned pass_interval = 0;  // mfprio_pass_interval=, 0 when not given
  std::vector<ConfPair> pairs;  // the family's pairs (see above)
  ConfPair params;          // the PriorityParameters pair read (its file:line)
};

// `path` is the conf's file (for messages).  Throws ConfigError naming
// file:line: key when PriorityParameters or family= is missing or an item
// of the adapter's is bad.
AdapterConf adapter_conf(const Conf& conf, const std::string& path);

}  // namespace mfprio::slurm_adapter
