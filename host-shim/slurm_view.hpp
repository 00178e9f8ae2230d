// slurm_view.hpp - `mfprio-host sprio --slurm[=FILE|DIR]`: the family's own
// view of a live slurmctld's jobs, from what priority/mfprio's last pass
// published (host-shim/slurm: StateSaveLocation/mfprio-pass.jsonl, one line
// per pending record and per running job in the job file format, with the
// pass's "_priority", "_pass_time" and "_family").
//
// The conf is the controller's own slurm.conf (--conf FILE, else
// $SLURM_CONF, else /etc/slurm/slurm.conf), read as the adapter reads it
// (host-shim/slurm/adapter_conf.hpp: PriorityType=priority/<family>,
// PriorityParameters without the adapter's items, mfprio_store as
// AccountingStorageLoc); PluginDir is the adapter's mfprio_plugin_dir (else
// mfprio's install directory), never Slurm's.  The family is loaded over
// the same store the controller's family writes, and the published queue is
// priced at the pass's time: the rows are the pass's priorities with the
// family's named terms (a pass that runs between the two reads can make
// the store one pass newer than the file).
#pragma once

#include <string>

#include "cli.hpp"
#include "conf.hpp"

namespace mfprio::host {

// The options `sprio --slurm` runs with: conf (the default when not given),
// jobs_file (the pass file: PATH, PATH/mfprio-pass.jsonl for a directory,
// else StateSaveLocation/mfprio-pass.jsonl) and now (the pass's time).
// Throws std::runtime_error naming the file (and the conf's file:line when
// the pass was written by another family than the conf names).
Options slurm_sprio_options(const Options& o);

// The controller's slurm.conf as the family's conf (see above).
Conf slurm_family_conf(const std::string& path);

}  // namespace mfprio::host
