// sacctmgr_dump.hpp - `mfprio-acct dump CLUSTER [file=F]` and
// `mfprio-acct load file=F`: the association tree in sacctmgr's flat-file
// format (Slurm 22.05's `sacctmgr dump` / `sacctmgr load`), the standard way
// to move an association tree between clusters.
//
// Format (one record a line, '#' comments, options after ':' in any order,
// values optionally in single quotes, names and option keys as Slurm writes
// them, keys case-insensitive):
//   Cluster - 'NAME':Fairshare=N          the root association (first record)
//   Parent - 'ACCOUNT'                    the account the next lines go under
//   Account - 'NAME':Fairshare=N|parent:Priority=N:Description='..':Organization='..'
//   User - 'NAME':DefaultAccount='A':Fairshare=N|parent:Priority=N:Partition='P':AdminLevel='Administrator'
// What the store keeps: the tree, shares (or parent), association priority,
// description, partition, default account, AdminLevel=Administrator.  What
// it does not (QOS, DefaultQOS, Organization, Coordinator, the Grp*/Max*
// limits) is read, checked for form, and reported once per option with the
// first FILE:LINE; an option sacctmgr does not know is an error naming
// FILE:LINE and the nearest known option.  The records go through the very
// validation of `import FILE.json` (plan_import): one transaction or nothing.
#pragma once

#include <string>
#include <vector>

#include "import_export.hpp"
#include "store.hpp"

namespace mfprio::acct {

// The dump text of the whole store, for cluster `cluster`.
std::string sacctmgr_dump_text(const StoreData& d, const std::string& cluster);

struct LoadStats {
  size_t accounts = 0, users = 0;
  std::string cluster;             // from the Cluster line
  std::vector<std::string> notes;  // options read but not kept
};

// Parse and plan (no writes): the changes, or an AdminError naming FILE:LINE.
AdminChanges plan_sacctmgr_load(const StoreData& current, const std::string& text, const std::string& file,
                                LoadStats* stats);

}  // namespace mfprio::acct
