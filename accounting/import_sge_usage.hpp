// import_sge_usage.hpp - `mfprio-acct import-sge-usage`: Grid Engine usage
// (cpu, mem, io) of users, of users within projects and of projects, each with
// the time it was measured, as the gridengine family's usage rows.
//
// Sources (Son of Grid Engine 8.1.9):
//   sge_share_mon output (`sge_share_mon -c 1`, tab-delimited, times in
//     seconds: no -t), the default 19 fields, or any fields with a header
//     line (-h), or name=value fields (-n).  A leaf with a user object is the
//     user's usage (within its project when the node is below a project
//     node); a node named like its project is the project's.  Measured at
//     usage_time (the user's usage_time_stamp), at curr_time when that is 0
//     (project nodes) or when the values were decayed to curr_time
//     (sge_share_mon -u: `decayed`).
//   the qmaster's classic spool of users and projects (the files under
//     spool/qmaster/users and .../projects): `usage` (cpu=.. mem=.. io=..),
//     `usage_time_stamp`, and a user's per-project `project` list
//     (NAME cpu=..,mem=..,io=.. [LONG TERM];...).  Other usage names (iow,
//     vmem, ...) and fields (fshare, acl, ...) are passed over.
//
// Rows as the family keeps them (ge_policy.hpp): kinds cpu/mem/io for a user,
// project_cpu/... for a project, user_project_cpu/... named "user:project".
// Each imported value replaces its row.  The store's rows all stand at its
// last decay time L; a value measured at T is stored as value x c^((L - T)/60)
// (c the type's per-minute constant from sched_conf, the code default
// halftime 168 h without one), so the next pass decays it exactly as if it
// had been in the store since T.  A store never decayed (L = 0) takes the
// latest T as its last decay time first.
//
// Errors (nothing written) name FILE:LINE and the field: an unreadable
// number or time, a missing field, usage with no time stamp, two different
// values of one row measured at the same time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "admin.hpp"
#include "qconf.hpp"
#include "store.hpp"

namespace mfprio::acct {

// One node's usage as read.
struct SgeUsage {
  enum Scope { User, UserProject, Project } scope = User;
  std::string name;  // user, "user:project" or project
  double cpu = 0, mem = 0, io = 0;
  int64_t measured = 0;  // seconds since the epoch
  std::string where;     // FILE:LINE
};

std::vector<SgeUsage> read_share_mon(const std::string& text, const std::string& file, bool decayed);
// One spooled user (project = false) or project file.
std::vector<SgeUsage> read_spooled_usage(const std::string& text, const std::string& file, bool project);

struct SgeUsagePlan {
  AdminChanges changes;
  int64_t clock = 0;         // the store's last decay time after the import
  bool set_clock = false;    // the store had none: clock becomes it
  size_t users = 0, user_projects = 0, projects = 0;
};
// store_clock: the store's last decay time (0 = never).
SgeUsagePlan plan_sge_usage(const std::vector<SgeUsage>& rows, const gridengine::SchedConf& conf,
                            int64_t store_clock);

struct SgeUsageOptions {
  std::string share_mon;            // a file, or ""
  std::vector<std::string> spool;   // files, or directories holding users/ and projects/
  std::string sched_conf;           // qconf -ssconf text, or "" (code defaults)
  bool decayed = false;             // sge_share_mon -u
};
// The command's arguments (after `import-sge-usage`); cli::UsageError (acct_cli.hpp) when bad.
SgeUsageOptions sge_usage_options(const std::vector<std::string>& args);
SgeUsagePlan import_sge_usage(Store& store, const SgeUsageOptions& o);

}  // namespace mfprio::acct
